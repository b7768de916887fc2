// --ignore <file>: changes to leave out of a diff. One entry a line, `#` starts a comment:
//   endpoint-deprecated                 every change of that rule
//   GET /api/v3/x                       every change of that endpoint (its parameters, security; the value
//                                       changes of an enum once every endpoint using it is ignored)
//   parameter-added GET /api/v3/x       that rule on that endpoint only
import { UsageError } from '../usage-error.js';
import { RULE_IDS } from './rules.js';
import type { Change } from './types.js';

export interface Ignore {
  rules: ReadonlySet<string>;
  endpoints: ReadonlySet<string>;
  /** "<rule-id> <METHOD> <path>" */
  pairs: ReadonlySet<string>;
}

const ENDPOINT = /^[A-Z]+ \/\S*$/;

/** Parse an ignore file; an entry that is neither a rule id nor an endpoint is a usage error. */
export function parseIgnore(text: string, file = 'ignore file'): Ignore {
  const rules = new Set<string>();
  const endpoints = new Set<string>();
  const pairs = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim().replace(/\s+/g, ' ');
    if (!line) return;
    const sp = line.indexOf(' ');
    const head = sp < 0 ? line : line.slice(0, sp);
    const rest = sp < 0 ? '' : line.slice(sp + 1);
    if (RULE_IDS.includes(head) && rest === '') rules.add(head);
    else if (RULE_IDS.includes(head) && ENDPOINT.test(rest)) pairs.add(line);
    else if (ENDPOINT.test(line)) endpoints.add(line);
    else {
      throw new UsageError(
        `${file}:${i + 1}: "${line}" is neither a rule id nor an endpoint "METHOD /path"; valid rule ids: ${RULE_IDS.join(', ')}`,
      );
    }
  });
  return { rules, endpoints, pairs };
}

/**
 * Ignored by its rule id; or by endpoint (alone or with the rule id): the change's endpoint, or for
 * an enum's value every endpoint that uses the enum.
 */
export function isIgnored(c: Change, ignore: Ignore): boolean {
  if (ignore.rules.has(c.id)) return true;
  const endpoints = c.endpoint !== undefined ? [c.endpoint] : (c.usedBy ?? []).map((u) => u.endpoint);
  return endpoints.length > 0 && endpoints.every((e) => e !== undefined && (ignore.endpoints.has(e) || ignore.pairs.has(`${c.id} ${e}`)));
}
