// Signatures per second for each scheme the exchange accepts, node:crypto against node-forge, in
// the same process and run (rounds interleaved, median of rounds). The gateway signs with the
// faster one on the request path (src/upstream/signing/signers.ts).
//   npm run build && node dist/bench/signing.js [ms-per-round] [rounds]
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { forgeHmacSigner, forgeKeySigner } from '../src/upstream/signing/forge-signers.js';
import { signUrl } from '../src/upstream/signing/sign-request.js';
import { hmacSigner, keySigner, urlBase64, type Signer } from '../src/upstream/signing/signers.js';

const MS = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 5);
// A typical order: what the gateway signs for POST /api/v3/order (query + timestamp + recvWindow).
const PAYLOAD = 'symbol=BNBUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=350&newClientOrderId=bench-0001&timestamp=1700000000000&recvWindow=5000';

interface Case { name: string; fn: () => unknown }

/** Operations per second of fn over about `ms` milliseconds. */
function rate(fn: () => unknown, ms: number): number {
  let n = 0;
  let batch = 1;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) fn();
    n += batch;
    elapsed = performance.now() - start;
    if (elapsed < ms / 20) batch *= 2;
  }
  return n / (elapsed / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(cases: Case[]): Map<string, number> {
  for (const c of cases) rate(c.fn, Math.min(200, MS)); // warm-up (JIT, key caches)
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 0; r < ROUNDS; r++) for (const c of cases) samples.get(c.name)!.push(rate(c.fn, MS));
  return new Map([...samples].map(([k, v]) => [k, median(v)]));
}

const signerCase = (name: string, s: Signer): Case => ({ name, fn: () => s.sign(PAYLOAD) });

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ed = generateKeyPairSync('ed25519').privateKey;
const rsaPem = rsa.export({ type: 'pkcs8', format: 'pem' }).toString();
const edPem = ed.export({ type: 'pkcs8', format: 'pem' }).toString();
const secret = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEF';

// Same output from both libraries, or the comparison means nothing.
for (const [a, b] of [[hmacSigner(secret), forgeHmacSigner(secret)], [keySigner(rsa), forgeKeySigner(rsa)], [keySigner(ed), forgeKeySigner(ed)]] as const) {
  if (a.sign(PAYLOAD) !== b.sign(PAYLOAD)) throw new Error(`${a.algorithm}: node:crypto and node-forge disagree`);
}

const pemPerCall = (pem: string, algo: string | null): Case => ({
  name: '', fn: () => urlBase64(sign(algo, Buffer.from(PAYLOAD), createPrivateKey(pem) as KeyObject)),
});

const groups: { algo: string; node: Case; forge: Case; extra?: Case[] }[] = [
  { algo: 'HMAC-SHA256', node: signerCase('node HMAC', hmacSigner(secret)), forge: signerCase('forge HMAC', forgeHmacSigner(secret)) },
  {
    algo: 'RSA-2048 PKCS#1 v1.5', node: signerCase('node RSA', keySigner(rsa)), forge: signerCase('forge RSA', forgeKeySigner(rsa)),
    extra: [{ ...pemPerCall(rsaPem, 'sha256'), name: 'node RSA, PEM parsed per call (as @binance/connector does)' }],
  },
  {
    algo: 'Ed25519', node: signerCase('node Ed25519', keySigner(ed)), forge: signerCase('forge Ed25519', forgeKeySigner(ed)),
    extra: [{ ...pemPerCall(edPem, null), name: 'node Ed25519, PEM parsed per call (as @binance/connector does)' }],
  },
];
const hmac = hmacSigner(secret);
const whole: Case = {
  name: 'signUrl + HMAC (whole gateway signing step)',
  fn: () => signUrl('/api/v3/order?symbol=BNBUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=350', Buffer.alloc(0), hmac.sign, { now: 1700000000000, recvWindow: '5000' }),
};

const results = run([...groups.flatMap((g) => [g.node, g.forge, ...(g.extra ?? [])]), whole]);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(11);
console.log(`signatures/second, ${ROUNDS} rounds of ${MS} ms, median; Node ${process.version}, payload ${PAYLOAD.length} bytes`);
console.log(`${'algorithm'.padEnd(22)} ${'node:crypto'.padStart(11)} ${'node-forge'.padStart(11)}  node/forge`);
for (const g of groups) {
  const n = results.get(g.node.name)!;
  const f = results.get(g.forge.name)!;
  console.log(`${g.algo.padEnd(22)} ${fmt(n)} ${fmt(f)}  ${(n / f).toFixed(1)}x`);
}
for (const g of groups) for (const e of g.extra ?? []) console.log(`  ${e.name}: ${fmt(results.get(e.name)!).trim()}/s`);
console.log(`  ${whole.name}: ${fmt(results.get(whole.name)!).trim()}/s`);
