// Certificates for the TLS tests, made with the openssl CLI by the commands docs/tls.md shows (the
// docs test runs those too): a CA, and certificates it signs for the gateway (localhost, 127.0.0.1)
// or for clients. Made fresh in a temp folder per test file: no key is ever committed.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

export interface Issued {
  cert: string;
  key: string;
  /** SHA-256 fingerprint as openssl prints it (AB:CD:…). */
  fingerprint: string;
}

export interface Authority extends Issued {
  /** A certificate signed by this CA; `server`: for localhost and 127.0.0.1. */
  issue(name: string, subject: string, server?: boolean): Issued;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function issued(dir: string, name: string): Issued {
  const cert = join(dir, `${name}.pem`);
  return { cert, key: join(dir, `${name}.key`), fingerprint: new X509Certificate(readFileSync(cert)).fingerprint256 };
}

/** A new CA (`subject` as openssl's -subj: '/CN=Local CA') in a folder of its own. */
export function certificateAuthority(name: string, subject: string, dir = tempDir('tls-')): Authority {
  openssl(dir, ['req', '-x509', ...EC, '-days', '3650', '-subj', subject, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', `${name}.key`, '-out', `${name}.pem`]);
  return {
    ...issued(dir, name),
    issue(leaf, leafSubject, server = false) {
      openssl(dir, ['req', ...EC, '-subj', leafSubject, '-keyout', `${leaf}.key`, '-out', `${leaf}.csr`]);
      const ext = join(dir, `${leaf}.ext`);
      writeFileSync(ext, server ? 'subjectAltName = DNS:localhost, IP:127.0.0.1\n' : 'extendedKeyUsage = clientAuth\n');
      openssl(dir, ['x509', '-req', '-in', `${leaf}.csr`, '-CA', `${name}.pem`, '-CAkey', `${name}.key`, '-CAcreateserial', '-days', '30', '-extfile', ext, '-out', `${leaf}.pem`]);
      return issued(dir, leaf);
    },
  };
}
