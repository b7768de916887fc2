// JUnit XML for CI test reports: one test suite per diff, one test case per change (classname =
// what it touches, name = rule id and release). Changes at or above --fail-on are failures, so a
// CI dashboard shows the breaking ones red and keeps the rest as passed cases for the record.
import { releaseLabel } from './format-common.js';
import { severityRank, subjectOf } from './rules.js';
import type { DiffResult, Severity } from './types.js';

export function escapeXml(s: string): string {
  // Control characters other than tab and newline are not allowed in XML 1.0 at all.
  // eslint-disable-next-line no-control-regex
  return s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');
}

export function formatJunit(r: DiffResult, failOn: Severity): string {
  const suite = `${r.service} ${r.from} → ${r.to}`;
  const failing = r.changes.filter((c) => severityRank(c.severity) <= severityRank(failOn));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="catalogue diff" tests="${r.changes.length}" failures="${failing.length}" errors="0">`,
    `  <testsuite name="${escapeXml(suite)}" tests="${r.changes.length}" failures="${failing.length}" errors="0" skipped="0">`,
  ];
  for (const c of r.changes) {
    const s = subjectOf(c);
    const name = `${c.id} ${releaseLabel(c, r.releases)}${c.name ? ` ${c.name}` : ''}${c.value ? ` ${c.value}` : ''}`;
    const where = c.at ? ` (${c.at.file}:${c.at.line})` : '';
    const head = `    <testcase classname="${escapeXml(`${s.type} ${s.id}`)}" name="${escapeXml(name)}"`;
    if (failing.includes(c)) {
      lines.push(`${head}>`, `      <failure type="${c.severity}" message="${escapeXml(c.message)}">${escapeXml(`${c.severity} ${c.id}: ${c.message}${where}`)}</failure>`, '    </testcase>');
    } else {
      lines.push(`${head}>`, `      <system-out>${escapeXml(`${c.severity} ${c.id}: ${c.message}${where}`)}</system-out>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}
