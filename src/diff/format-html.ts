// One self-contained HTML page (inline style, no scripts or external assets): a summary, then a
// table per kind of change, each row with severity, release, rule id, subject, message and the
// YAML position. Meant to be uploaded as a CI artifact and opened as is.
import { KIND_TITLE, releaseLabel, summary } from './format-common.js';
import { escapeXml } from './format-junit.js';
import { subjectOf } from './rules.js';
import { KINDS, type DiffResult } from './types.js';

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:2em}th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}.breaking{color:#b00020;font-weight:bold}.warning{color:#9a6700;font-weight:bold}.info{color:#555}code{font-size:13px}`;

export function formatHtml(r: DiffResult): string {
  const h = escapeXml;
  const title = `${r.service} ${r.from} → ${r.to}`;
  const out = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${h(title)}</title><style>${STYLE}</style></head>`,
    '<body>',
    `<h1>${h(title)}</h1>`,
    `<p>${h(summary(r.changes))}</p>`,
  ];
  for (const kind of KINDS) {
    const cs = r.changes.filter((c) => c.kind === kind);
    if (!cs.length) continue;
    out.push(`<h2>${h(KIND_TITLE[kind])} (${cs.length})</h2>`, '<table>', '<tr><th>Severity</th><th>Release</th><th>Rule</th><th>Subject</th><th>Change</th><th>YAML</th></tr>');
    for (const c of cs) {
      const s = subjectOf(c);
      const at = c.at ? `<code>${h(`${c.at.file}:${c.at.line}`)}</code>` : '';
      out.push(`<tr><td class="${c.severity}">${c.severity}</td><td>${h(releaseLabel(c, r.releases))}</td><td><code>${h(c.id)}</code></td><td><code>${h(s.id)}</code></td><td>${h(c.message)}</td><td>${at}</td></tr>`);
    }
    out.push('</table>');
  }
  out.push('</body>', '</html>');
  return `${out.join('\n')}\n`;
}
