// --severity <file>: per-rule severity overrides, oasdiff's severity-levels file in YAML:
//   endpoint-removed-without-deprecation: breaking
//   parameter-deprecated: off          # leave that rule's changes out entirely
// Applied after classification, so --fail-on, every format and the JSON see the overridden level.
import { createRequire } from 'node:module';
import { UsageError } from '../usage-error.js';
import { RULE_IDS } from './rules.js';
import { SEVERITIES, type Change, type Severity } from './types.js';

export type Level = Severity | 'off';
export const LEVELS: readonly Level[] = [...SEVERITIES, 'off'];
export type SeverityOverrides = ReadonlyMap<string, Level>;

/** Parse an overrides file; an unknown rule id or level is a usage error naming the file, the key and the valid choices. */
export function parseSeverity(text: string, file = 'severity file'): SeverityOverrides {
  let doc: unknown;
  try {
    // Loaded on use: the yaml module costs a cold `npm run diff` ~25 ms that most runs never need.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    doc = parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return new Map();
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`${file}: expected a mapping of rule id to ${LEVELS.join('|')}`);
  const out = new Map<string, Level>();
  for (const [id, level] of Object.entries(doc as Record<string, unknown>)) {
    if (!RULE_IDS.includes(id)) throw new UsageError(`${file}: unknown rule id "${id}"; valid rule ids: ${RULE_IDS.join(', ')}`);
    if (!LEVELS.includes(level as Level)) throw new UsageError(`${file}: rule ${id}: invalid level ${JSON.stringify(level)}; valid: ${LEVELS.join(', ')}`);
    out.set(id, level as Level);
  }
  return out;
}

export function applySeverity(changes: readonly Change[], overrides: SeverityOverrides): Change[] {
  const out: Change[] = [];
  for (const c of changes) {
    const level = overrides.get(c.id);
    if (level === 'off') continue;
    out.push(level ? { ...c, severity: level } : c);
  }
  return out;
}
