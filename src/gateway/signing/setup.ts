// Wire signing mode and client authentication from the configuration into proxy hooks.
// Called once at start-up; refuses to serve signed requests to the network without tokens.
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import { loadSigner } from '../../upstream/signing/keys.js';
import type { Signer } from '../../upstream/signing/signers.js';
import type { SigningSettings } from '../../upstream/signing/settings.js';
import { UsageError } from '../../usage-error.js';
import { isLoopback } from '../admin/loopback.js';
import type { AdminReload } from '../admin/admin-modes.js';
import { clientAuthHook, unknownModules, unknownWsPatterns } from '../client-auth/hook.js';
import { readTokensFile, type TokenEntry } from '../client-auth/tokens.js';
import type { Hook as ProxyHook } from '../pipeline.js';
import { signingHook } from './hook.js';
import { credentialHooks } from './credentials.js';
import type { Secret } from '../../upstream/signing/secret.js';
import type { WsSecurity } from '../websocket/security.js';

export interface SecurityConfig {
  host: string;
  /** How host was given (--host, GATEWAY_HOST or the config key), to name it in an error. */
  given?: { host: string };
  signing?: SigningSettings;
  /** Credentials held for upstreams that authenticate callers themselves, by service id. */
  credentials?: ReadonlyMap<string, { secret: Secret; from: string }>;
  tokensFile?: string;
  /** Who may POST /_gateway/reload: with 'token', admin tokens count outside signing mode too. */
  adminReload?: AdminReload;
}

export interface SecurityHooks {
  /** Run first: client authentication. */
  authenticate: ProxyHook[];
  /** Run last: signing (nothing may change the URL after it). */
  sign: ProxyHook[];
  /** Services the gateway acts for with its own credentials (signing mode): guarded against browsers. */
  credentialed: Set<string>;
  /**
   * The client tokens admin actions are checked against: those of the tokens file in signing mode
   * (where tokens are what keeps the network out), none otherwise. A token needs the admin right.
   */
  adminTokens: TokenEntry[];
  /** The same tokens and credentials for websocket upgrades and websocket-API frames. */
  websocket: WsSecurity;
  /** The key held per service (signing mode): version changes sign a migrated request again with it. */
  signers: Map<string, Signer>;
}

export { isLoopback };

export function securityHooks(config: SecurityConfig, views: ReleaseView[], logger: Logger): SecurityHooks {
  const out: SecurityHooks = { authenticate: [], sign: [], credentialed: new Set(), adminTokens: [], signers: new Map(), websocket: {} };
  const notes: (() => void)[] = [];
  const { signing, tokensFile } = config;
  if (signing && !tokensFile && !isLoopback(config.host)) {
    throw new UsageError(`signing mode is on and ${config.given?.host ?? '--host'} ${config.host} is not loopback, but no client tokens are configured: set GATEWAY_TOKENS_FILE (npm run keygen -- --token makes one) or listen on 127.0.0.1`);
  }
  if (config.adminReload === 'token' && !tokensFile) throw new UsageError('--admin-reload token needs client tokens with the admin right: set GATEWAY_TOKENS_FILE (npm run keygen -- --token makes one)');
  const proxied = views.filter((v) => v.service.kind === 'proxy');
  if (signing) {
    const view = views.find((v) => v.service.id === signing.service);
    if (!view) throw new UsageError(`signing is configured for service "${signing.service}", which the catalogue does not have`);
    const header = view.service.apiKeyHeader;
    if (!header) throw new UsageError(`signing: service "${signing.service}" declares no security.apiKeyHeader in service.yaml`);
    const signer = loadSigner(signing);
    out.credentialed.add(signing.service);
    out.signers.set(signing.service, signer);
    out.sign.push(signingHook({ service: signing.service, header, apiKey: signing.apiKey, signer, recvWindow: signing.recvWindow }));
    out.websocket.signing = { service: signing.service, apiKey: signing.apiKey, signer, recvWindow: signing.recvWindow };
    notes.push(() => logger.info(`service ${signing.service}: signing mode, ${signer.algorithm} signatures${signing.recvWindow ? `, recvWindow ${signing.recvWindow} ms` : ''}`));
  }
  if (tokensFile) {
    const tokens = readTokensFile(tokensFile);
    const modules = new Set(proxied.flatMap((v) => v.service.endpoints.map((e) => e.module)));
    const unknown = unknownModules(tokens, modules);
    if (unknown.length) throw new UsageError(`GATEWAY_TOKENS_FILE names unknown catalogue modules: ${unknown.join(', ')}; valid: ${[...modules].sort().join(', ')}`);
    const wsUnknown = unknownWsPatterns(tokens, new Set(views.flatMap((v) => v.service.wsMethods.map((m) => m.name))));
    if (wsUnknown.length) throw new UsageError(`GATEWAY_TOKENS_FILE: ws entries that match no websocket-API method of the catalogue: ${wsUnknown.join(', ')}`);
    out.websocket.tokens = tokens;
    const services = new Set(proxied.map((v) => v.service.id));
    out.authenticate.push(clientAuthHook({ tokens, services }));
    notes.push(() => logger.info(`client authentication: ${tokens.length} token(s) for ${[...services].join(', ')}`));
    const admins = tokens.filter((t) => t.rights.has('admin')).map((t) => `"${t.name}"`);
    if (signing || config.adminReload === 'token') out.adminTokens = tokens;
    else if (admins.length) notes.push(() => logger.warn(`tokens file: ${admins.join(', ')} hold the admin right, which counts in signing mode only; POST /_gateway/reload stays loopback-only`));
  } else if (signing) {
    notes.push(() => logger.warn(`signing mode without client tokens: anyone who can reach ${config.host} acts with the exchange account (set GATEWAY_TOKENS_FILE)`));
  }
  for (const [id] of config.credentials ?? []) out.credentialed.add(id); // the gateway's credential: guarded against browsers too
  out.sign.push(...credentialHooks(config.credentials ?? new Map(), proxied, tokensFile));
  // Only once everything checked out, so a failed start-up prints its error first.
  for (const n of notes) n();
  return out;
}
