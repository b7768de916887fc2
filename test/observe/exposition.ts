// The Prometheus text format as Prometheus reads it: promtool's lint when installed, else the rules
// the metrics tests rely on.
import { spawnSync } from 'node:child_process';
import * as assert from '../support/assert.js';

/** promtool when installed (Debian: prometheus); else the exposition rules this test relies on. */
export function checkExposition(text: string): void {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (!r.error) {
    assert.is(r.status, 0, `promtool check metrics:\n${r.stdout}${r.stderr}`);
    assert.is(`${r.stdout}${r.stderr}`.trim(), '', 'promtool reports nothing');
    return;
  }
  console.warn('promtool not installed (apt-get install prometheus): checking the format without it');
  const families = new Set<string>();
  for (const line of text.split('\n').filter(Boolean)) {
    const help = /^# HELP (\w+) \S/.exec(line);
    if (help) { families.add(help[1]); continue; }
    if (line.startsWith('# TYPE ')) continue;
    const m = /^(\w+)(\{[^}]*\})? (-?[\d.e+-]+|NaN|[+-]Inf)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const base = m[1].replace(/_(bucket|sum|count)$/, '');
    assert.ok(families.has(m[1]) || families.has(base), `${m[1]} has no HELP`);
  }
}

