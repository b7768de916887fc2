// A throwaway nginx (Debian's package) in front of local gateways: its own folder for config, pid,
// logs and temp files, a free loopback port, round-robin over the given upstreams with passive
// health checks, and retries on the next upstream for requests that never reached one.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './temp.js';

export interface Nginx {
  url: string;
  stop(): Promise<void>;
  errors(): string;
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const NGINX = '/usr/sbin/nginx';

/** One worker in the foreground, its pid, log and temp folders (made here) under `dir`, no access log; the http block left open. */
export function nginxPreamble(dir: string): string {
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d), { recursive: true });
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`;
}

export async function startNginx(upstreamPorts: number[]): Promise<Nginx> {
  if (spawnSync(NGINX, ['-v']).error) throw new Error('nginx is not installed: apt-get install -y nginx-light (npm test installs it as root)');
  const dir = tempDir('nginx-');
  const port = await freePort();
  const conf = `${nginxPreamble(dir)}
  upstream gateways {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=3 fail_timeout=1s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1;
      # An idempotent request is retried on the next gateway after an error or a 502/503/504; a POST
      # only when it never reached one (nginx's default for non-idempotent requests).
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 3;
      proxy_connect_timeout 1s;
      proxy_read_timeout 15s;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(NGINX, ['-c', join(dir, 'nginx.conf'), '-p', dir, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  // Ready once the port accepts.
  const until = Date.now() + 10_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/_gateway/ready`, { signal: AbortSignal.timeout(1000) }).then(() => true, () => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > until) throw new Error(`nginx did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    errors: () => { try { return readFileSync(join(dir, 'error.log'), 'utf8'); } catch { return ''; } },
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGQUIT');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    }),
  };
}
