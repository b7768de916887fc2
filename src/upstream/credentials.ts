// Credentials the gateway holds for upstream services that authenticate their callers themselves
// (GitHub's token): GATEWAY_CREDENTIAL_<SERVICE> (the service id upper-cased, '-' as '_') over the
// config file's `credentials: { <service>: … }`. Never the exchange's EXCHANGE_* names, which are
// its signing key. Every problem is a UsageError naming the variable or key, never the value.
import { UsageError } from '../usage-error.js';
import { Secret } from './signing/secret.js';

export const CREDENTIAL_ENV_PREFIX = 'GATEWAY_CREDENTIAL_';

/** The variable holding the credential of `service`. */
export const credentialVariable = (service: string) => `${CREDENTIAL_ENV_PREFIX}${service.toUpperCase().replace(/-/g, '_')}`;

/** A credential per service, keyed by the variable's or the file's service name (matched to the catalogue at start-up). */
export function readCredentials(env: NodeJS.ProcessEnv, file: unknown): Map<string, { secret: Secret; from: string }> {
  const out = new Map<string, { secret: Secret; from: string }>();
  if (file !== undefined && file !== null) {
    if (typeof file !== 'object' || Array.isArray(file)) throw new UsageError('config file: credentials must be a mapping of service id → credential');
    for (const [service, value] of Object.entries(file as Record<string, unknown>)) {
      if (typeof value !== 'string' || value === '') throw new UsageError(`config file: credentials.${service} must be a non-empty string`);
      out.set(service, checked(value, `config credentials.${service}`));
    }
  }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(CREDENTIAL_ENV_PREFIX) || value === undefined || value === '') continue;
    const service = name.slice(CREDENTIAL_ENV_PREFIX.length).toLowerCase().replace(/_/g, '-');
    out.set(service, checked(value, name));
  }
  return out;
}

/** Sent as a header value: printable ASCII without spaces, or node would refuse it at request time. */
function checked(value: string, from: string): { secret: Secret; from: string } {
  if (!/^[\x21-\x7e]+$/.test(value)) throw new UsageError(`${from} must be printable ASCII without spaces (it is sent as a header)`);
  return { secret: new Secret(value), from };
}
