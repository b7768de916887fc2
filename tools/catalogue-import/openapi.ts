// Reading an OpenAPI 3 description into catalogue terms: operations, parameters (with $ref resolved)
// and the JSON Schema fragments the catalogue keeps. Shared by import-openapi.ts (the generic
// importer) and bootstrap-exchange.ts (which overlays OpenAPI types, enums and limits on client data).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const HTTP_METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, any>;
}

export interface OpenApiOperation {
  method: string; // upper case
  path: string;
  summary?: string;
  description?: string;
  tags: string[];
  parameters: OpenApiParameter[];
  /** Security requirement objects of the operation (or the document's default). */
  security: Record<string, string[]>[];
  hasRequestBody: boolean;
}

export interface OpenApiDocument {
  file: string;
  operations: OpenApiOperation[];
  byKey: Map<string, OpenApiOperation>;
  securitySchemes: Record<string, any>;
}

/** Read an OpenAPI 3 document (YAML or JSON) and list its operations with parameters resolved. */
export function readOpenApi(file: string): OpenApiDocument {
  const doc = parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 }) as Record<string, any>;
  if (!doc || typeof doc !== 'object' || !doc.paths) throw new Error(`${file}: not an OpenAPI document (no "paths")`);
  const resolve = (obj: any): any => {
    let cur = obj;
    for (let hops = 0; cur && typeof cur === 'object' && typeof cur.$ref === 'string'; hops++) {
      if (hops > 20 || !cur.$ref.startsWith('#/')) throw new Error(`${file}: cannot resolve $ref ${cur.$ref}`);
      cur = cur.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
      if (cur === undefined) throw new Error(`${file}: dangling $ref ${obj.$ref}`);
    }
    return cur;
  };
  const operations: OpenApiOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const shared = (item.parameters ?? []).map(resolve);
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!op) continue;
      const own: OpenApiParameter[] = (op.parameters ?? []).map(resolve);
      const names = new Set(own.map((p) => `${p.in} ${p.name}`));
      const parameters = [...shared.filter((p: OpenApiParameter) => !names.has(`${p.in} ${p.name}`)), ...own].map((p) => ({
        ...p, schema: p.schema ? resolve(p.schema) : undefined,
      }));
      operations.push({
        method: m.toUpperCase(), path, summary: op.summary, description: op.description, tags: op.tags ?? [],
        parameters, security: op.security ?? doc.security ?? [], hasRequestBody: !!op.requestBody,
      });
    }
  }
  return {
    file, operations, byKey: new Map(operations.map((o) => [`${o.method} ${o.path}`, o])),
    securitySchemes: doc.components?.securitySchemes ?? {},
  };
}

/**
 * The catalogue's security scheme of an operation: SIGNED when it takes a `signature` parameter,
 * API_KEY when it requires an apiKey scheme (or its summary says USER_STREAM/MARKET_DATA with a key),
 * else NONE.
 */
export function operationSecurity(op: OpenApiOperation, schemes: Record<string, any> = {}): 'NONE' | 'API_KEY' | 'SIGNED' {
  if (op.parameters.some((p) => p.name === 'signature')) return 'SIGNED';
  const requiresKey = op.security.some((req) => Object.keys(req).some((k) => !schemes[k] || schemes[k].type === 'apiKey'));
  if (requiresKey) return 'API_KEY';
  if (/\((USER_DATA|TRADE|MARGIN)\)/.test(op.summary ?? '')) return 'SIGNED';
  return 'NONE';
}

/**
 * A catalogue parameter schema from an OpenAPI one. Values arrive as query-string text that the
 * gateway coerces, so only type (string/integer/number/boolean), enum, minimum/maximum and
 * min/maxLength are kept; arrays become strings (they travel as "A,B" or JSON array text).
 */
export function catalogueSchema(s: Record<string, any> | undefined): Record<string, unknown> {
  if (!s) return { type: 'string' };
  const out: Record<string, unknown> = {};
  const type = s.type === 'array' || s.type === 'object' || !s.type ? 'string' : s.type;
  out.type = type;
  if (Array.isArray(s.enum) && type !== 'boolean') out.enum = s.enum.map((v: unknown) => (type === 'string' ? String(v) : v));
  for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength']) {
    if (typeof s[k] === 'number') out[k] = s[k];
  }
  return out;
}

/** A file-name slug for a tag: "Sub-Account" → "sub-account", "Simple Earn" → "simple-earn". */
export function slug(tag: string): string {
  return tag.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'default';
}
