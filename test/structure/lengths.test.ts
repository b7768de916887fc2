// Short enough to read (issues 27, 41): no function in src/ longer than 80 lines, no file there
// longer than 300. Every function-like node counts (declarations, expressions, arrows, methods,
// constructors, accessors), measured from its first to its last line.
// The second test proves the check can fail by measuring planted sources.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import type TS from 'typescript';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';

// Required, not imported: an ESM import of a CommonJS package makes node scan its source for named
// exports first, which for typescript.js (9 MB) cost ~0.5 s of CPU.
const ts = createRequire(import.meta.url)('typescript') as typeof TS;
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 300;
const CHECKED = ['src'];

const test = suite('lengths');

function tsFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith('.ts') ? [path] : [];
  return readdirSync(path).sort().flatMap((name) => tsFiles(join(path, name)));
}

/** What a reader would call the function: its own name, or the name it is assigned or passed to. */
function nameOf(node: TS.SignatureDeclaration, source: TS.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(source).slice(0, 40)}>`;
  return '<anonymous>';
}

/** Every function-like node longer than the limit and the file itself if it is, as `file:line name (N lines)`. */
function overLength(file: string, text: string): string[] {
  const found: string[] = [];
  const fileLines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (fileLines > MAX_FILE_LINES) found.push(`${file}: file (${fileLines} lines > ${MAX_FILE_LINES})`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node: TS.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push(`${file}:${first + 1} ${nameOf(node, source)} (${lines} lines > ${MAX_FUNCTION_LINES})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`no function over ${MAX_FUNCTION_LINES} lines and no file over ${MAX_FILE_LINES} in ${CHECKED.join(', ')}`, () => {
  const files = CHECKED.flatMap((p) => tsFiles(join(ROOT, p)));
  assert.ok(files.length > 20, `only ${files.length} .ts files found under ${CHECKED.join(', ')}`);
  const found = files.flatMap((f) => overLength(relative(ROOT, f), readFileSync(f, 'utf8')));
  assert.ok(found.length === 0, `${found.length} too long (split by responsibility):\n  ${found.join('\n  ')}`);
});

test('the check names a long function, arrow, method and accessor, and a long file; short ones pass', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
  const planted = [
    `export function longDeclared() {\n  let x = 0;\n${body(78)}\n}`, // 81 lines
    `export const longArrow = () => {\n  let x = 0;\n${body(78)}\n};`,
    `class C {\n  longMethod() {\n    let x = 0;\n${body(78)}\n  }\n  get longGetter() {\n    let x = 0;\n${body(78)}\n    return x;\n  }\n}`,
    `setTimeout(function () {\n  let x = 0;\n${body(78)}\n});`,
    `export function justFits() {\n  let x = 0;\n${body(77)}\n}`, // 80 lines
  ].join('\n');
  const found = overLength('planted.ts', `${planted}\n`);
  const names = found.map((f) => f.replace(/^planted\.ts:\d+ /, ''));
  assert.ok(found.some((f) => /^planted\.ts: file \(\d+ lines > 300\)$/.test(f)), `long file not named: ${found.join('; ')}`);
  assert.ok(found.includes('planted.ts:1 longDeclared (81 lines > 80)'), `longDeclared not named: ${found.join('; ')}`);
  for (const name of ['longArrow (81', 'longMethod (81', 'longGetter (82', '<callback of setTimeout> (81']) {
    assert.ok(names.some((n) => n.startsWith(name)), `${name} lines) not named: ${found.join('; ')}`);
  }
  assert.not.ok(found.some((f) => f.includes('justFits')), 'an 80-line function is within the limit');
  assert.equal(overLength('short.ts', 'export const f = () => 1;\n'), [], 'a short file with a short function passes');
});

test.run();
