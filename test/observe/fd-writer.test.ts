// The log's writes (src/fd-writer.ts): straight to the descriptor while it takes each write whole;
// a non-blocking pipe that fills hands over to sonic-boom, and every byte still arrives, in order; a
// reader that went away stops the writes without an error.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { fdWriter } from '../../src/fd-writer.js';
import { tempDir } from '../support/temp.js';
import { NODE_FLAGS, ROOT } from '../support/processes.js';

const test = suite('fd writer');
/** Whether this process has loaded sonic-boom (by now: an earlier file of a lane may have). */
const sonicBoomLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/sonic-boom/'));

/**
 * Whether writing `lines` to a file through fdWriter loads sonic-boom, asked of a process of its own:
 * in a test lane an earlier file may have loaded it already.
 */
function sonicBoomLoadedBy(file: string, lines: string[]): boolean {
  const script = `
    import { openSync } from 'node:fs';
    import { createRequire } from 'node:module';
    import { fdWriter } from ${JSON.stringify(join(ROOT, 'dist/src/fd-writer.js'))};
    const w = fdWriter(openSync(${JSON.stringify(file)}, 'w'));
    for (const l of ${JSON.stringify(lines)}) w.write(l);
    console.log(Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/sonic-boom/')));`;
  return execFileSync(process.execPath, [...NODE_FLAGS, '--input-type=module', '-e', script], { encoding: 'utf8' }).trim() === 'true';
}

/** The write end of a pipe into `sh -c script`: node opened it non-blocking. */
function pipeInto(script: string) {
  const child = spawn('sh', ['-c', script], { stdio: ['pipe', 'ignore', 'inherit'] });
  const fd = (child.stdin as unknown as { _handle: { fd: number } })._handle.fd;
  return { child, fd, exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) };
}

test('a file: each write lands at once (no buffer of its own)', () => {
  const file = join(tempDir('fd-writer'), 'log');
  const fd = openSync(file, 'w');
  const w = fdWriter(fd);
  w.write('one\n');
  assert.is(readFileSync(file, 'utf8'), 'one\n');
  w.write('two\n');
  assert.is(readFileSync(file, 'utf8'), 'one\ntwo\n');
  closeSync(fd);
  const fresh = join(tempDir('fd-writer'), 'log');
  assert.not.ok(sonicBoomLoadedBy(fresh, ['one\n', 'two\n']), 'sonic-boom loaded for writes that never blocked');
  assert.is(readFileSync(fresh, 'utf8'), 'one\ntwo\n');
});

test('a full non-blocking pipe: sonic-boom waits for the reader, and all 1 MiB arrives whole and in order', async () => {
  const out = join(tempDir('fd-writer'), 'read');
  // The reader starts late: the pipe (64 KiB) fills first, so a write meets EAGAIN or is cut short.
  const { child, fd, exited } = pipeInto(`sleep 0.3; cat > ${out}`);
  const w = fdWriter(fd);
  const lines = Array.from({ length: 16_384 }, (_, i) => `{"n":${i},"msg":"é${'x'.repeat(48)}"}\n`);
  for (let i = 0; i < lines.length; i += 64) w.write(lines.slice(i, i + 64).join(''));
  w.flushSync();
  child.stdin!.end();
  assert.is(await exited, 0);
  const text = readFileSync(out, 'utf8');
  assert.is(text.length, lines.join('').length);
  assert.ok(text === lines.join(''), 'bytes lost, doubled or out of order');
  assert.ok(sonicBoomLoaded(), 'the blocked write did not go through sonic-boom');
});

test('a reader that closed its end: writes stop at the first EPIPE, nothing is thrown', async () => {
  const { child, fd, exited } = pipeInto('exec 0<&-; sleep 0.3');
  await new Promise((r) => setTimeout(r, 100));
  const w = fdWriter(fd);
  assert.not.throws(() => { for (let i = 0; i < 10; i++) w.write('{"msg":"after the reader left"}\n'); w.flushSync(); });
  assert.is(await exited, 0);
});

test.run();
