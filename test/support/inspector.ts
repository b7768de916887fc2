// A child node process's memory, measured from outside: a full GC through its inspector (the
// DevTools protocol's HeapProfiler.collectGarbage, what `gc()` does inside), then its RSS
// (./rss.ts) and its live heap from process.memoryUsage(). For soaks that must count the gateway's
// memory alone: a gateway in the test's process shares its heap and allocator with the test's own
// clients and buffers.
import WebSocket from 'ws';
import { rssBytes } from './rss.js';

/** The node flag that opens the inspector on a free loopback port (its URL is printed on stderr). */
export const INSPECT_FLAG = '--inspect=127.0.0.1:0';

export interface Memory {
  /** Resident set, bytes (./rss.ts). */
  rss: number;
  /** Live heap after the full GC, bytes. */
  heap: number;
}

/** Full GC of the process whose stderr so far is `output` (started with INSPECT_FLAG), then its memory. */
export async function memoryAfterGc(pid: number, output: string): Promise<Memory> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
  if (!url) throw new Error(`no inspector URL in the process's output (started with ${INSPECT_FLAG}?):\n${output.slice(0, 2000)}`);
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  let id = 0;
  const call = (method: string, params: object = {}) => new Promise<{ result?: { result?: { value?: unknown } } }>((resolve, reject) => {
    const mine = ++id;
    const timer = setTimeout(() => reject(new Error(`${method}: no answer in 30 s`)), 30_000);
    const onMessage = (data: WebSocket.RawData) => {
      const msg = JSON.parse(data.toString()) as { id?: number; error?: { message: string } };
      if (msg.id !== mine) return;
      clearTimeout(timer);
      ws.off('message', onMessage);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg as { result?: { result?: { value?: unknown } } });
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id: mine, method, params }));
  });
  try {
    for (let i = 0; i < 3; i++) await call('HeapProfiler.collectGarbage');
    const heap = (await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true })).result?.result?.value;
    if (typeof heap !== 'number') throw new Error(`no live heap figure (${String(heap)})`);
    return { rss: rssBytes(pid), heap };
  } finally {
    ws.close();
    await new Promise((r) => ws.once('close', r));
  }
}
