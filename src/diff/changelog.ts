// The change history of a service, regenerated from the catalogue alone: every release, newest
// first, with its date, its notes and the diff from the release before it.
import type { Service } from '../catalogue/model.js';
import { resolveService } from '../catalogue/resolve.js';
import { diffWalk } from './diff.js';
import { Walk } from './sides.js';
import { markdownBody } from './format.js';
import { classify } from './rules.js';

export function changelog(svc: Service): string {
  const out = [
    `# ${svc.title}: change history`,
    '',
    `Generated from the catalogue (\`catalogue/${svc.id}\`) by \`npm run changelog -- --service ${svc.id}\`; newest release first.`,
    'Each release lists what changed since the release before it, with the rule ids and severities of `npm run diff`.',
  ];
  for (let at = svc.releases.length - 1; at >= 0; at--) {
    const r = svc.releases[at];
    out.push('', `## ${r.id} (${r.date})`, '');
    if (r.notes) out.push(r.notes, '');
    if (at === 0) {
      const first = resolveService(svc, r.id);
      out.push(`First release: ${first.served.length} endpoints, ${first.wsMethods.length} websocket-API methods, ${first.streams.length} streams.`);
      continue;
    }
    out.push(...markdownBody(classify(diffWalk(new Walk(svc, at - 1, at))), 3));
  }
  return `${out.join('\n')}\n`;
}
