// Why src/log-buffer.ts gathers lines itself instead of using sonic-boom's minLength: CPU per
// 250-byte access line written to /dev/null (so the figures are the writer's own work, not the
// device's): a write per line, sonic-boom buffering 32 KiB (it re-measures the whole buffer with
// Buffer.byteLength on every write), sonic-boom in buffer mode (a Buffer per line), and this one.
//   npm run build && node dist/bench/log-buffer.js [lines]
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { bufferedLines } from '../src/log-buffer.js';

const { SonicBoom } = createRequire(import.meta.url)('sonic-boom') as typeof import('sonic-boom');
const N = Number(process.argv[2] ?? 100_000);
const line = `${JSON.stringify({ level: 'info', time: '2026-11-27T05:17:46.123Z', pid: 12345, reqId: '0f8fad5b-d9cb-469f-a165-70867728950e', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', method: 'GET', route: '/api/v3/klines', status: 200, ms: 1.234, release: '3.12.0', upstreamMs: 0.812, bytes: 512, msg: 'access' })}\n`;

function cpuPerLine(write: (l: string) => void, end: () => void): number {
  for (let i = 0; i < N / 10; i++) write(line);
  const before = process.cpuUsage();
  for (let i = 0; i < N; i++) write(line);
  end();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / N;
}

const fd = openSync('/dev/null', 'w');
const rows: [string, number][] = [];
const perLine = new SonicBoom({ fd, sync: true });
rows.push(['sonic-boom, a write per line', cpuPerLine((l) => perLine.write(l), () => perLine.flushSync())]);
const min = new SonicBoom({ fd, sync: true, minLength: 32 * 1024, maxWrite: 64 * 1024 });
rows.push(['sonic-boom, minLength 32 KiB', cpuPerLine((l) => min.write(l), () => min.flushSync())]);
const buf = new SonicBoom({ fd, sync: true, minLength: 32 * 1024, maxWrite: 64 * 1024, contentMode: 'buffer' });
rows.push(['sonic-boom, minLength 32 KiB, buffer mode', cpuPerLine((l) => buf.write(Buffer.from(l) as unknown as string), () => buf.flushSync())]);
const ours = bufferedLines(fd);
rows.push(['src/log-buffer.ts, 32 KiB', cpuPerLine((l) => ours.write(l), () => ours.flush())]);
ours.close();
closeSync(fd);
console.log(`CPU per ${line.length}-byte line written to /dev/null (${N} lines each)`);
for (const [what, us] of rows) console.log(`  ${what.padEnd(44)} ${us.toFixed(3)} µs`);
