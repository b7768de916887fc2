// Runs a page's shell examples as a reader would paste them, in order, in one "terminal": a temp
// folder laid out like the checkout (its own copy of catalogue/, so edits stay there; dist/,
// node_modules/ and data/ linked), one environment carried from command to command, and jobs
// started with `&` stopped by `kill %n`. What would be slow or unsafe as processes runs in this
// process instead, with the same code the commands run:
//   npm start -- <flags> / node dist/src/cli.cjs <flags>   the gateway (src/server.ts), on a free port
//   node dist/test/support/exchange-upstream.js '<keys>' <port>   the exchange stand-in, on a free port
//   node dist/test/support/github-upstream.js [--speaks v] [--port n]   the GitHub stand-in, likewise
//   npm run catalogue|diff|changelog -- <args>   the tool's command (test/support/tools.ts), but for
//                                               catalogue drift (it calls a gateway of this process)
//   npm run settings-table                      the table src/settings-doc.ts renders
// A gateway started without --upstream gets a stand-in of its own (tests never reach the exchange),
// and one naming no github upstream gets it for GitHub too (nor GitHub);
// gateways and tools read the folder's copy of the catalogue, not the checkout's.
// Ports the page names (8080, 9000, …) are mapped to the real ones in every later command. Any
// other command runs in `sh` (curl, cat, keygen and catalogue drift through a small `npm run` shim), in the folder.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { UsageError } from '../../src/usage-error.js';
import { readmeTable } from '../../src/settings-doc.js';
import { startUpstream, ROOT, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { startGithubUpstream, type GithubVersion } from '../support/github-upstream.js';
import { runTool, type ToolName } from '../support/tools.js';

export interface Ran {
  output: string;
  status: number;
}

interface Job {
  kind: 'gateway' | 'upstream';
  port: string;
  stop(): Promise<void>;
  gateway?: RunningGateway;
}

const SHIM = `npm() {
  [ "$1" = run ] || { echo "npm $1: the docs test runs npm start and npm run only" >&2; return 127; }
  shift; [ "$1" = -s ] && shift
  __s=$1; shift; [ "$1" = -- ] && shift
  case $__s in
    keygen) node "$__ROOT/dist/tools/keygen.js" "$@" ;;
    catalogue) node "$__ROOT/dist/tools/catalogue.js" "$@" ;;
    *) echo "npm run $__s: the docs test does not run it; mark the block <!-- not run: <reason> --> or teach test/docs/session.ts" >&2; return 127 ;;
  esac
}
`;

/** Gateway flags whose value is a file. */
const FILE_FLAGS = new Set(['--tls-cert', '--tls-key', '--tls-client-ca', '--tokens-file', '--config']);

/**
 * The folder sessions live in, one after another: the same path each time, so a page whose copy of
 * the catalogue is still as shipped reads the model kept for the first page's copy (the model cache
 * is keyed by folder and content) instead of building it again, ~0.1 s of CPU a page.
 */
let sessionsDir: string | undefined;
let openSession: Session | null = null;

export class Session {
  readonly dir: string;
  env: Record<string, string>;
  private jobs: (Job | null)[] = [];
  private ports = new Map<string, string>();
  private ownUpstream?: Upstream;

  constructor() {
    if (openSession) throw new Error('a docs session is still open: close it before starting another (they share one folder)');
    openSession = this;
    sessionsDir ??= tempDir('docs-examples-');
    this.dir = join(sessionsDir, 'session');
    mkdirSync(this.dir);
    cpSync(join(ROOT, 'catalogue'), join(this.dir, 'catalogue'), { recursive: true });
    for (const name of ['dist', 'node_modules', 'data', 'package.json']) symlinkSync(join(ROOT, name), join(this.dir, name));
    mkdirSync(join(this.dir, 'docs'));
    // node first on the PATH: the one running the tests, for the commands that start it.
    this.env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: this.dir, TMPDIR: process.env.TMPDIR ?? '/tmp', LANG: 'C.UTF-8' };
  }

  /** The page's ports replaced by the ones listening here. */
  private mapPorts(cmd: string): string {
    return cmd.replace(/\b(localhost|127\.0\.0\.1):(\d+)\b/g, (m, host: string, port: string) => (this.ports.has(port) ? `${host}:${this.ports.get(port)}` : m));
  }

  /** The words of a command as sh splits and expands them (quotes, $VAR), without running it. */
  private words(cmd: string): string[] {
    const r = spawnSync('sh', ['-c', `set -- ${cmd}\nfor a in "$@"; do printf '%s\\0' "$a"; done`], { cwd: this.dir, env: this.env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cannot read the words of: ${cmd}\n${r.stderr}`);
    return r.stdout.split('\0').slice(0, -1);
  }

  async run(command: string): Promise<Ran> {
    let cmd = command.trim();
    const background = /\s&$/.test(cmd);
    if (background) cmd = cmd.replace(/\s&$/, '');
    const kill = /^kill((?:\s+%\d+)+)$/.exec(cmd);
    if (kill) {
      for (const n of kill[1].trim().split(/\s+/).map((j) => Number(j.slice(1)))) {
        const job = this.jobs[n - 1];
        if (!job) return { output: `kill: %${n}: no such job`, status: 1 };
        this.jobs[n - 1] = null;
        this.ports.delete(job.port);
        await job.stop();
      }
      return { output: '', status: 0 };
    }
    // (Its --help runs as a command: it prints and exits.)
    if (/^node dist\/test\/support\/exchange-upstream\.js\b(?!\s+(?:--help|-h)\b)/.test(cmd)) return this.upstream(this.words(cmd).slice(2));
    if (/^node dist\/test\/support\/github-upstream\.js\b(?!\s+--help\b)/.test(cmd)) return this.githubUpstream(this.words(cmd).slice(2));
    const tool = /^npm run(?: -s)? (catalogue|diff|changelog|settings-table)\b(?: --)?(.*)$/s.exec(cmd);
    // catalogue drift reads a gateway of this process over HTTP, and needs no catalogue: it runs in sh.
    if (tool && !/^\s*drift\b/.test(tool[2])) {
      if (tool[1] === 'settings-table') return { output: readmeTable(), status: 0 };
      const name: ToolName = tool[1] === 'diff' ? 'diff-releases' : (tool[1] as ToolName);
      // The tools' default catalogue is the checkout's own (found from their module): point them at the copy.
      const args = this.words(this.mapPorts(tool[2]));
      // (A release import names its service folder instead, relative to the copy.)
      const named = args.includes('--catalogue') || (name === 'catalogue' && args[0] === 'import');
      const r = runTool(name, named ? args : [...args, '--catalogue', join(this.dir, 'catalogue')], { cwd: this.dir });
      return { output: r.stdout + r.stderr, status: r.status };
    }
    if (/^(?:\w+=\S*\s+)*(?:npm start\b|node dist\/src\/cli\.cjs\b)/.test(cmd)) return this.gateway(this.words(this.mapPorts(cmd)));
    return this.sh(this.mapPorts(cmd));
  }

  private async upstream(args: string[]): Promise<Ran> {
    const [keys, port = '0'] = args;
    if (this.ports.has(port)) return { output: `port ${port} is in use`, status: 1 };
    const up = await startUpstream(JSON.parse(keys ?? '{}'));
    this.ports.set(port, new URL(up.url).port);
    this.jobs.push({ kind: 'upstream', port, stop: up.stop });
    return { output: `port ${port}`, status: 0 };
  }

  /** The GitHub stand-in (test/support/github-upstream.ts): `--speaks <version>`, `--port <n>` mapped like the others. */
  private async githubUpstream(args: string[]): Promise<Ran> {
    const at = (flag: string) => { const i = args.indexOf(flag); return i >= 0 ? args[i + 1] : undefined; };
    const port = at('--port') ?? '9100';
    if (this.ports.has(port)) return { output: `port ${port} is in use`, status: 1 };
    const up = await startGithubUpstream((at('--speaks') ?? '2022-11-28') as GithubVersion);
    this.ports.set(port, new URL(up.url).port);
    this.jobs.push({ kind: 'upstream', port, stop: up.stop });
    return { output: `port ${port}`, status: 0 };
  }

  private async gateway(words: string[]): Promise<Ran> {
    const env = { ...this.env };
    while (/^\w+=/.test(words[0])) {
      const [k, ...v] = words.shift()!.split('=');
      env[k] = v.join('=');
    }
    const flags = words[0] === 'npm' ? words.slice(words[2] === '--' ? 3 : 2) : words.slice(2);
    const at = flags.indexOf('--port');
    const port = at >= 0 ? flags.splice(at, 2)[1] : '8080';
    const healthAt = flags.indexOf('--health-port'); // the probes' port is mapped like --port
    const healthPort = healthAt >= 0 ? flags.splice(healthAt, 2)[1] : undefined;
    if (this.ports.has(port)) return { output: `error: port ${port} is already in use (EADDRINUSE)`, status: 1 };
    // Files a page names are in the session's folder, where its shell commands made them.
    for (let i = 0; i < flags.length - 1; i++) if (FILE_FLAGS.has(flags[i]) && !isAbsolute(flags[i + 1])) flags[i + 1] = join(this.dir, flags[i + 1]);
    const upstream: string[] = [];
    if (!flags.some((f) => /^exchange(\.rest)?=/.test(f))) {
      this.ownUpstream ??= await startUpstream();
      upstream.push('--upstream', `exchange=${this.ownUpstream.url}`);
    }
    // Nor GitHub: a page that names no github upstream gets the same stand-in for it.
    if (!flags.some((f) => /^github(\.rest)?=/.test(f))) {
      this.ownUpstream ??= await startUpstream();
      upstream.push('--upstream', `github=${this.ownUpstream.url}`);
    }
    let running: RunningGateway;
    try {
      const config = readConfig(['--port', '0', ...(healthPort ? ['--health-port', '0'] : []), '--catalogue', join(this.dir, 'catalogue'), ...upstream, ...flags], env);
      running = await startGateway(config, { logger: createLogger('silent') });
    } catch (e) {
      // As the CLI prints it (src/cli.ts).
      return e instanceof UsageError ? { output: `error: ${e.message} (see --help)`, status: 2 } : { output: `error: ${(e as Error).message}`, status: 1 };
    }
    this.ports.set(port, new URL(running.url).port);
    if (healthPort) this.ports.set(healthPort, new URL(running.healthUrl!).port);
    this.jobs.push({ kind: 'gateway', port, gateway: running, stop: () => running.close(0, 0) });
    return { output: `listening on ${new URL(running.url).protocol}//127.0.0.1:${port}`, status: 0 };
  }

  private sh(cmd: string): Promise<Ran> {
    const script = `set -a\n${SHIM}{\n${cmd}\n} 2>&1\n__rc=$?\nenv -0 > "$__ENV_OUT"\nexit $__rc\n`;
    const envOut = join(this.dir, '.env-out');
    return new Promise((resolve) => {
      const child = spawn('sh', ['-c', script], { cwd: this.dir, env: { ...this.env, __ROOT: ROOT, __ENV_OUT: envOut, INIT_CWD: this.dir } });
      let output = '';
      child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('close', (status) => {
        clearTimeout(timer);
        try {
          const next: Record<string, string> = {};
          for (const kv of readFileSync(envOut, 'utf8').split('\0')) {
            const eq = kv.indexOf('=');
            if (eq > 0 && !kv.startsWith('__')) next[kv.slice(0, eq)] = kv.slice(eq + 1);
          }
          for (const k of ['PWD', 'OLDPWD', 'SHLVL', '_', 'INIT_CWD']) delete next[k];
          if (Object.keys(next).length) this.env = next;
        } catch { /* the command ended the shell before env ran */ }
        resolve({ output, status: status ?? 1 });
      });
    });
  }

  /**
   * An ```http example: a request (request line, headers, blank line, body) then the answer it
   * shows (status line, headers, blank line, body). Sent to the page's gateway on the Host's port
   * (8080 when none), started with the defaults when the page started none. The answer's status
   * line must match, each header it lists must be in the real answer with a matching value, and the
   * body must match (`…` as in console blocks). Returns what differs, or ''.
   */
  async http(text: string): Promise<string> {
    const at = text.search(/^HTTP\/1\.1 \d{3}/m);
    const [request, shown] = at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at)];
    const [head, ...body] = request.replace(/\n+$/, '').split(/\n\n/);
    const [line, ...headerLines] = head.split('\n');
    const m = /^([A-Z]+) (\S+)(?: HTTP\/1\.1)?$/.exec(line.trim());
    if (!m) return `not a request line: ${line}`;
    const headers = headerLines.map((h) => h.split(/:\s*/)).map(([k, ...v]) => [k, v.join(':')] as [string, string]);
    const host = headers.find(([k]) => k.toLowerCase() === 'host')?.[1] ?? 'localhost:8080';
    const port = host.split(':')[1] ?? '80';
    if (!this.ports.has(port)) await this.run(`npm start -- --port ${port} &`);
    const r = await fetch(`http://127.0.0.1:${this.ports.get(port)}${m[2]}`, {
      method: m[1], headers: headers.filter(([k]) => k.toLowerCase() !== 'host'), body: body.length ? body.join('\n\n') : undefined,
    });
    const got = await r.text();
    if (!shown) return '';
    const [showHead, ...showBody] = shown.replace(/\n+$/, '').split(/\n\n/);
    const [status, ...showHeaders] = showHead.split('\n');
    const diffs: string[] = [];
    if (!matches(`HTTP/1.1 ${r.status} ${r.statusText}`, status)) diffs.push(`status: ${r.status} ${r.statusText}`);
    for (const h of showHeaders.filter((x) => x.trim() !== '…')) {
      const [k, ...v] = h.split(/:\s*/);
      const real = r.headers.get(k);
      if (real === null || !matches(real, v.join(':'))) diffs.push(`header ${k}: ${real ?? '(absent)'}`);
    }
    if (showBody.length && !matches(got, showBody.join('\n\n'))) diffs.push(`body: ${got}`);
    return diffs.join('\n');
  }

  /** Stop every job and the session's own stand-in, and remove the session's folder. */
  async close(): Promise<void> {
    try {
      for (const job of this.jobs) await job?.stop();
      this.jobs = [];
      await this.ownUpstream?.stop();
    } finally {
      rmSync(this.dir, { recursive: true, force: true }); // the next page starts from a fresh folder at the same path
      openSession = null;
    }
  }
}

/** Whether output matches an expected text in which `…` stands for any text on a line, and a line of `…` alone for any lines. */
export function matches(actual: string, expected: string): boolean {
  const norm = (s: string) => s.replace(/\r/g, '').split('\n').map((l) => l.trimEnd()).join('\n').replace(/\n+$/, '').replace(/^\n+/, '');
  const re = norm(expected).split('\n').map((line) => (line.trim() === '…'
    ? '(?:[^\\n]*(?:\\n|$))*?'
    : `${line.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^\\n]*?')}(?:\\n|$)`)).join('');
  return new RegExp(`^${re}$`).test(`${norm(actual)}\n`) || new RegExp(`^${re}$`).test(norm(actual));
}
