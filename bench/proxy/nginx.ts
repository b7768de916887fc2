// nginx as a forwarder beside the gateway (Debian's /usr/sbin/nginx, when installed): one worker,
// a keep-alive pool to the upstream, and either no access log or a buffered one (`buffer=32k
// flush=1s`, to a file, one JSON object a line with the fields the gateway's line has). Its CPU is
// read from /proc: master and worker, each one thread, their time on a CPU (schedstat, in ns).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, track } from './processes.js';

export const NGINX = '/usr/sbin/nginx';
export const nginxInstalled = () => existsSync(NGINX);

export interface Nginx { child: ChildProcess; port: number; cpu(): Promise<number>; stop(): void }

const JSON_LINE = `'{"time":"$time_iso8601","reqId":"$request_id","method":"$request_method","route":"$uri","status":$status,'
    '"ms":$request_time,"upstreamMs":"$upstream_response_time","bytes":$bytes_sent,"msg":"access"}'`;

export async function startNginx(upstream: string, accessLog: boolean): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  const port = await freePort();
  const { host } = new URL(upstream);
  writeFileSync(join(dir, 'nginx.conf'), `
daemon off;
master_process on;
worker_processes 1;
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  log_format gateway escape=json ${JSON_LINE};
  access_log ${accessLog ? `${dir}/access.log gateway buffer=32k flush=1s` : 'off'};
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream origin { server ${host}; keepalive 128; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`);
  const child = track(spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] }));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  child.once('exit', remove);
  process.once('exit', remove); // the bench may exit before nginx does
  for (let i = 0; ; i++) {
    if (await accepts(port)) break;
    if (i > 200 || child.exitCode !== null) throw new Error(`nginx did not listen: ${readIfAny(join(dir, 'error.log'))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const pids = () => [child.pid!, ...readIfAny(`/proc/${child.pid}/task/${child.pid}/children`).trim().split(/\s+/).filter(Boolean).map(Number)];
  return {
    child, port,
    cpu: async () => pids().reduce((us, pid) => us + onCpuNs(pid) / 1000, 0),
    stop: () => child.kill('SIGQUIT'),
  };
}

/** Time a single-threaded process has run on a CPU, in ns (user and system: the kernel's own account). */
function onCpuNs(pid: number): number {
  return Number(readIfAny(`/proc/${pid}/schedstat`).split(' ')[0] || 0);
}

function readIfAny(file: string): string {
  try { return readFileSync(file, 'utf8'); } catch { return ''; }
}

const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

