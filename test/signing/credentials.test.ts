// A credential the gateway holds for a service that authenticates its callers itself (service.yaml
// credentials.inject, GATEWAY_CREDENTIAL_<SERVICE>): sent upstream for a client that presents a
// gateway token in the service's own token header, in place of the client's Authorization; never
// for a client without one; never in a log line or an answer; refused at start-up where it could
// not be used.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { quickStop } from '../support/gateway.js';
import { tempDir } from '../support/temp.js';
import { DEMO_SERVICE, demoCatalogue, recordingUpstream } from '../support/demo-service.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';

const HELD = 'ghp_HELDbyTHEgateway0123456789abcdefABCD';
const TOKEN = 'gwt_demo-reader-5f4e3d2c1b0a99887766554433221100aabbccdd';
const service = `${DEMO_SERVICE}\ncredentials: { forward: true, inject: { header: Authorization, prefix: 'token ' } }\n`.replace('credentials: { forward: true }\n', '');
const test = suite('credentials held for an upstream');
let up: Awaited<ReturnType<typeof recordingUpstream>>;
let gw: RunningGateway;
let catalogue: string;
let tokensFile: string;
const lines: string[] = [];

async function start(env: NodeJS.ProcessEnv, extra: string[] = []): Promise<RunningGateway> {
  const args = ['--port', '0', '--catalogue', catalogue, '--upstream', `demo=${up.url}`, ...quickStop(extra), ...extra];
  return startGateway(readConfig(args, env), { logger: createLogger('debug', (l) => lines.push(l)) });
}

test.before(async () => {
  catalogue = demoCatalogue(service);
  tokensFile = join(tempDir('credentials-'), 'tokens.yaml');
  writeFileSync(tokensFile, `tokens:\n  - name: reader\n    hash: ${hashLine(TOKEN)}\n    allow: [ 'GET /gists/**' ]\n`);
  up = await recordingUpstream();
  gw = await start({ GATEWAY_CREDENTIAL_DEMO: HELD, GATEWAY_TOKENS_FILE: tokensFile });
});
test.after(async () => {
  await gw.close();
  await new Promise((r) => up.server.close(r));
});

test("a client with a gateway token gets the held credential upstream, not its own Authorization nor its token", async () => {
  up.seen.length = 0;
  const res = await fetch(`${gw.url}/gists/1`, { headers: { 'X-Gateway-Token': `Bearer ${TOKEN}`, Authorization: 'token ghp_clientsOWN' } });
  assert.is(res.status, 200);
  assert.is(up.seen[0].headers.authorization, `token ${HELD}`);
  assert.is(up.seen[0].headers['x-gateway-token'], undefined);
});

test('without a token it is refused in the service envelope, naming the header, and nothing is sent', async () => {
  up.seen.length = 0;
  const res = await fetch(`${gw.url}/gists/1`, { headers: { Authorization: 'token ghp_clientsOWN' } });
  assert.is(res.status, 401);
  assert.match((await res.json() as { message: string }).message, /x-gateway-token: Bearer <token>/);
  const denied = await fetch(`${gw.url}/repos/o/r/issues`, { headers: { 'X-Gateway-Token': `Bearer ${TOKEN}` } });
  assert.is(denied.status, 403); // outside the token's allow-list
  assert.equal(up.seen, []);
});

test('the held credential is in no log line and no answer', async () => {
  const res = await fetch(`${gw.url}/gists/public`, { headers: { 'X-Gateway-Token': `Bearer ${TOKEN}` } });
  const text = await res.text();
  assert.not.match(text, HELD);
  assert.ok(lines.length > 0);
  assert.not.ok(lines.some((l) => l.includes(HELD) || l.includes(TOKEN)));
});

test('start-up refuses a credential it could not use, naming the variable and never the value', async () => {
  const noTokens = await start({ GATEWAY_CREDENTIAL_DEMO: HELD }).then(() => null, (e: Error) => e.message);
  assert.match(noTokens ?? '', /GATEWAY_CREDENTIAL_DEMO is set, but no client tokens are configured/);
  const unknown = await start({ GATEWAY_CREDENTIAL_NOPE: HELD, GATEWAY_TOKENS_FILE: tokensFile }).then(() => null, (e: Error) => e.message);
  assert.match(unknown ?? '', /GATEWAY_CREDENTIAL_NOPE: the catalogue has no service "nope"/);
  const spaced = await start({ GATEWAY_CREDENTIAL_DEMO: 'has space' }).then(() => null, (e: Error) => e.message);
  assert.match(spaced ?? '', /GATEWAY_CREDENTIAL_DEMO must be printable ASCII without spaces/);
  for (const m of [noTokens, unknown, spaced]) assert.not.match(m ?? '', /HELDbyTHE|has space/);
});

test.run();
