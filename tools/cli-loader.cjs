#!/usr/bin/env node
// The gateway's command, `dist/src/cli.cjs` (tools/bundle.ts copies this file there): it runs the
// bundle beside it, `cli.main.cjs`, with the V8 code cache `npm run build` made for that bundle, so
// the functions a start-up and a first answer run are not parsed and compiled again (start-up to
// the first 200 against a bare node:http server, `node dist/bench/startup.js 9`: 1.46-1.62 without
// it, 1.26-1.31 with it). Node 20 has no compile cache of its own for a script (22 has).
// The cache is named after the bundle's size and modification time, so a bundle written since is
// never run with another's cache; V8 itself refuses one made by another node or with other V8 flags
// (then the bundle is compiled as usual). Without a cache it runs the same, a little slower.
// GATEWAY_CODE_CACHE_OUT=1 (only tools/bundle.ts sets it): on SIGUSR2, write the cache of what this
// process has compiled so far, then exit.
'use strict';
const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

const main = join(__dirname, 'cli.main.cjs');
const { size, mtimeMs } = statSync(main);
const cacheFile = `${main}.${size}-${Math.trunc(mtimeMs)}.v8cache`;
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // none made (or not readable): compiled as usual
}
// Node's own CommonJS wrapper, on the bundle's first line: line numbers in stack traces stay right.
// The bundle is ASCII (tools/bundle.ts makes it so): latin1 is a plain copy of its bytes, ~1 ms
// less than decoding UTF-8, and gives V8 a one-byte string to scan.
const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(main, 'latin1').replace(/^#!.*/, '')}\n})`;
// The bundle has no import() (tools/bundle.ts makes those require()): a vm.Script's would need an
// experimental option.
const script = new Script(source, { filename: main, cachedData });
// Said in the gateway's start-up line at debug level.
globalThis[Symbol.for('catalogue-gateway.code-cache')] = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used';

if (process.env.GATEWAY_CODE_CACHE_OUT === '1') {
  delete process.env.GATEWAY_CODE_CACHE_OUT;
  process.once('SIGUSR2', () => {
    // src/heap-tuning.ts turns allocation-site pretenuring off at start-up; a cache keeps the V8
    // flags of the moment it is made, and a start-up compiles with the defaults: made with those.
    const v8 = require('node:v8');
    v8.setFlagsFromString('--allocation-site-pretenuring');
    const data = script.createCachedData();
    writeFileSync(`${cacheFile}.tmp`, data);
    renameSync(`${cacheFile}.tmp`, cacheFile);
    process.exit(0);
  });
}
script.runInThisContext()(module.exports, require, module, main, __dirname);
