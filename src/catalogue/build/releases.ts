// releases.yaml: the service's releases in order; a release's index is its position, the one
// order every lifecycle is resolved against.
import { releaseIdProblem } from '../release-id.js';
import { dense, type RawFile, type ServiceBuild } from './context.js';

export function releases(b: ServiceBuild, f: RawFile) {
  const list = (f.data as { releases: { id: string; date: string; effective?: string; notes?: string; source?: string; note?: string }[] }).releases;
  // index = position among the releases kept (a release with a schema error is left out, and so
  // is an id the gateway could not send, whatever schema the folder brings).
  const safe = dense(list).filter((r) => {
    const problem = releaseIdProblem(r.id);
    if (problem) b.problem(f, ['releases', list.indexOf(r), 'id'], problem);
    return !problem;
  });
  return safe.map((r, index) => {
    const at = list.indexOf(r);
    if (b.releaseIndex.has(r.id)) b.problem(f, ['releases', at, 'id'], `duplicate release id "${r.id}"`);
    b.releaseIndex.set(r.id, index);
    return { ...r, index };
  });
}
