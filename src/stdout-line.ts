// One line to standard output without building node's stdout stream, which costs ~2–3 ms of a
// start-up that counts (bench/startup.ts) for the one line the gateway writes there. A line this
// short reaches a pipe whole (POSIX: a write under PIPE_BUF is atomic); a write that fails (a full
// non-blocking pipe) falls back to console.log, which queues it.
import { writeSync } from 'node:fs';

export function printLine(text: string): void {
  try {
    writeSync(1, `${text}\n`);
  } catch {
    console.log(text);
  }
}
