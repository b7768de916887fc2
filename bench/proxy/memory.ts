// Forwarder processes report their memory (bytes) when the parent asks over IPC, so a soak measures
// the gateway's process alone, not the load generator. Raw RSS saws up and down with V8's major
// collections; the figures after a full collection (when run with --expose-gc) are what a leak moves.
export interface MemorySample { rss: number; heapUsed: number; rssAfterGc?: number; heapAfterGc?: number }

export function reportMemoryOnRequest(): void {
  process.on('message', (m) => {
    if (m !== 'memory') return;
    const { rss, heapUsed } = process.memoryUsage();
    const gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) return void process.send?.({ rss, heapUsed } satisfies MemorySample);
    gc();
    const after = process.memoryUsage();
    process.send?.({ rss, heapUsed, rssAfterGc: after.rss, heapAfterGc: after.heapUsed } satisfies MemorySample);
  });
}
