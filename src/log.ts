// The gateway's logger: pino, one JSON object per line (what log shippers parse), or a short
// human line when a person reads a terminal. Callers pass messages that hold no secrets — no
// headers, query strings or bodies — and may add structured fields; the redaction below is the
// backstop for a field that should never have been passed.
// pino (and the modules it requires) load on the first line actually written: ~20 ms that a
// gateway at --log-level error, or one not yet asked anything, need not pay before it listens.
import { createRequire } from 'node:module';
import type { DestinationStream, Logger as Pino } from 'pino';

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
  /** Whether a call at this level would write anything (to skip building fields nobody reads). */
  enabled(level: Exclude<Level, 'silent'>): boolean;
}

/** Field names whose value is dropped from a line: credentials and raw request parts. */
const REDACT = ['headers', 'query', 'body', 'authorization', 'cookie', 'token', 'secret', 'password', 'passphrase', 'apiKey', 'signature', 'url'];

/** JSON when the output is a pipe or file, pretty when a person is watching stderr. */
export function defaultLogFormat(): LogFormat {
  return process.stderr.isTTY ? 'pretty' : 'json';
}

/**
 * A logger at `level`. `write` receives each finished line (tests capture them); by default lines
 * go to stderr synchronously, so the last lines before an exit are never lost.
 */
export function createLogger(level: Level = 'info', write?: (line: string) => void, format: LogFormat = write ? 'json' : defaultLogFormat()): Logger {
  let p: Pino | undefined;
  const open = (): Pino => {
    const { pino } = require('pino') as typeof import('pino');
    const sink: DestinationStream = write ? { write } : pino.destination({ dest: 2, sync: true });
    const out: DestinationStream = format === 'pretty' ? { write: (line: string) => sink.write(prettyLine(line)) } : sink;
    return pino({
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) }, // "level":"warn", not 40: readable without a lookup table
      // Top-level paths only: fields are flat (LogFields), and wildcard paths cost ~8 µs a line.
      redact: { paths: REDACT, remove: true },
    }, out);
  };
  const threshold = RANK[level];
  const enabled = (lvl: Exclude<Level, 'silent'>) => RANK[lvl] >= threshold;
  const at = (lvl: Exclude<Level, 'silent'>) => (msg: string, fields?: LogFields) => {
    if (!enabled(lvl)) return;
    p ??= open();
    if (fields) p[lvl](fields, msg);
    else p[lvl](msg);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled };
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
    debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: (lvl) => target.enabled(lvl),
    release() {
      const lines = held ?? [];
      held = undefined;
      for (const write of lines) write();
    },
  };
}

/** `HH:MM:SS.mmm level msg key=value…`: pino's JSON line re-read, for a terminal. */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { time, level, msg, pid: _pid, ...rest } = o;
  const fields = Object.entries(rest).map(([k, v]) => ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join('');
  return `${String(time ?? '').slice(11, 23)} ${String(level).padEnd(5)} ${String(msg ?? '')}${fields}\n`;
}
