// The three dated evidence files about the real exchange API, normalised to one shape per source:
//   openapi    binance-spot-api-openapi-v1.22.0.yaml (2024-10-08, before the 3.12.0 pin)
//   docs       binance-spot-docs-2025-01-09.json    (the spot REST docs on the pin's date; /api/v3 only)
//   connectors binance-modular-connectors-2025-03-28.json (every REST method of the modular JS connectors, after the pin)
// Signing parameters (timestamp, signature, recvWindow) are left out: service.yaml declares them.
import { readFileSync } from 'node:fs';
import { cacheDirFrom } from '../../src/config.js';
import { parseYamlData } from '../../src/catalogue/yaml-file.js';
import { dataFile } from '../helpers/seed.js';

export type SourceName = 'openapi' | 'docs' | 'connectors';

export interface EvidenceParam {
  name: string;
  required: boolean;
  /** Values the source lists for the parameter, when it lists them. */
  values?: string[];
  /** The source says the value is a list. */
  list?: boolean;
}

export interface EvidenceEndpoint {
  key: string;
  /** null when the source does not say (the docs JSON). */
  signed: boolean | null;
  params: EvidenceParam[];
  /**
   * The endpoint's weight in the source (OpenAPI description): a fixed value and the limit counting it,
   * 'conditional' when the description makes it depend on the request, undefined when it says none.
   */
  weight?: { value: number; per: 'IP' | 'UID' } | 'conditional';
}

export type Evidence = Map<string, EvidenceEndpoint>;

const SIGNING = new Set(['timestamp', 'signature', 'recvWindow']);

let cache: Record<SourceName, Evidence> | undefined;

export function loadEvidence(): Record<SourceName, Evidence> {
  cache ??= { openapi: openapi(), docs: docs(), connectors: connectors() };
  return cache;
}

function openapi(): Evidence {
  const spec = parseYamlData(readFileSync(dataFile('binance-spot-api-openapi-v1.22.0.yaml'), 'utf8'), cacheDirFrom(), { maxAliasCount: -1 }) as any;
  const out: Evidence = new Map();
  for (const [path, ops] of Object.entries<any>(spec.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const raw = (op.parameters ?? []).map((p: any) => (p.$ref ? spec.components.parameters[p.$ref.split('/').at(-1)] : p));
      const params: EvidenceParam[] = [];
      for (const p of raw) {
        if (p.in !== 'query' || SIGNING.has(p.name)) continue;
        const s = p.schema ?? {};
        const values = s.enum ?? s.items?.enum;
        params.push({ name: p.name, required: !!p.required, values: values?.map(String), list: s.type === 'array' });
      }
      // Form bodies carry the parameters of POST/PUT/DELETE operations.
      const form = op.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
      const formSchema = form?.$ref ? spec.components.schemas[form.$ref.split('/').at(-1)] : form;
      for (const [name, s] of Object.entries<any>(formSchema?.properties ?? {})) {
        if (SIGNING.has(name)) continue;
        const values = s.enum ?? s.items?.enum;
        params.push({ name, required: (formSchema.required ?? []).includes(name), values: values?.map(String), list: s.type === 'array' });
      }
      const signed = raw.some((p: any) => p.name === 'signature') || 'signature' in (formSchema?.properties ?? {});
      out.set(key, { key, signed, params, weight: weightIn(op.description ?? '') });
    }
  }
  return out;
}

/** "Weight(IP): 5" (alone on its line: a fixed weight) or a Weight heading followed by cases. */
function weightIn(description: string): EvidenceEndpoint['weight'] {
  const fixed = /^\s*Weight(?:\((IP|UID)\))?\s*:\s*`?(\d+)`?'?\s*$/im.exec(description);
  if (fixed) return { value: Number(fixed[2]), per: fixed[1] === 'UID' ? 'UID' : 'IP' };
  return /Weight(\((IP|UID)\))?\s*[:|]/i.test(description) ? 'conditional' : undefined;
}

/** Backticked upper-case words of a description that lists values ("Supported values: `A`, `B`"). */
function valuesIn(description: string): string[] | undefined {
  if (!/values|Valid|`[A-Z_]+`\s*\/\s*`/.test(description)) return undefined;
  // Not the words of a sentence about values: "status is `NEW`", "`MARKET` and `LIMIT` orders default to…".
  const found = [...description.matchAll(/`\s*([A-Z][A-Z0-9_]*)\s*`/g)]
    .filter((m) => !/\b(is|and|to)\s*$/.test(description.slice(0, m.index)) && !/^\s*(and|orders?|order types?)\b/.test(description.slice(m.index! + m[0].length)))
    .map((m) => m[1]);
  return found.length ? [...new Set(found)] : undefined;
}

function docs(): Evidence {
  const file = JSON.parse(readFileSync(dataFile('binance-spot-docs-2025-01-09.json'), 'utf8')) as {
    endpoints: { key: string; params: { name: string; mandatory: string; type: string; description: string }[]; inherits?: string }[];
  };
  const out: Evidence = new Map();
  for (const e of file.endpoints) {
    const own = e.params.filter((p) => !SIGNING.has(p.name)).map((p) => ({
      name: p.name, required: /^yes$/i.test(p.mandatory), list: /ARRAY/.test(p.type),
      values: p.type === 'ENUM' ? valuesIn(p.description ?? '') : undefined,
    }));
    out.set(e.key, { key: e.key, signed: null, params: own });
  }
  for (const e of file.endpoints) {
    if (!e.inherits) continue;
    const self = out.get(e.key)!;
    const names = new Set(self.params.map((p) => p.name));
    self.params.push(...(out.get(e.inherits)?.params ?? []).filter((p) => !names.has(p.name)));
  }
  return out;
}

function connectors(): Evidence {
  const file = JSON.parse(readFileSync(dataFile('binance-modular-connectors-2025-03-28.json'), 'utf8')) as {
    methods: { key: string; signed: boolean; params: { name: string; required: boolean; type: string }[] }[];
  };
  const out: Evidence = new Map();
  for (const m of file.methods) {
    const params = m.params.filter((p) => !SIGNING.has(p.name)).map((p) => ({ name: p.name, required: p.required, list: /^Array</.test(p.type) }));
    out.set(m.key, { key: m.key, signed: m.signed, params });
  }
  return out;
}
