// Forwarder, upstream and load-generator processes for the benches: forked from dist/bench/proxy/;
// a server prints "port <n>" when it listens, a client says 'ready' over IPC. However the bench ends (a failed round, Ctrl-C), none is left behind.
import { fork, type ChildProcess, type StdioNull, type StdioPipe } from 'node:child_process';
import { createServer } from 'node:net';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const children: ChildProcess[] = [];
process.on('exit', () => { for (const c of children) c.kill(); });
process.on('SIGINT', () => process.exit(130));

/** Have `child` (e.g. a redis-server the bench spawned) ended with the bench, like the forked ones. */
export function track<T extends ChildProcess>(child: T): T {
  children.push(child);
  return child;
}

/**
 * Fork `script` (relative to dist/bench/, or an absolute path) and resolve once it listens. Its
 * stderr is this process's unless `stderr` says otherwise (a log drain's pipe: ./log-drain.ts); its
 * environment is this process's with `env` on top.
 */
export function startProcess(script: string, args: string[] = [], execArgv: string[] = [], stderr: StdioNull | StdioPipe | Writable = 'inherit', env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; port: number }> {
  const file = script.startsWith('/') ? script : fileURLToPath(new URL(`../${script}`, import.meta.url));
  const child = fork(file, args, { stdio: ['ignore', 'pipe', stderr, 'ipc'], execArgv, env: { ...process.env, ...env } });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (c) => reject(new Error(`${script} exited ${c}`)));
  });
}

/** Fork `script` (relative to dist/bench/), a client that listens on nothing: resolve once it says 'ready' over IPC. */
export function startClient(script: string, execArgv: string[] = []): Promise<ChildProcess> {
  const child = fork(fileURLToPath(new URL(`../${script}`, import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => { if (m === 'ready') resolve(child); });
    child.once('exit', (c) => reject(new Error(`${script} exited ${c}`)));
  });
}

/** A loopback port free right now (for a server that must be told its port: nginx, a spawned CLI). */
export const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});
