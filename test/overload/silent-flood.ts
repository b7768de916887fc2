// Silent connections under a descriptor limit: the gateway runs as its CLI under `ulimit -n`, a
// normal client calls every 200 ms over its keep-alive connection, another opens a new connection
// every 200 ms, and a flood of connections that never send a byte is opened beside them. Shared by
// the short test and the full-size soak.
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import * as assert from '../support/assert.js';
import { ROOT, startUpstream, stopper, NODE_FLAGS } from '../support/processes.js';
import { one, percentile, type Result } from './load.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HEADERS_TIMEOUT = 6000;
/** The default --overload-timeout: undici, which takes 2 s off a Keep-Alive: timeout=3 hint, still reuses its connection for 1 s. */
const OVERLOAD_TIMEOUT = 3000;

interface Gateway { url: string; log: () => string[]; stop: () => Promise<void> }

/** The gateway CLI under `ulimit -n <fds>` (soft and hard), JSON log lines collected. */
function gatewayUnderUlimit(fds: number, args: string[]): Promise<Gateway> {
  const cmd = `ulimit -n ${fds} && exec "${process.execPath}" dist/src/cli.cjs ${args.map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('sh', ['-c', cmd], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GATEWAY_LOG_FORMAT: 'json' } });
  let out = '';
  const stop = stopper(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error(`gateway not ready:\n${out}`)); }, 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], log: () => out.split('\n').filter((l) => l.startsWith('{')), stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`gateway exited ${code}:\n${out}`)); });
  });
}

/** Hold `count` silent connections from another process; resolves with their fate. */
function holdSilent(port: number, count: number, maxMs: number): { opened: Promise<number>; result: Promise<{ closedAt: number[]; refused: number }>; stop: () => void } {
  const child = spawn(process.execPath, [...NODE_FLAGS, `${ROOT}dist/test/overload/hold-connections.js`, String(port), String(count), String(maxMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let onOpened: (ms: number) => void;
  const opened = new Promise<number>((r) => { onOpened = r; });
  const result = new Promise<{ closedAt: number[]; refused: number }>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^opened (\d+)$/m.exec(out);
      if (m) onOpened(Number(m[1]));
      const json = out.split('\n').find((l) => l.startsWith('{'));
      if (json && out.endsWith('\n')) resolve(JSON.parse(json) as { closedAt: number[]; refused: number });
    });
    child.once('exit', (code) => { if (!out.includes('{')) reject(new Error(`hold-connections exited ${code}: ${out}`)); });
  });
  return { opened, result, stop: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}

/** A metric's value, asked over `agent`'s open connection (a new one may meet the cap). */
async function metric(agent: Agent, url: string, name: string): Promise<number> {
  const text = await (await request(`${url}/_gateway/metrics`, { dispatcher: agent })).body.text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

/**
 * `fds` descriptors, `silent` silent connections: the normal client is served throughout (p99 < 1 s),
 * the cap (derived from `fds`, named in the start-up line) refuses the excess with 503, and the
 * overload manager reaps the silent ones within its overload timeout, then restores.
 */
export async function silentFlood(fds: number, silent: number, upstreamConnections: number): Promise<void> {
  const upstream = await startUpstream();
  // Header timeout 6 s, overload timeout 3 s (the default): which one closed a silent connection shows in when.
  const gw = await gatewayUnderUlimit(fds, ['--port', '0', '--upstream', `exchange=${upstream.url}`, '--release', '3.12.0', '--rate-limit', 'off',
    '--upstream-connections', String(upstreamConnections), '--builder-threads', '1', '--headers-timeout', String(HEADERS_TIMEOUT)]);
  const agent = new Agent({ connections: 1 });
  let flood: ReturnType<typeof holdSilent> | undefined;
  try {
    const reserve = upstreamConnections + 8 + 64;
    const cap = Math.max(Math.floor(fds / 4), fds - reserve);
    const startLine = gw.log().map((l) => JSON.parse(l) as { msg: string }).find((r) => r.msg.startsWith('connections: cap'));
    assert.ok(startLine, `start-up line naming the cap: ${gw.log().join('\n')}`);
    assert.match(startLine.msg, new RegExp(`^connections: cap ${cap} \\(derived; descriptor limit ${fds} \\(hard ${fds}\\) less ${reserve} held back`));
    const port = Number(new URL(gw.url).port);
    // The normal client: one keep-alive connection, a call every 200 ms, from before the flood to after it.
    await one(agent, gw.url, '/api/v3/time'); // the first proxied request loads the proxy: not what is measured
    const calls: Result[] = [];
    let calling = true;
    const client = (async () => {
      while (calling) {
        calls.push(await one(agent, gw.url, '/api/v3/time'));
        await sleep(200);
      }
    })();
    await sleep(400);
    flood = holdSilent(port, silent, HEADERS_TIMEOUT + 5000);
    // A new client: a NEW connection every 200 ms from the start of the flood until it is over. At
    // the cap its connection makes room (the oldest silent one is closed), as nginx reuses connections.
    const fresh: Result[] = [];
    let flooding = true;
    const newcomer = (async () => {
      while (flooding) {
        const own = new Agent({ connections: 1 });
        fresh.push(await one(own, gw.url, '/api/v3/time'));
        await own.close();
        await sleep(200);
      }
    })();
    const floodOver = Promise.all([flood.opened, flood.result]).finally(() => { flooding = false; });
    const [opened, { closedAt, refused }] = await floodOver;
    await newcomer;
    assert.equal(fresh.filter((c) => c.status !== 200), [], `a new connection was served every time (${fresh.length} calls)`);
    assert.ok(closedAt.every((t) => t > 0), `${closedAt.filter((t) => t < 0).length} silent connections still open`);
    // Past the cap (the normal client holds one) a connection gets a 503 written on the socket; how
    // many met the cap depends on how many were reaped while the others were still opening.
    assert.ok(refused <= silent - (cap - 1), `${refused} refused`);
    // Down to the low-water mark they are reaped under the overload timeout (3 s, swept every
    // 250 ms), long before the header timeout; those left below it meet the header timeout.
    const low = Math.floor(cap * 0.7);
    const early = opened + OVERLOAD_TIMEOUT + 250 + 1500;
    const closedEarly = closedAt.filter((t) => t < early).length;
    assert.ok(closedEarly >= silent - low, `${closedEarly} closed (refused or reaped) within ${early.toFixed(0)} ms, ${silent - low} expected`);
    const lastClose = Math.max(...closedAt);
    assert.ok(lastClose < opened + HEADERS_TIMEOUT + 1000 + 1500, `the rest by the header timeout: ${lastClose.toFixed(0)} ms`);
    await sleep(600);
    calling = false;
    await client;
    const statuses = new Set(calls.map((c) => c.status));
    assert.equal([...statuses], [200], `the normal client was served every time: ${JSON.stringify(calls.filter((c) => c.status !== 200))}`);
    const p99 = percentile(calls, 99);
    console.log(`${silent} silent connections under ulimit -n ${fds} (cap ${cap}): opened in ${opened.toFixed(0)} ms, ${refused} refused, ${closedEarly} closed within ${early.toFixed(0)} ms, the rest by ${lastClose.toFixed(0)} ms; normal client ${calls.length} calls, p99 ${p99.toFixed(0)} ms; new connections ${fresh.length}, all served, p99 ${percentile(fresh, 99).toFixed(0)} ms`);
    assert.ok(p99 < 1000, `normal client p99 ${p99.toFixed(0)} ms`);
    assert.is(await metric(agent, gw.url, 'gateway_overload_active'), 0, 'restored once the silent connections are gone');
    assert.is(await metric(agent, gw.url, 'gateway_overload_transitions_total'), 2, 'in and out of overload, once each');
    const records = gw.log().map((l) => JSON.parse(l) as { msg: string });
    assert.is(records.filter((r) => r.msg.startsWith('overload: ')).length, 1, 'one line entering');
    assert.is(records.filter((r) => r.msg.startsWith('overload over: ')).length, 1, 'one line leaving');
  } finally {
    flood?.stop();
    await agent.close();
    await gw.stop();
    await upstream.stop();
  }
}
