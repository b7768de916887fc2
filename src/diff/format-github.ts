// GitHub Actions workflow commands: one ::error (breaking), ::warning or ::notice (info) per
// change, at the file and line of the YAML item that caused it, so the pull request shows each
// change on the line that made it. Escaping follows the runner's rules: data escapes % CR LF,
// properties also escape : and ,.
import { releaseLabel } from './format-common.js';
import { subjectOf } from './rules.js';
import type { DiffResult, Severity } from './types.js';

const COMMAND: Record<Severity, string> = { breaking: 'error', warning: 'warning', info: 'notice' };

const escapeData = (s: string) => s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (s: string) => escapeData(s).replaceAll(':', '%3A').replaceAll(',', '%2C');

/** `pathPrefix`: where the catalogue folder is, relative to the repository root ("catalogue"). */
export function formatGithub(r: DiffResult, pathPrefix: string): string {
  const prefix = pathPrefix && !pathPrefix.endsWith('/') ? `${pathPrefix}/` : pathPrefix;
  const lines = r.changes.map((c) => {
    const s = subjectOf(c);
    const props = [
      ...(c.at ? [`file=${escapeProperty(prefix + c.at.file)}`, `line=${c.at.line}`] : []),
      `title=${escapeProperty(`${c.id} (${releaseLabel(c, r.releases)})`)}`,
    ];
    return `::${COMMAND[c.severity]} ${props.join(',')}::${escapeData(`${s.id}: ${c.message}`)}`;
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}
