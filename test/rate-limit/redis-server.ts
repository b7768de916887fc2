// A throwaway redis-server for a test: its own free loopback port, no persistence, stopped after.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface RedisServer {
  url: string;
  child: ChildProcess;
  /** SIGKILL: Redis gone without a goodbye, as when its machine fails. */
  kill(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server not ready in 10 s:\n${out}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) { clearTimeout(timer); resolve(); }
    });
    child.once('error', (e) => { clearTimeout(timer); reject(new Error(`redis-server could not start (${e.message}); install it: apt-get install -y redis-server`)); });
    child.once('exit', (c) => { clearTimeout(timer); reject(new Error(`redis-server exited ${c}:\n${out}`)); });
  });
  return {
    url: `redis://127.0.0.1:${port}/0`,
    child,
    kill: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    }),
  };
}
