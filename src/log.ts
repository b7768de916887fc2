// The gateway's logger: one JSON object per line (what log shippers parse), or a short human
// line when a person reads a terminal. Callers pass messages that hold no secrets — no headers,
// query strings or bodies — and may add structured fields; pino's redaction is the backstop for a
// field that should never have been passed.
// Access lines, one per request, skip pino: the caller hands over their fields already serialised
// (src/gateway/observe/access-record.ts, from fragments kept per route and release) and the time comes from
// a string kept per second. Lines are written in batches (./log-buffer.ts): an access line within
// 1 s or 32 KiB, any other line at once (with the access lines before it, in order).
// Lines that are a message alone are written the same way; pino (and the modules it requires: ~20 ms)
// loads on the first line with fields, which its redaction checks.
import { fstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Logger as Pino } from 'pino';
import { bufferedLines, type LineSink } from './log-buffer.js';
import { printable } from './printable.js';

const require = createRequire(import.meta.url);

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export const LEVELS: Level[] = ['debug', 'info', 'warn', 'error', 'silent'];
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: LogFormat[] = ['json', 'pretty'];

export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * One access line (at info): `fields` is its body already serialised (`"reqId":"…","status":200`),
   * secret-free by construction — redaction does not see it.
   */
  access(fields: string): void;
  /** Whether a call at this level would write anything (to skip building fields nobody reads). */
  enabled(level: Exclude<Level, 'silent'>): boolean;
}

/** Field names whose value is dropped from a line: credentials and raw request parts. */
const REDACT = ['headers', 'query', 'body', 'authorization', 'cookie', 'token', 'secret', 'password', 'passphrase', 'apiKey', 'signature', 'url'];

/**
 * JSON when the output is a pipe or file, pretty when a person is watching stderr. Asked of the file
 * descriptor: `process.stderr.isTTY` would build node's stderr stream, ~2 ms of a start-up that counts
 * (bench/startup.ts), for a stream the logger never writes through (./log-buffer.ts writes fd 2).
 * Only a character device can be a terminal, and node:tty (~1.7 ms to load) is asked only then:
 * a gateway's stderr is a pipe, a file or a socket.
 */
export function defaultLogFormat(): LogFormat {
  let device = false;
  try { device = fstatSync(2).isCharacterDevice(); } catch { /* no fd 2: nobody reads */ }
  return device && (require('node:tty') as typeof import('node:tty')).isatty(2) ? 'pretty' : 'json';
}

/** All of a process's lines on stderr go through one buffer, so they keep their order. */
let stderrLines: LineSink | undefined;

/**
 * A logger at `level`. `write` receives each finished line at once (tests capture them); by default
 * lines go to stderr in batches (./log-buffer.ts), and on exit whatever is still queued.
 */
export function createLogger(level: Level = 'info', write?: (line: string) => void, format: LogFormat = write ? 'json' : defaultLogFormat()): Logger {
  const sink: LineSink = write ? { write, flush() {} } : (stderrLines ??= bufferedLines(2));
  // A person at a terminal reads each line as it happens; a log shipper takes them in batches.
  const pretty = format === 'pretty';
  const emit = pretty ? (line: string) => { sink.write(prettyLine(line)); sink.flush(); } : (line: string) => sink.write(line);
  let p: Pino | undefined;
  const open = (): Pino => {
    const { pino } = require('pino') as typeof import('pino');
    return pino({
      level,
      base: { pid: process.pid },
      timestamp: () => `,"time":"${isoNow()}"`,
      formatters: { level: (label) => ({ level: label }) }, // "level":"warn", not 40: readable without a lookup table
      // Top-level paths only: fields are flat (LogFields), and wildcard paths cost ~8 µs a line.
      redact: { paths: REDACT, remove: true },
    }, { write: (line: string) => { emit(line); sink.flush(); } });
  };
  const threshold = RANK[level];
  const enabled = (lvl: Exclude<Level, 'silent'>) => RANK[lvl] >= threshold;
  const pid = process.pid;
  const at = (lvl: Exclude<Level, 'silent'>) => (msg: string, fields?: LogFields) => {
    if (!enabled(lvl)) return;
    if (fields) {
      p ??= open();
      p[lvl](fields, msg);
    } else {
      // The line pino would write, without loading it (the start-up notes: the gateway already listens).
      emit(`{"level":"${lvl}","time":"${isoNow()}","pid":${pid},"msg":${JSON.stringify(msg)}}\n`);
      sink.flush();
    }
  };
  const infoOn = enabled('info');
  const access = (fields: string) => {
    if (infoOn) emit(`{"level":"info","time":"${isoNow()}","pid":${pid},${fields},"msg":"access"}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), access, enabled };
}

/** "000".."999": the milliseconds of a time. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let second = -1;
let secondIso = '';

/** `new Date().toISOString()`, with the part up to the second built once per second. */
export function isoNow(): string {
  const now = Date.now();
  const ms = now % 1000;
  if (now - ms !== second) {
    second = now - ms;
    secondIso = new Date(second).toISOString().slice(0, 20); // "2026-11-27T05:17:46."
  }
  return secondIso + MILLIS[ms] + 'Z';
}

/** pino's level numbers: a line is written when its level ranks at or above the logger's. */
const RANK: Record<Level, number> = { debug: 20, info: 30, warn: 40, error: 50, silent: Infinity };

/**
 * A logger whose lines wait until `release()` (then pass straight through): start-up notes are
 * written once the gateway listens, so a start-up that fails prints its one error line alone.
 */
export function heldLogger(target: Logger): Logger & { release(): void } {
  let held: (() => void)[] | undefined = [];
  const at = (lvl: Exclude<Level, 'silent'>) => (msg: string, fields?: LogFields) => {
    if (held) held.push(() => target[lvl](msg, fields));
    else target[lvl](msg, fields);
  };
  return {
    debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), access: (fields) => target.access(fields), enabled: (lvl) => target.enabled(lvl),
    release() {
      const lines = held ?? [];
      held = undefined;
      for (const write of lines) write();
    },
  };
}

/**
 * `HH:MM:SS.mmm level msg key=value…`: pino's JSON line re-read, for a terminal; the message and the
 * values with their control characters escaped (a name a client sent may hold a newline or a
 * terminal escape: one line stays one line).
 */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { time, level, msg, pid: _pid, ...rest } = o;
  const fields = Object.entries(rest).map(([k, v]) => ` ${printable(k)}=${typeof v === 'string' ? printable(v) : JSON.stringify(v)}`).join('');
  return `${printable(String(time ?? '').slice(11, 23))} ${printable(String(level)).padEnd(5)} ${printable(String(msg ?? ''))}${fields}\n`;
}
