// Start test processes (the local exchange upstream, the gateway CLI) and wait for their ready line.
import { localGithub } from './gateway.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { exchangeUpstream, type Key, type RecordedRequest, type WsApiRecord } from './exchange-upstream.js';

/** Repository root (this file runs from dist/test/support). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Proc {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * The flags of every node process a test starts (gateways, upstreams, tools): those test/run.mjs runs
 * the test files with, from test/node-flags.json (why: test/run.mjs). What a process does is the
 * same; the benches (bench/) measure the gateway as users run it.
 */
export const NODE_FLAGS: string[] = JSON.parse(readFileSync(`${ROOT}test/node-flags.json`, 'utf8'));

/**
 * SIGTERM, then SIGKILL after 3 s; resolves once the child has exited and what it wrote last has been
 * read ('close': its stdio ended; 'exit' can come first, and a gateway's last log lines, flushed as it
 * stops, were then missing from output() on a loaded machine), or 2 s after the exit if a process it
 * started still holds its stdio.
 */
export function stopper(child: ChildProcess): () => Promise<void> {
  return () => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    let late: NodeJS.Timeout | undefined;
    child.once('close', () => { clearTimeout(late); resolve(); });
    child.once('exit', () => { late = setTimeout(resolve, 2000); });
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

/**
 * Spawn `node <script> ...args` and resolve once a stdout line matches `ready`. The start-up bound
 * is generous (a bound, not a speed claim: a cold catalogue parse in a primary and two workers took
 * over 15 s at load 38 on 2 cores); a process that fails to start exits, and that rejects at once.
 * `nodeFlags`: node's own flags (default NODE_FLAGS; a soak runs the gateway as users do).
 */
export function startProcess(script: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, nodeFlags = NODE_FLAGS): Promise<Proc & { match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const stop = stopper(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error(`${script} not ready in ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, output: () => out, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${script} exited with ${code}:\n${out}`)); });
  });
}

/**
 * The pids of process `pid`'s children (a gateway's workers under --workers), sorted. Read from
 * /proc on Linux: tests poll it every few ms while a worker is replaced, and a pgrep per poll forked
 * the test process each time (~5 ms of CPU from a lane's few hundred MB). Elsewhere pgrep.
 */
export function childPids(pid: number): number[] {
  let text: string;
  try {
    text = readdirSync(`/proc/${pid}/task`).map((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')).join(' ');
  } catch {
    try { text = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }); } catch { return []; }
  }
  return text.split(/\s+/).filter(Boolean).map(Number).sort((a, b) => a - b);
}

export interface UserDataReport {
  active: number;
  frames: WsApiRecord[];
  margin: { account: string; subscriptionId: number; expirationTime: number }[];
}

export interface Upstream {
  url: string;
  records(): Promise<RecordedRequest[]>;
  /** The websocket API's user-data side: active subscriptions, the frames received, the listen-token subscriptions. */
  userData(): Promise<UserDataReport>;
  /** Send a user-data event to every active subscription (of `account` only: spot, margin or an isolated symbol), wrapped; how many got it. */
  emit(event: unknown, account?: string): Promise<number>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The exchange stand-in (./exchange-upstream.ts) on a loopback port, in the test's own process (a
 * process of its own cost ~0.15 s of CPU for each of ~50 starts a run). `fixtures`: a folder of
 * canned answers. `ownProcess`: for a soak, whose load must not slow the upstream and whose heap
 * must not hold the upstream's records.
 */
export async function startUpstream(keys: Record<string, Key> = {}, fixtures?: string, { ownProcess = false } = {}): Promise<Upstream> {
  if (ownProcess) {
    const p = await startProcess(`${ROOT}dist/test/support/exchange-upstream.js`, [JSON.stringify(keys)], /port (\d+)/, fixtures ? { UPSTREAM_FIXTURES: fixtures } : {});
    const url = `http://127.0.0.1:${p.match[1]}`;
    return {
      url,
      stop: p.stop,
      records: async () => (await fetch(`${url}/__records`)).json() as Promise<RecordedRequest[]>,
      userData: async () => (await fetch(`${url}/__user-data`)).json() as Promise<UserDataReport>,
      emit: async (event, account) => ((await (await fetch(`${url}/__user-data/event${account ? `?account=${account}` : ''}`, { method: 'POST', body: JSON.stringify(event) })).json()) as { sent: number }).sent,
      reset: async () => { await fetch(`${url}/__reset`, { method: 'POST' }); },
    };
  }
  const { server, records, userData } = exchangeUpstream(keys, fixtures);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    records: async () => JSON.parse(JSON.stringify(records)) as RecordedRequest[], // a copy, as the process's answer was
    userData: async () => JSON.parse(JSON.stringify({ active: userData.active(), frames: userData.frames, margin: userData.margin() })) as UserDataReport,
    emit: async (event, account) => userData.emit(event, false, account).sent,
    reset: async () => { records.length = 0; userData.reset(); },
    stop: () => new Promise<void>((resolve) => {
      userData.close();
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections(); // keep-alive connections would hold close() for a minute
    }),
  };
}

/** Start the gateway CLI (`node dist/src/cli.cjs`) and resolve with its URL; `nodeFlags` as for startProcess. */
export async function startGatewayProcess(args: string[], env: NodeJS.ProcessEnv = {}, nodeFlags = NODE_FLAGS): Promise<Proc & { url: string }> {
  const exchange = args.find((a) => /^exchange(\.rest)?=/.test(a))?.replace(/^exchange(\.rest)?=/, '');
  const p = await startProcess(`${ROOT}dist/src/cli.cjs`, ['--port', '0', ...args, ...localGithub(args, exchange)], /listening on (https?:\/\/\S+)/, env, 60_000, nodeFlags);
  return { ...p, url: p.match[1] };
}
