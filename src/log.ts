// A small leveled logger writing one line per event. Callers pass messages that hold no secrets:
// no headers, query strings or bodies are ever logged.
export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export function createLogger(level: Level = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = ORDER[level];
  const at = (lvl: Level) => (msg: string) => {
    if (ORDER[lvl] >= min) write(`${new Date().toISOString()} ${lvl} ${msg}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export const LEVELS = Object.keys(ORDER) as Level[];
