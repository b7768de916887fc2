// What a description of the upstream says at one release, in catalogue terms: its operations, their
// parameters (as the catalogue would write them, service-level ones left out; path parameters and
// the fields of a JSON body included), enum values and deprecation flags. Read from an OpenAPI 3 document here and from a method table in method-table.ts;
// release-import.ts compares it with the catalogue.
import { basename } from 'node:path';
import { entryOf, serviceDefaults } from './entry.js';
import { serverPath, serviceFromOpenApi } from './import-openapi.js';
import { readOpenApi, slug, type OpenApiDocument } from './openapi.js';
import { SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export type SecurityScheme = 'NONE' | 'API_KEY' | 'SIGNED';

export interface DescParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'body';
  required: boolean;
  deprecated: boolean;
  /** The catalogue parameter this description would write (schema with an inline enum, if any). */
  entry: Record<string, any>;
  /** String enum values, when the description restricts the parameter to a list. */
  values?: string[];
  /** The OpenAPI component the parameter was given by ($ref), naming its enum. */
  ref?: string;
  /** The description states a type (OpenAPI); a method table may not. */
  typed: boolean;
}

export interface DescOperation {
  key: string;
  method: string;
  path: string;
  /** File name (without .yaml) a new entry goes to when no catalogue module is nearer. */
  module: string;
  deprecated: boolean;
  replacement?: string;
  /** Security the description states (undefined: it does not say). */
  security?: SecurityScheme;
  /** The description says only that its client does not sign the call (a method table's `signed: false`): NONE or API_KEY, it does not tell which. */
  unsigned?: boolean;
  /** null: the description names parameters unreliably (compared by nobody, imported by nobody). */
  parameters: DescParameter[] | null;
  /** Why `parameters` is null. */
  parametersNote?: string;
  /** The catalogue entry of a new operation (without lifecycle and without its parameters' named enums). */
  entry: Record<string, any>;
  /** The first OpenAPI tag (--tags selects by it). */
  tag?: string;
}

export interface Description {
  kind: 'openapi' | 'method-table';
  file: string;
  /** How entries cite it: `openapi <file> (version v)` / `method table <file>`. */
  label: string;
  operations: DescOperation[];
  /** Items the description has that the catalogue cannot hold, with the reason. */
  skipped: string[];
  /** Notes on operations imported not quite as written (also in the entries' note). */
  warnings: string[];
  /** Operations left out by the --paths filter. */
  leftOut: number;
  /** OpenAPI only: the document, to write service.yaml of a new service. */
  openapi?: OpenApiDocument;
  /** Named schemas the body fields refer to (`#/$defs/<Name>`), for service.yaml `schemas:`. */
  schemas: Record<string, unknown>;
}

/** Which operations an import looks at, on both sides: path prefixes and OpenAPI first tags (both given: both must hold). */
export interface Selection {
  paths?: readonly string[];
  tags?: readonly string[];
}

/** Keep only operations whose path starts with one of `paths` (none: keep all). */
export function inPaths(path: string, paths: readonly string[] | undefined): boolean {
  return !paths?.length || paths.some((p) => path.startsWith(p));
}

/** Keep only operations whose first tag is one of `tags` (none: keep all). */
export function inTags(tag: string | undefined, tags: readonly string[] | undefined): boolean {
  return !tags?.length || (tag !== undefined && tags.includes(tag));
}

/** An OpenAPI 3 document (YAML or JSON; $refs and path-level parameters resolved). */
export function openApiDescription(file: string, service: Record<string, any> | null, select: Selection = {}, limits: SourceLimits = SOURCE_LIMITS): Description {
  const spec = readOpenApi(file, limits);
  const name = basename(file);
  const label = `openapi ${name}${spec.version ? ` (version ${spec.version})` : ''}`;
  // A new service takes its defaults from the document, as import-openapi writes its service.yaml.
  const defaults = serviceDefaults(service ?? serviceFromOpenApi(spec, 'new', name));
  const prefix = serverPath(spec);
  const out: Description = { kind: 'openapi', file, label, operations: [], skipped: [], warnings: [], leftOut: 0, openapi: spec, schemas: {} };
  for (const op of spec.operations) {
    const key = `${op.method} ${prefix}${op.path}`;
    if (!inPaths(prefix + op.path, select.paths) || !inTags(op.tags[0], select.tags)) {
      out.leftOut++;
      continue;
    }
    const notes: string[] = [];
    const entry = entryOf(op, spec, name, defaults, prefix, { notes, schemas: out.schemas });
    if (typeof entry === 'string') {
      out.skipped.push(`${key}: ${entry}`);
      continue;
    }
    out.warnings.push(...notes.map((n) => `${key}: ${n}`));
    entry.source = label;
    const byName = new Map(op.parameters.map((p) => [p.name, p]));
    const parameters: DescParameter[] = ((entry.parameters ?? []) as Record<string, any>[]).map((p) => {
      const raw = byName.get(p.name);
      const values = p.schema?.type === 'string' && Array.isArray(p.schema.enum) ? p.schema.enum.map(String) : undefined;
      return { name: p.name, in: p.in ?? 'query', required: p.required === true, deprecated: raw?.deprecated === true, entry: p, values, ref: raw?.ref, typed: true };
    });
    out.operations.push({
      key, method: op.method, path: prefix + op.path, module: slug(op.tags[0] ?? 'default'), tag: op.tags[0], deprecated: op.deprecated,
      replacement: op.replacement, security: entry.security as SecurityScheme, parameters, entry,
    });
  }
  return out;
}
