// Every example in README.md and docs/*.md is true: each fenced block says what it is, and
//   ```sh / ```bash   runs, every command with status 0;
//   ```console        runs its `$ ` commands and shows what they print (`…` stands for any text on a
//                     line, a line of `…` alone for any lines);
//   ```http           is sent to the page's gateway (started with the defaults when the page started
//                     none) and answered as it shows (./session.ts, Session.http);
//   ```yaml / ```json parses;
//   ```text           is a diagram or a layout, not an example;
// unless the line before its fence is `<!-- not run: <reason> -->` with a reason. The shell examples
// of a page run in order as one session (./session.ts: gateways and tools in this process, a copy of
// the catalogue, ports mapped), so a tour that starts a gateway in one block calls it in the next.
// Relative links (files and #anchors) must lead somewhere, and files of the checkout named in prose
// (`src/…`, `test/…`) must exist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { blocks, brokenLinks, docFiles, missingPaths, type Block } from './markdown.js';
import { matches, Session } from './session.js';

const RUN = new Set(['sh', 'bash', 'console', 'http']);
const PARSE = new Set(['yaml', 'json']);
const FILES = docFiles(ROOT);
const where = (b: Block) => `${b.file}:${b.line}`;

test('the documentation is README.md and a page per topic under docs/', () => {
  assert.ok(FILES.length > 10, `${FILES.length} files`);
  assert.ok(readFileSync(join(ROOT, 'README.md')).length <= 16_000, 'README.md is at most 16 000 bytes');
  const first60 = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 60).join('\n');
  for (const cmd of ['npm install', 'npm start', 'npm test']) assert.ok(first60.includes(cmd), `${cmd} within the README's first 60 lines`);
});

test('every block says what it is, and every "not run" mark says why', () => {
  const bad: string[] = [];
  for (const file of FILES) {
    for (const b of blocks(ROOT, file)) {
      if (b.notRun === '') bad.push(`${where(b)}: "not run" without a reason`);
      else if (b.notRun === undefined && !RUN.has(b.lang) && !PARSE.has(b.lang) && b.lang !== 'text') {
        bad.push(`${where(b)}: a \`\`\`${b.lang || '(no language)'} block is neither run nor parsed: use sh, console, http, yaml, json or text, or mark it <!-- not run: <reason> -->`);
      }
    }
  }
  assert.equal(bad, [], bad.join('\n'));
});

test('yaml and json blocks parse', () => {
  const bad: string[] = [];
  let n = 0;
  for (const file of FILES) {
    for (const b of blocks(ROOT, file).filter((x) => PARSE.has(x.lang) && x.notRun === undefined)) {
      n++;
      try {
        if (b.lang === 'json') JSON.parse(b.text);
        else for (const doc of YAML.parseAllDocuments(b.text)) if (doc.errors.length) throw doc.errors[0];
      } catch (e) {
        bad.push(`${where(b)}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  }
  assert.ok(n > 10, `${n} blocks parsed`);
  assert.equal(bad, [], bad.join('\n'));
});

test('relative links lead to a file and a heading', () => {
  const broken = FILES.flatMap((f) => brokenLinks(ROOT, f));
  assert.equal(broken, [], broken.join('\n'));
});

test('files of the checkout named in the documentation exist', () => {
  const missing = FILES.flatMap((f) => missingPaths(ROOT, f));
  assert.equal(missing, [], `named in the documentation but not in the checkout (moved? update the page):\n${missing.join('\n')}`);
});

/** The commands of a block, each with the output it shows (console) or null (sh). */
function commands(b: Block): { cmd: string; expect: string | null }[] {
  const lines = b.text.split('\n');
  const out: { cmd: string; expect: string | null }[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (b.lang === 'console') {
      if (!line.startsWith('$ ')) {
        if (out.length) out.at(-1)!.expect += `${line}\n`;
        else if (line.trim()) throw new Error(`${where(b)}: a console block begins with a "$ " command`);
        continue;
      }
      line = line.slice(2);
    } else if (!line.trim() || line.trim().startsWith('#')) continue;
    let cmd = line;
    while (cmd.endsWith('\\') && i + 1 < lines.length) cmd = `${cmd.slice(0, -1)} ${lines[++i].trim()}`;
    const here = /<<-?\s*'?(\w+)'?/.exec(cmd);
    if (here) {
      while (i + 1 < lines.length) {
        cmd += `\n${lines[++i]}`;
        if (lines[i].trim() === here[1]) break;
      }
    }
    out.push({ cmd, expect: b.lang === 'console' ? '' : null });
  }
  return out;
}

for (const file of FILES) {
  const runnable = blocks(ROOT, file).filter((b) => RUN.has(b.lang) && b.notRun === undefined);
  if (!runnable.length) continue;
  test(`the shell examples of ${file} run and print what they show`, async () => {
    const session = new Session();
    const cwd = process.cwd();
    process.chdir(session.dir); // the gateway reads its relative paths (tokens file, catalogue) from here
    const failed: string[] = [];
    try {
      for (const b of runnable) {
        if (b.lang === 'http') {
          const diff = await session.http(b.text);
          if (diff) failed.push(`${where(b)}: the answer differs from the one shown:\n${diff}`);
          continue;
        }
        for (const { cmd, expect } of commands(b)) {
          const t0 = performance.now();
          const r = await session.run(cmd);
          if (process.env.DOCS_TIMING) console.log(`${Math.round(performance.now() - t0)} ms  ${where(b)}: ${cmd.split('\n')[0].slice(0, 100)}`);
          if (expect === null ? r.status !== 0 : !matches(r.output, expect)) {
            failed.push(`${where(b)}: ${cmd.split('\n')[0]}\n--- shows:\n${expect ?? '(status 0)'}\n--- printed (status ${r.status}):\n${r.output}`);
          }
        }
      }
    } finally {
      await session.close();
      process.chdir(cwd);
    }
    assert.equal(failed, [], failed.join('\n\n'));
  });
}

test.run();
