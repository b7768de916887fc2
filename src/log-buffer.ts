// Log lines written in batches, as nginx writes its `access_log … buffer=32k flush=1s`: whole lines
// gather in a string and go out in one write when the next would pass the size, when the oldest has
// waited the interval, when a line must be seen at once (anything but an access line), and on exit —
// process.exit() after a drain, an uncaught exception or rejection all emit 'exit' — so no line of a
// finished request is lost in an orderly stop (and an uncaught error's lines come before its stack
// trace). A crash that skips 'exit' (SIGKILL, a native abort)
// loses at most the one buffer not yet written.
// The writes are synchronous (./fd-writer.ts), so lines reach the fd in order and none is pending
// when the process exits; a full pipe (EAGAIN) and partial writes are retried by sonic-boom (pino's
// destination). Its own minLength buffer is not used: it measures the whole buffer
// (Buffer.byteLength) on every write, 4.7 µs a line at 32 KiB against 0.1 µs for this string
// (bench/log-buffer.ts).
import cluster from 'node:cluster';
import { fstatSync } from 'node:fs';
import { fdWriter, type FdWriter } from './fd-writer.js';

export interface LineSink {
  /** Queue one finished line (ending in "\n"). */
  write(line: string): void;
  /** Write what is queued now. */
  flush(): void;
}

/** Bytes per write (nginx's access_log buffer=32k). */
export const BUFFER_BYTES = 32 * 1024;
/** The longest a line waits for its write (nginx's flush=1s). */
export const FLUSH_MS = 1000;
/**
 * Workers share their primary's stderr. A pipe writes at most PIPE_BUF (4 KiB on Linux) bytes in
 * one piece, so there a write from one worker could land inside a line of another's: workers
 * writing to a pipe or socket keep each write within it, and count bytes rather than characters.
 */
const PIPE_BUF = 4096;

export interface BufferOptions { bytes?: number; flushMs?: number }

/** Lines for file descriptor `fd`, batched; the file descriptor is opened on the first write. */
export function bufferedLines(fd: number, o: BufferOptions = {}): LineSink & { close(): void } {
  const shared = cluster.isWorker && sharedPipe(fd);
  const limit = shared ? PIPE_BUF : o.bytes ?? BUFFER_BYTES;
  const flushMs = o.flushMs ?? FLUSH_MS;
  let queued = '';
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  let out: FdWriter | undefined;
  const flush = () => {
    if (!queued) return;
    out ??= fdWriter(fd);
    const chunk = queued;
    queued = '';
    size = 0;
    out.write(chunk);
  };
  const due = () => {
    timer = undefined;
    flush();
  };
  const onExit = () => {
    try {
      flush();
      out?.flushSync();
    } catch { /* the reader is gone: nothing left to tell */ }
  };
  process.on('exit', onExit);
  // Before node prints an uncaught error, so the lines that led to it come first.
  process.on('uncaughtExceptionMonitor', flush);
  return {
    write(line) {
      const n = shared ? Buffer.byteLength(line) : line.length; // lines are ASCII but for rare messages; a char is at most 3 bytes
      if (size + n > limit) flush();
      queued += line;
      size += n;
      if (!timer) (timer = setTimeout(due, flushMs)).unref();
    },
    flush,
    close() {
      onExit();
      process.off('exit', onExit);
      process.off('uncaughtExceptionMonitor', flush);
      if (timer) clearTimeout(timer);
    },
  };
}

function sharedPipe(fd: number): boolean {
  try {
    const s = fstatSync(fd);
    return s.isFIFO() || s.isSocket();
  } catch {
    return false;
  }
}
