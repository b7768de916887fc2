// The access log as a gateway process writes it with its default settings: lines batched (32 KiB or
// 1 s), none lost in an orderly stop or a fatal error, each one JSON object, in order; and a line of
// light traffic shows within the flush interval, for an operator tailing the log.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { FLUSH_MS } from '../../src/log-buffer.js';
import { ROOT, startGatewayProcess, startUpstream, type Upstream, NODE_FLAGS } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { accessLines, linesThroughStop } from './access-log-order.js';

const test = suite('access log');
let upstream: Upstream;

test.before(async () => { upstream = await startUpstream({}); });
test.after(async () => { await upstream.stop(); });

test('2 000 requests then SIGTERM: 2 000 access lines, each JSON, in the order they were answered (10 000 in the soak)', async () => {
  await linesThroughStop(upstream.url, 2000);
});

test('light traffic: a request\'s line shows within the flush interval, not at once', async () => {
  // Every upstream on loopback and reachable: the start-up probe of an unreachable one logs a warning,
  // and a warning is written at once, with the queued access lines before it.
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`,
    '--upstream', `exchange.streams=${upstream.url.replace('http', 'ws')}`, '--upstream', `exchange.wsApi=${upstream.url.replace('http', 'ws')}`]);
  try {
    const t0 = performance.now();
    const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-request-id': 'tail-me' } });
    await res.arrayBuffer();
    const answered = performance.now() - t0;
    // The reference: how late this process's own timer of the same interval fires under the machine's load now.
    const lateness = new Promise<number>((resolve) => { const s = performance.now(); setTimeout(() => resolve(performance.now() - s - FLUSH_MS), FLUSH_MS); });
    const seenAt = await new Promise<number>((resolve, reject) => {
      const timer = setInterval(() => {
        if (gw.output().includes('"reqId":"tail-me"')) { clearInterval(timer); resolve(performance.now() - t0); }
        // A bound for the test, not the assertion: a busy machine can hold the timer a long while.
        if (performance.now() - t0 > answered + 30 * FLUSH_MS) { clearInterval(timer); reject(new Error(`no access line ${30 * FLUSH_MS} ms after the answer:\n${gw.output()}`)); }
      }, 10);
    });
    const late = await lateness;
    assert.ok(seenAt <= FLUSH_MS + answered + late + 250, `line seen ${seenAt.toFixed(0)} ms after the request (answered in ${answered.toFixed(0)} ms; a ${FLUSH_MS} ms timer here fired ${late.toFixed(0)} ms late)`);
    // Written early only when a line that must be seen at once (not an access line) took it along.
    const out = gw.output();
    const after = out.slice(out.indexOf('"reqId":"tail-me"')).split('\n').slice(1).filter((l) => l.trim() && !l.includes('"msg":"access"'));
    assert.ok(seenAt >= FLUSH_MS / 2 || after.length > 0, `seen after ${seenAt.toFixed(0)} ms with no other line after it: written at once, not batched\n${out}`);
  } finally {
    await gw.stop();
  }
});

test('a fatal error: the lines queued before it are written before the process dies', async () => {
  const file = join(tempDir('access-log-'), 'log');
  const fd = openSync(file, 'w');
  const script = `
    import { createLogger } from ${JSON.stringify(join(ROOT, 'dist/src/log.js'))};
    const log = createLogger('info');
    for (let i = 0; i < 500; i++) log.access('"reqId":"r' + i + '","status":200');
    setTimeout(() => { throw new Error('fatal'); }, 10);`;
  const child = spawn(process.execPath, [...NODE_FLAGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', fd] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  closeSync(fd);
  assert.is(code, 1);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /Error: fatal/);
  const access = accessLines(text);
  assert.equal(access.map((a) => a.reqId), Array.from({ length: 500 }, (_, i) => `r${i}`));
  assert.ok(text.indexOf('"reqId":"r499"') < text.indexOf('Error: fatal'), 'the queued lines come before the error');
});

test.run();
