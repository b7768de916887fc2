// The field tables of docs/catalogue-format.md, rendered from the catalogue's own JSON Schema
// (catalogue/schema/catalogue.schema.json, which the loader applies), so the page cannot list a
// field the loader refuses or miss one it reads. test/docs/fields.test.ts compares them;
// `node dist/test/docs/fields.js --write` puts them between the page's fields markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startedOn } from '../../src/cli/entry.js';
import { ROOT } from '../support/processes.js';

type Schema = {
  $ref?: string; description?: string; properties?: Record<string, Schema>; items?: Schema;
  oneOf?: Schema[]; anyOf?: Schema[]; required?: string[]; type?: string | string[]; enum?: unknown[];
};

/** The tables, one per kind of item, in the order a reader meets them. */
export const SECTIONS: [string, string][] = [
  ['serviceFile', 'service.yaml'],
  ['rateLimit', 'service.yaml: a rate limit (`rateLimits:`)'],
  ['builderDef', 'service.yaml: a builder (`builders:`)'],
  ['releasesFile', 'releases.yaml'],
  ['endpointsFile', 'endpoints/*.yaml'],
  ['endpoint', 'an endpoint'],
  ['parameter', 'a parameter (endpoints, websocket-API methods, `commonParameters`)'],
  ['constraint', 'a constraint (`constraints:`)'],
  ['securityEntry', 'a security entry (when the requirement changed between releases)'],
  ['weightRule', 'a weight rule (conditional `weight:`)'],
  ['enumsFile', 'enums.yaml'],
  ['enumValue', 'an enum value'],
  ['streamsFile', 'streams.yaml'],
  ['stream', 'a stream'],
  ['placeholder', 'a stream placeholder'],
  ['wsApiFile', 'ws-api.yaml'],
  ['wsMethod', 'a websocket-API method'],
  ['changesFile', 'changes.yaml'],
  ['change', 'a version change'],
  ['unbridgeable', 'an unbridgeable removal'],
  ['notServedFile', 'not-served.yaml'],
  ['notServed', 'an endpoint not served'],
];

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function rows(defs: Record<string, Schema>, s: Schema, prefix: string, required: Set<string>): string[] {
  const out: string[] = [];
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    const key = `${prefix}${name}`;
    const ref = p.$ref?.replace('#/$defs/', '') ?? p.items?.$ref?.replace('#/$defs/', '');
    const what = p.description ?? (ref ? defs[ref]?.description : undefined) ?? '';
    const see = ref && SECTIONS.some(([d]) => d === ref) && ref !== 'parameter' ? ` (see ${SECTIONS.find(([d]) => d === ref)![1]})` : '';
    out.push(`| \`${key}\`${required.has(name) ? ' (required)' : ''} | ${cell(what)}${see} |`);
    const inner = p.properties ? p : p.items?.properties ? p.items : undefined;
    if (inner) out.push(...rows(defs, inner, `${key}${inner === p ? '.' : '[].'}`, new Set(inner.required ?? [])));
  }
  return out;
}

/** The Markdown between the fields markers of docs/catalogue-format.md. */
export function fieldTables(): string {
  const defs = (JSON.parse(readFileSync(join(ROOT, 'catalogue/schema/catalogue.schema.json'), 'utf8')) as { $defs: Record<string, Schema> }).$defs;
  return SECTIONS.map(([def, title]) => {
    const s = defs[def];
    const variant = s.properties ? s : (s.oneOf ?? s.anyOf ?? []).find((v) => v.properties) ?? s;
    return [`#### ${title}`, '', '| field | meaning |', '|---|---|', ...rows(defs, variant, '', new Set(variant.required ?? []))].join('\n');
  }).join('\n\n');
}

export const PAGE = join(ROOT, 'docs/catalogue-format.md');
export const MARKED = /(<!-- fields:start[^>]*-->\n)[\s\S]*?(\n<!-- fields:end -->)/;

if (startedOn(import.meta.url) && process.argv.includes('--write')) {
  const text = readFileSync(PAGE, 'utf8');
  if (!MARKED.test(text)) throw new Error('docs/catalogue-format.md has no fields markers');
  writeFileSync(PAGE, text.replace(MARKED, (_m, a: string, b: string) => `${a}${fieldTables()}${b}`));
  console.log('docs/catalogue-format.md: field tables written');
}
