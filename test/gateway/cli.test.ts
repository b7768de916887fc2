// The command line: flags, environment, config file, the listening line, and usage errors (exit 2).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT, startGatewayProcess, startUpstream, type Upstream, NODE_FLAGS } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway } from '../../src/server.js';

const test = suite('gateway command line');
let upstream: Upstream;
interface Exit { status: number | null; stdout: string; stderr: string }

/** Run the CLI to its exit. Spawned without waiting, so a test can run several at once. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, `${ROOT}dist/src/cli.cjs`, ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * What the CLI would print for these settings, found in this process: readConfig and startGateway
 * are what the CLI runs, and it prints a UsageError as `error: <message> (see --help)`, exit 2 (the
 * tests that spawn it check that path). Resolves to the message, or '' if the gateway started.
 */
async function usageMessage(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const gw = await startGateway(readConfig(args, env), { logger: createLogger('silent') });
    await gw.close();
    return '';
  } catch (e) {
    assert.is((e as Error).name, 'UsageError', `a usage error, not ${(e as Error).stack}`);
    return (e as Error).message;
  }
}

test.before(async () => { upstream = await startUpstream(); });
test.after(async () => { await upstream.stop(); });

test('unknown release → exit 2 with one line listing the valid releases', async () => {
  const r = await cli(['--release', '9.9.9', '--port', '0']);
  assert.is(r.status, 2);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  const first = r.stderr.split('\n')[0];
  assert.match(first, /unknown release "9\.9\.9"/);
  assert.match(first, /1\.0\.0, 1\.1\.0/);
  assert.match(first, /3\.12\.0/);
});

test('bad flags → exit 2 naming the flag and the valid choices', async () => {
  const r = await cli(['--prot', '1']);
  assert.is(r.status, 2);
  assert.match(r.stderr.split('\n')[0], /unknown option --prot \(valid: --release, .*--host, --port,/);
  assert.match(await usageMessage(['--port', 'eighty']), /invalid --port "eighty"/);
  assert.match(await usageMessage(['--upstream', 'nosuch=http://127.0.0.1:1', '--port', '0']), /unknown service "nosuch"; valid: exchange, github, tx-examples/);
  assert.match(await usageMessage(['--log-level', 'chatty']), /valid: debug, info, warn, error, silent/);
});

test('flags: pinned release served, listening line printed', async () => {
  const gw = await startGatewayProcess(['--release', '1.16.0', '--upstream', `exchange=${upstream.url}`]);
  try {
    assert.match(gw.output(), /listening on http:\/\/127\.0\.0\.1:\d+/);
    const res = await fetch(`${gw.url}/api/v3/uiKlines?symbol=BTCUSDT&interval=1m`);
    assert.is(res.status, 404);
    assert.is(res.headers.get('x-gateway-release'), '1.16.0');
  } finally { await gw.stop(); }
});

test('environment variables mirror the flags', async () => {
  const gw = await startGateway(readConfig(['--port', '0'], { GATEWAY_RELEASE: '1.17.0', GATEWAY_UPSTREAM: `exchange=${upstream.url}` }), { logger: createLogger('silent') });
  try {
    const res = await fetch(`${gw.url}/api/v3/uiKlines?symbol=BTCUSDT&interval=1m`);
    assert.is(res.status, 200);
    assert.is(res.headers.get('x-gateway-release'), '1.17.0');
  } finally { await gw.close(); }
});

test('--config YAML file; flags win over it', async () => {
  const dir = tempDir('gw-config-');
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, `release: 3.6.0\nupstreams:\n  exchange: ${upstream.url}\nstrict: true\n`);
  const start = (args: string[]) => startGateway(readConfig(['--port', '0', ...args], {}), { logger: createLogger('silent') });
  const gw = await start(['--config', file]);
  try {
    const res = await fetch(`${gw.url}/api/v3/klines?symbol=BTCUSDT&interval=1m&bogus=1`);
    assert.is(res.status, 400, 'strict from the file');
    assert.is(res.headers.get('x-gateway-release'), '3.6.0');
  } finally { await gw.close(); }
  const gw2 = await start(['--config', file, '--release', '3.7.0']);
  try {
    const res = await fetch(`${gw2.url}/api/v3/ping`);
    assert.is(res.headers.get('x-gateway-release'), '3.7.0');
  } finally { await gw2.close(); }
  writeFileSync(file, 'relase: 3.6.0\n');
  const bad = await cli(['--config', file]);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /unknown key "relase"/);
});

test('--workers 2: two processes serve the port; a worker that dies is replaced', async () => {
  const gw = await startGatewayProcess(['--workers', '2', '--upstream', `exchange=${upstream.url}`]);
  const pids = async (n: number) => {
    // Concurrent, each on its own connection: the workers share one listening socket and the kernel
    // hands a connection to whichever waits, so one at a time may all land on the same worker.
    const seen = new Set<number>();
    const answers = await Promise.all(Array.from({ length: n }, () => fetch(`${gw.url}/_gateway/health`, { headers: { Connection: 'close' } }).then((r) => r.json() as Promise<{ pid: number }>)));
    for (const a of answers) seen.add(a.pid);
    return seen;
  };
  try {
    assert.match(gw.output(), /listening on http:\/\/127\.0\.0\.1:\d+ \(2 workers\)/);
    let first = await pids(12);
    for (let i = 0; i < 20 && first.size < 2; i++) first = new Set([...first, ...(await pids(12))]);
    assert.is(first.size, 2, `pids: ${[...first]}`);
    const [victim] = first;
    process.kill(victim, 'SIGKILL');
    let after = new Set<number>();
    for (let i = 0; i < 40 && !(after.size === 2 && !after.has(victim)); i++) {
      await new Promise((r) => setTimeout(r, 150));
      after = await pids(12);
    }
    assert.is(after.size, 2, `pids after the kill: ${[...after]}`);
    assert.not.ok(after.has(victim), 'the killed worker was replaced');
    // Log lines are written in batches (up to 1 s): the line may follow the replacement.
    for (let i = 0; i < 50 && !/exited \(SIGKILL\); starting a replacement/.test(gw.output()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(gw.output(), /exited \(SIGKILL\); starting a replacement/);
  } finally { await gw.stop(); }
});

/** A failed start-up: exit 2 and exactly one line on stderr, no stack, nothing listening. */
function assertUsageLine(r: Exit, want: RegExp, what: string): void {
  assert.is(r.status, 2, `${what}: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `${what}: one line: ${r.stderr}`);
  assert.match(lines[0], want, what);
  assert.not.match(r.stderr + r.stdout, /\n\s+at |listening on/, what);
}

test('--host: a bad address or one this machine cannot listen on exits 2 naming the setting as given', async () => {
  // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never an address of this machine. The CLI's own path, once:
  assertUsageLine(await cli(['--host', '192.0.2.1', '--port', '0']), /^error: --host "192\.0\.2\.1" is not an address of this machine \(EADDRNOTAVAIL\)/, 'EADDRNOTAVAIL');
  assert.match(await usageMessage(['--host', '999.1.1.1', '--port', '0']), /^invalid --host "999\.1\.1\.1"; expected an IP address/, 'dotted non-IPv4');
  assert.match(await usageMessage(['--host', 'not a host', '--port', '0']), /^invalid --host "not a host"/, 'spaces');
  assert.match(await usageMessage(['--port', '0'], { GATEWAY_HOST: '' }), /^invalid GATEWAY_HOST ""/, 'empty variable');
  assert.match(await usageMessage(['--port', '0'], { GATEWAY_HOST: '192.0.2.1' }), /^GATEWAY_HOST "192\.0\.2\.1" is not an address/, 'from the variable');
  // .invalid never resolves (RFC 2606).
  assert.match(await usageMessage(['--host', 'gateway.invalid', '--port', '0']), /^--host "gateway\.invalid" cannot be resolved \((ENOTFOUND|EAI_AGAIN)\)/, 'unresolvable name');
});

test('a port already in use exits 2 naming --port, GATEWAY_PORT or the config key; with --workers too', async () => {
  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  const port = String((taken.address() as AddressInfo).port);
  const dir = tempDir('gw-port-');
  try {
    const inUse = (name: string) => new RegExp(`^${name} ${port} is already in use on 127\\.0\\.0\\.1 \\(EADDRINUSE\\); choose another port`);
    const line = (re: RegExp) => new RegExp(`^error: ${re.source.slice(1)}`);
    // The CLI's own path, alone and with workers (every worker fails alike: one line, from the primary):
    const [alone, workers] = await Promise.all([cli(['--port', port]), cli(['--port', port, '--workers', '2'])]);
    assertUsageLine(alone, line(inUse('--port')), 'flag');
    assertUsageLine(workers, line(inUse('--port')), 'with --workers 2');
    assert.match(await usageMessage([], { GATEWAY_PORT: port }), inUse('GATEWAY_PORT'), 'variable');
    writeFileSync(join(dir, 'gw.yaml'), `port: ${port}\nhost: 192.0.2.1\n`);
    assert.match(await usageMessage(['--config', join(dir, 'gw.yaml')]), /^config file key host "192\.0\.2\.1" is not an address/, 'config key host');
    writeFileSync(join(dir, 'gw.yaml'), `port: ${port}\n`);
    assert.match(await usageMessage(['--config', join(dir, 'gw.yaml')]), inUse('config file key port'), 'config key port');
  } finally {
    taken.close();
  }
});

test.run();
