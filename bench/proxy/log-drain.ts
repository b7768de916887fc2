// Where a benchmarked forwarder's log goes: a pipe that a separate process reads, as a log shipper
// would (`wc -l`, which also counts the lines, so the bench can say every request left its line).
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { track } from './processes.js';

export interface LogDrain {
  /** The pipe's writing end: pass it as the forwarder's stderr. */
  pipe: Writable;
  /** The number of lines read, once every writer has closed the pipe (the forwarder exited). */
  lines(): Promise<number>;
}

export function logDrain(): LogDrain {
  const wc = track(spawn('wc', ['-l'], { stdio: ['pipe', 'pipe', 'inherit'] }));
  let out = '';
  wc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  const done = new Promise<number>((resolve) => wc.once('exit', () => resolve(Number(out.trim()))));
  return {
    pipe: wc.stdin!,
    lines: () => {
      wc.stdin!.end(); // this process's copy of the writing end
      return done;
    },
  };
}
