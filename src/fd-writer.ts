// Whole, synchronous writes to one file descriptor. Straight `writeSync` while the descriptor takes
// each write whole, as files, terminals and blocking pipes do; from the first write that would block
// or is cut short (a non-blocking pipe), sonic-boom (pino's destination) takes over for good: it
// waits out EAGAIN and finishes partial writes. Loading it costs ~4 ms (the CommonJS loader's first
// use), and a gateway writes its first line as it starts to listen (bench/startup.ts).
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { SonicBoom } from 'sonic-boom';

const require = createRequire(import.meta.url);

export interface FdWriter {
  write(chunk: string): void;
  /** Finish what sonic-boom still holds (nothing is held before it takes over). */
  flushSync(): void;
}

export function fdWriter(fd: number): FdWriter {
  let boom: SonicBoom | undefined;
  let gone = false;
  const write = (chunk: string) => {
    if (gone) return;
    if (boom) {
      boom.write(Buffer.from(chunk) as unknown as string); // contentMode buffer: its types say string
      return;
    }
    const bytes = Buffer.from(chunk);
    let n = 0;
    try {
      n = writeSync(fd, bytes);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // The reader went away (a closed pipe, a closed descriptor): logging stops rather than the gateway.
      if (code === 'EPIPE' || code === 'EBADF') { gone = true; return; }
      // Any other failure (ENOSPC, EIO) loses this chunk only; nothing is left to report it to.
      if (code !== 'EAGAIN') return;
    }
    if (n === bytes.length) return;
    // EAGAIN (nothing written) or a short write: the descriptor is non-blocking and full.
    boom = open(fd, () => { gone = true; });
    boom.write(bytes.subarray(n) as unknown as string);
  };
  return { write, flushSync: () => { if (!gone) boom?.flushSync(); } };
}

function open(fd: number, onGone: () => void): SonicBoom {
  const { SonicBoom: SonicBoomClass } = require('sonic-boom') as typeof import('sonic-boom');
  // Bytes, not strings: a write cut short may end inside a character.
  const out = new SonicBoomClass({ fd, sync: true, contentMode: 'buffer' });
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'EBADF') onGone();
  });
  return out;
}
