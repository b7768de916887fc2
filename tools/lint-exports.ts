// npm run lint:exports: the OpenAPI export at EVERY release through Redocly's recommended ruleset
// (0 errors required) and swagger-parser, and the AsyncAPI export at every release that has a
// websocket side through @asyncapi/parser. npm test checks a few releases; this checks them all.
//   lint:exports [--catalogue <dir>]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue } from '../src/catalogue/load.js';
import { cacheDirFrom } from '../src/config.js';
import { pinViews } from '../src/catalogue/pin.js';
import { toAsyncApi } from '../src/catalogue/to-asyncapi.js';
import { toOpenApi } from '../src/catalogue/to-openapi.js';
import { flag, parseArgs, UsageError } from '../src/args.js';
import { asyncApiErrors, redoclyLint, swaggerValidate } from './export-checks.js';

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['catalogue']);
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
  const releases = [...new Set(catalogue.services.flatMap((s) => s.releases.map((r) => r.id)))];
  const dir = mkdtempSync(join(tmpdir(), 'lint-exports-'));
  let failures = 0;
  try {
    const files: string[] = [];
    for (const id of releases) {
      const views = pinViews(catalogue, { all: id, byService: {} });
      const openapi = toOpenApi(views);
      const file = join(dir, `openapi-${id}.json`);
      writeFileSync(file, JSON.stringify(openapi));
      files.push(file);
      try {
        await swaggerValidate(openapi);
      } catch (e) {
        failures++;
        console.log(`${id}: swagger-parser: ${(e as Error).message}`);
      }
      if (views.some((v) => v.streams.length || v.wsMethods.length)) {
        const errors = await asyncApiErrors(toAsyncApi(views));
        failures += errors.length;
        for (const e of errors) console.log(`${id}: asyncapi: ${e}`);
      }
    }
    const reports = redoclyLint(files);
    reports.forEach((r, i) => {
      for (const p of r.problems.filter((x) => x.severity === 'error')) console.log(`${releases[i]}: redocly ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
      failures += r.totals.errors;
      console.log(`${releases[i]}: redocly ${r.totals.errors} error(s), ${r.totals.warnings} warning(s)`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${releases.length} release(s) checked: ${failures ? `${failures} problem(s)` : 'OpenAPI and AsyncAPI exports valid, 0 redocly errors'}`);
  return failures ? 1 : 0;
}

const USAGE = 'usage: npm run lint:exports -- [--catalogue <dir>]\nChecks the OpenAPI and AsyncAPI exports of every release (Redocly, swagger-parser, the AsyncAPI parser).';
// runTool is synchronous; the checkers are not.
if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) console.log(USAGE);
else main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e: unknown) => {
    console.error(`error: ${(e as Error)?.message ?? String(e)}`);
    if (e instanceof UsageError) console.error(USAGE);
    process.exitCode = e instanceof UsageError ? 2 : 1;
  },
);
