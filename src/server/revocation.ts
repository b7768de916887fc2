// Revoking client tokens on reload: a token the tokens file no longer grants as before (removed, given
// another secret or certificate, or narrowed; client-auth/revoked.ts) is refused from the moment a
// reload reads the file — before the catalogue is compiled, and whether or not the reload then
// applies — and its open websockets and listen keys go with it (1008), not only its next request.
import type { TokenEntry } from '../gateway/client-auth/tokens.js';
import { readTokensFile } from '../gateway/client-auth/tokens.js';
import { revokedTokens } from '../gateway/client-auth/revoked.js';
import type { UserDataBridge } from '../gateway/user-data/bridge.js';
import type { Logger } from '../log.js';

export interface RevocationParts {
  /** The tokens serving now (the entries requests are checked against). */
  tokens(): readonly TokenEntry[] | undefined;
  /** Close every open websocket of these tokens; how many. */
  closeWebsockets(tokens: ReadonlySet<string>): number;
  bridge(): UserDataBridge | undefined;
  logger: Logger;
}

export interface Revocation {
  /** A reload read its configuration: withdraw at once what its tokens file no longer grants. */
  reread(tokensFile: string | undefined): void;
  /** A reload applied `next` tokens (none: every old token goes). */
  applied(next: readonly TokenEntry[] | undefined): void;
}

export function tokenRevocation(o: RevocationParts): Revocation {
  const revoke = (names: Set<string>) => {
    if (!names.size) return;
    for (const t of o.tokens() ?? []) if (names.has(t.name)) t.revoked = true; // refused from now on: REST, upgrades, each frame
    const closed = o.closeWebsockets(names) + (o.bridge()?.revoke([...names]) ?? 0);
    o.logger.info(`reload revoked client token(s) ${[...names].join(', ')}: closed ${closed} websocket connection(s) with 1008`);
  };
  return {
    reread(tokensFile) {
      if (!tokensFile || !o.tokens()) return; // no tokens file now: applied() withdraws the old tokens
      let next: TokenEntry[];
      try {
        next = readTokensFile(tokensFile);
      } catch {
        return; // an unreadable file: the reload refuses it and says why
      }
      revoke(revokedTokens(o.tokens(), next));
    },
    applied: (next) => revoke(revokedTokens(o.tokens(), next)),
  };
}
