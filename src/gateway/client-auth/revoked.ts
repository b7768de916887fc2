// Which client tokens a reload of the tokens file revoked: removed, given another secret or
// certificate, or left with fewer rights (a right, an allow entry or a method gone). Their open
// connections were admitted under the old entry, so the gateway closes them (1008) and forgets their
// listen keys; a token whose entry only gained rights keeps its connections.
import type { TokenEntry } from './tokens.js';

const identity = (t: TokenEntry): string => t.digest?.toString('hex') ?? `${t.certificate?.fingerprint ?? ''}|${t.certificate?.subject ?? ''}`;

function narrowed(was: TokenEntry, now: TokenEntry): boolean {
  if (identity(was) !== identity(now)) return true;
  if ([...was.rights].some((r) => !now.rights.has(r))) return true;
  const texts = new Set(now.allow.map((a) => a.text));
  if (was.allow.some((a) => !texts.has(a.text))) return true;
  return now.methods !== null && (was.methods === null || [...was.methods].some((m) => !now.methods!.has(m)));
}

/** The names of the tokens of `before` that `after` removed or narrowed (no tokens after: all of them). */
export function revokedTokens(before: readonly TokenEntry[] | undefined, after: readonly TokenEntry[] | undefined): Set<string> {
  const out = new Set<string>();
  if (!before) return out;
  const byName = new Map((after ?? []).map((t) => [t.name, t]));
  for (const t of before) {
    const now = byName.get(t.name);
    if (!now || narrowed(t, now)) out.add(t.name);
  }
  return out;
}
