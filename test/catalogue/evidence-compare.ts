// The catalogue at one release compared with the evidence files (test/catalogue/evidence-sources.ts): every
// disagreement, with the note that answers it (the parameter's, else the endpoint's), if any.
import type { Parameter, Service } from '../../src/catalogue/model.js';
import { resolveService, type EndpointAt } from '../../src/catalogue/resolve.js';
import { loadEvidence, type EvidenceEndpoint, type SourceName } from './evidence-sources.js';

export interface Disagreement {
  key: string;
  param?: string;
  source: SourceName;
  what: string;
  /** The note on the item it concerns (the parameter, else the endpoint), if any. */
  note?: string;
}

const SOURCES: SourceName[] = ['openapi', 'docs', 'connectors'];
/** How a note names each source. */
const NAMES: Record<SourceName, RegExp> = { openapi: /openapi/i, docs: /\bdocs?\b/i, connectors: /connector/i };

/** A disagreement is answered by a note that names the disagreeing source. */
export const answered = (d: Disagreement): boolean => d.note !== undefined && NAMES[d.source].test(d.note);

export function compareWithEvidence(service: Service, PIN: string): { all: Disagreement[]; info: string[] } {
  const view = resolveService(service, PIN);
  const evidence = loadEvidence();
  const SIGNING = new Set(service.signedParameters.map((p) => p.name));
  const acceptsSigning = (path: string) => service.commonParameters.some((p) => SIGNING.has(p.name) && p.pathPrefix && path.startsWith(p.pathPrefix));
  const byKey = new Map(view.endpoints.map((e) => [e.endpoint.key, e]));
  const served = new Map(view.served.map((e) => [e.endpoint.key, e]));
  const alive = (e: EndpointAt, name: string): Parameter | undefined => e.parameters.find((p) => p.name === name);
  const valuesOf = (p: Parameter): string[] | undefined => {
    if (p.enum) return view.enumValues(p.enum).map((v) => v.value);
    const s = p.schema as { enum?: unknown[]; items?: { enum?: unknown[] } };
    return (s.enum ?? s.items?.enum)?.map(String);
  };

  function compareEndpoint(e: EndpointAt, ev: EvidenceEndpoint, source: SourceName, out: Disagreement[]): void {
    const key = e.endpoint.key;
    const endpointNote = e.endpoint.note;
    const add = (what: string, param?: Parameter | string) => {
      const p = typeof param === 'string' ? e.knownParameters.find((x) => x.name === param) : param;
      out.push({ key, param: typeof param === 'string' ? param : param?.name, source, what, note: p?.note ?? endpointNote });
    };
    if (ev.signed === false && e.security === 'SIGNED') add(`security: catalogue SIGNED, ${source} unsigned`);
    if (ev.signed === true && e.security !== 'SIGNED' && !acceptsSigning(e.endpoint.path)) add(`security: catalogue ${e.security}, ${source} SIGNED (timestamp/signature refused under --strict)`);
    const names = new Set(ev.params.map((p) => p.name));
    for (const q of ev.params) {
      const p = alive(e, q.name);
      if (!p) {
        add(`parameter ${q.name} (${q.required ? 'required' : 'optional'} in ${source}) not taken at ${PIN}`, q.name);
        continue;
      }
      if (p.required && !q.required) add(`parameter ${q.name}: required in the catalogue, optional in ${source}`, p);
      if (q.list && p.schema.type !== 'array' && !p.note) add(`parameter ${q.name}: a list in ${source}, a scalar in the catalogue`, p);
      const mine = valuesOf(p);
      if (mine && q.values) {
        const missing = q.values.filter((v) => !mine.includes(v));
        if (missing.length) add(`parameter ${q.name}: ${source} values ${missing.join(', ')} refused at ${PIN}`, p);
        // Only the docs of the pin's date bound the values from above.
        const extra = source === 'docs' ? mine.filter((v) => !q.values!.includes(v)) : [];
        if (extra.length) add(`parameter ${q.name}: catalogue accepts ${extra.join(', ')}, not in the ${source} at the pin`, p);
      }
    }
    for (const p of e.parameters) {
      if (p.required && !SIGNING.has(p.name) && !names.has(p.name) && p.in !== 'header') add(`parameter ${p.name}: required in the catalogue, absent from ${source}`, p);
    }
  }

  function disagreements(): { all: Disagreement[]; info: string[] } {
    const all: Disagreement[] = [];
    const info: string[] = [];
    for (const source of SOURCES) {
      for (const ev of evidence[source].values()) {
        const e = served.get(ev.key);
        if (e) {
          compareEndpoint(e, ev, source, all);
          continue;
        }
        const known = byKey.get(ev.key);
        if (known) all.push({ key: ev.key, source, what: `in ${source}, but ${known.status} at ${PIN} in the catalogue`, note: known.endpoint.note });
        else if (source === 'connectors') info.push(`${ev.key}: in the connectors (after the pin) only`);
        else all.push({ key: ev.key, source, what: `in ${source} (before or at the pin), missing from the catalogue` });
      }
    }
    return { all, info };
  }

  return disagreements();
}
