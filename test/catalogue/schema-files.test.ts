// The catalogue as a file people edit: one root JSON Schema per file kind, named on the first line of
// every catalogue YAML file (yaml-language-server), a description on every property, and the reasons
// of errors.codes equal to the central table.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { cacheDirFrom } from '../../src/config.js';
import { parseYamlData } from '../../src/catalogue/yaml-file.js';
import { REASONS } from '../../src/catalogue/reasons.js';
import { ROOT } from '../support/processes.js';

const test = suite('catalogue schema files');
const DIR = join(ROOT, 'catalogue');
const SCHEMA = JSON.parse(readFileSync(join(DIR, 'schema/catalogue.schema.json'), 'utf8'));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'schema' ? [] : yamlFiles(p);
    return /\.ya?ml$/.test(n) ? [p] : [];
  });
}

/** The root schema a catalogue file must name, by its place in a service folder. */
const kindOf = (file: string) => (relative(DIR, file).split('/')[1] === 'endpoints' ? 'endpoints' : file.split('/').pop()!.replace(/\.ya?ml$/, ''));

test('the reasons allowed as errors.codes keys are exactly the central table', () => {
  const names = SCHEMA.$defs.serviceFile.properties.errors.properties.codes.propertyNames.enum;
  assert.equal(names, Object.keys(REASONS));
});

test('every catalogue YAML file names the root schema of its kind on its first line, and that file exists', () => {
  const files = yamlFiles(DIR);
  assert.ok(files.length >= 30, `${files.length} files`);
  for (const f of files) {
    const first = readFileSync(f, 'utf8').split('\n')[0];
    const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
    assert.ok(m, `${relative(ROOT, f)}: first line is not a yaml-language-server $schema line: ${first}`);
    const target = resolve(dirname(f), m![1]);
    assert.is(relative(DIR, target), `schema/${kindOf(f)}.schema.json`, relative(ROOT, f));
    assert.ok(existsSync(target), `${relative(ROOT, f)} names ${m![1]}, which does not exist`);
  }
});

test('every property in the schema has a description', () => {
  const missing: string[] = [];
  let seen = 0;
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`));
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && v && typeof v === 'object') {
        for (const [name, prop] of Object.entries(v)) {
          seen++;
          if (typeof (prop as { description?: unknown }).description !== 'string') missing.push(`${at}/properties/${name}`);
        }
      }
      if (k !== 'enum') walk(v, `${at}/${k}`);
    }
  };
  walk(SCHEMA, '#');
  assert.ok(seen > 100, `${seen} properties`);
  assert.equal(missing, []);
});

test('each root schema refers to the shared definitions and accepts the files of its kind', () => {
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema(SCHEMA);
  const base = new URL('.', SCHEMA.$id).href; // an editor resolves the root's relative $ref next to it
  const roots = readdirSync(join(DIR, 'schema')).filter((n) => n !== 'catalogue.schema.json');
  assert.equal(roots.sort(), ['changes', 'endpoints', 'enums', 'not-served', 'releases', 'service', 'streams', 'ws-api'].map((k) => `${k}.schema.json`));
  const byKind = new Map<string, string[]>();
  for (const f of yamlFiles(DIR)) byKind.set(kindOf(f), [...(byKind.get(kindOf(f)) ?? []), f]);
  for (const name of roots) {
    const root = JSON.parse(readFileSync(join(DIR, 'schema', name), 'utf8'));
    assert.match(root.$ref, /^catalogue\.schema\.json#\/\$defs\/\w+File$/, name);
    const validate = ajv.compile({ ...root, $id: new URL(name, base).href });
    const files = byKind.get(name.replace('.schema.json', '')) ?? [];
    assert.ok(files.length > 0, `no catalogue file of kind ${name}`);
    for (const f of files) assert.ok(validate(parseYamlData(readFileSync(f, 'utf8'), cacheDirFrom())), `${relative(ROOT, f)}: ${ajv.errorsText(validate.errors)}`);
    assert.not.ok(validate({ bogus: 1 }), `${name} rejects an unknown field`);
  }
});

test.run();
