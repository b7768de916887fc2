// Signing settings of the exchange service, read from the environment (EXCHANGE_*) over the
// config file's `signing:` section. Nothing is read from disk here (the key file is loaded at
// start-up by keys.ts). Every problem is a UsageError naming the variable, never its value.
import { UsageError } from '../../usage-error.js';
import { Secret } from './secret.js';

export interface SigningSettings {
  /** Service whose SIGNED / API_KEY endpoints the gateway signs. */
  service: string;
  apiKey: Secret;
  /** HMAC-SHA256 secret; or else privateKeyFile (RSA or Ed25519 PEM). */
  apiSecret?: Secret;
  privateKeyFile?: string;
  privateKeyPassphrase?: Secret;
  /** recvWindow to append (milliseconds, as written), when configured. */
  recvWindow?: string;
  /** Where each field came from, for messages: "config signing.apiSecret" when from the file, else the variable. */
  names: Record<Field, string>;
}

type Field = 'apiKey' | 'apiSecret' | 'privateKeyFile' | 'privateKeyPassphrase' | 'recvWindow';

export const SIGNING_ENV: Record<Field, string> = {
  apiKey: 'EXCHANGE_API_KEY',
  apiSecret: 'EXCHANGE_API_SECRET',
  privateKeyFile: 'EXCHANGE_PRIVATE_KEY_FILE',
  privateKeyPassphrase: 'EXCHANGE_PRIVATE_KEY_PASSPHRASE',
  recvWindow: 'EXCHANGE_RECV_WINDOW',
};
const FIELDS = Object.keys(SIGNING_ENV) as Field[];

/**
 * Signing settings, or undefined when signing mode is off (nothing configured).
 * `file` is the config file's `signing:` value (a mapping with the field names above).
 */
export function readSigningSettings(env: NodeJS.ProcessEnv, file: unknown): SigningSettings | undefined {
  if (file !== undefined && file !== null && (typeof file !== 'object' || Array.isArray(file))) {
    throw new UsageError(`config file: signing must be a mapping with keys ${FIELDS.join(', ')}`);
  }
  const section = (file ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(section)) {
    if (!FIELDS.includes(k as Field)) throw new UsageError(`config file: unknown key "signing.${k}"; valid: ${FIELDS.join(', ')}`);
  }
  const names = {} as Record<Field, string>;
  const values = {} as Record<Field, string | undefined>;
  for (const f of FIELDS) {
    const fromEnv = env[SIGNING_ENV[f]];
    if (fromEnv !== undefined && fromEnv !== '') {
      values[f] = fromEnv;
      names[f] = SIGNING_ENV[f];
    } else {
      const v = section[f];
      if (v !== undefined && v !== null && typeof v === 'object') throw new UsageError(`config file: signing.${f} must be a string`);
      values[f] = v === undefined || v === null || v === '' ? undefined : String(v);
      names[f] = values[f] === undefined ? SIGNING_ENV[f] : `config signing.${f}`;
    }
  }
  const set = (f: Field) => values[f] !== undefined;
  if (!set('apiKey') && !set('apiSecret') && !set('privateKeyFile')) {
    for (const f of ['privateKeyPassphrase', 'recvWindow'] as const) {
      if (set(f)) throw new UsageError(`${names[f]} is set but signing is off: set ${SIGNING_ENV.apiKey} and ${SIGNING_ENV.apiSecret} or ${SIGNING_ENV.privateKeyFile}`);
    }
    return undefined;
  }
  if (!set('apiKey')) {
    const given = set('apiSecret') ? names.apiSecret : names.privateKeyFile;
    throw new UsageError(`${given} is set but ${SIGNING_ENV.apiKey} is not: signing needs the API key the exchange issued for it`);
  }
  if (!/^[\x21-\x7e]+$/.test(values.apiKey!)) throw new UsageError(`${names.apiKey} must be printable ASCII without spaces (it is sent as a header)`);
  if (set('apiSecret') && set('privateKeyFile')) {
    throw new UsageError(`set either ${names.apiSecret} (HMAC) or ${names.privateKeyFile} (RSA / Ed25519), not both`);
  }
  if (!set('apiSecret') && !set('privateKeyFile')) {
    throw new UsageError(`${names.apiKey} is set but neither ${SIGNING_ENV.apiSecret} (HMAC) nor ${SIGNING_ENV.privateKeyFile} (RSA / Ed25519 PEM) is`);
  }
  if (set('privateKeyPassphrase') && !set('privateKeyFile')) {
    throw new UsageError(`${names.privateKeyPassphrase} is set but ${SIGNING_ENV.privateKeyFile} is not`);
  }
  const rw = values.recvWindow;
  if (rw !== undefined && (!/^\d{1,5}(\.\d{1,3})?$/.test(rw) || Number(rw) <= 0 || Number(rw) > 60_000)) {
    throw new UsageError(`${names.recvWindow} must be milliseconds above 0 and at most 60000 (up to 3 decimals)`);
  }
  return {
    service: 'exchange',
    apiKey: new Secret(values.apiKey!),
    apiSecret: set('apiSecret') ? new Secret(values.apiSecret!) : undefined,
    privateKeyFile: values.privateKeyFile,
    privateKeyPassphrase: set('privateKeyPassphrase') ? new Secret(values.privateKeyPassphrase!) : undefined,
    recvWindow: rw,
    names,
  };
}
