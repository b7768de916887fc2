// The JSON output's contract (--format json), as a JSON Schema (draft 2020-12). `--format
// json-schema` prints it; test/diff/json-schema.test.ts validates real output against it, so the
// two cannot drift apart. Enumerations come from the code (kinds, severities, rule ids).
import { RULE_IDS } from './rules.js';
import { KINDS, SEVERITIES } from './types.js';

const where = {
  type: 'object',
  description: 'The YAML item that caused the change.',
  required: ['file', 'line'],
  additionalProperties: false,
  properties: {
    file: { type: 'string', description: 'Path relative to the catalogue folder, e.g. exchange/endpoints/margin.yaml.' },
    line: { type: 'integer', minimum: 0 },
  },
};

const enumUser = {
  type: 'object',
  description: 'A user of a named enum: a parameter of an endpoint or websocket-API method, or a stream placeholder.',
  required: ['name'],
  additionalProperties: false,
  properties: {
    endpoint: { type: 'string' },
    wsMethod: { type: 'string' },
    stream: { type: 'string' },
    name: { type: 'string' },
  },
};

export const DIFF_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://catalogue-gateway.invalid/schema/diff-output.schema.json',
  title: 'npm run diff -- --format json',
  description: 'Changes between two releases of a catalogue service, or (with --base) between a base catalogue and the working one, per release.',
  type: 'object',
  required: ['service', 'from', 'to', 'changes'],
  additionalProperties: false,
  properties: {
    service: { type: 'string' },
    from: { type: 'string', description: 'Release id, or the --base folder or git revision.' },
    to: { type: 'string', description: 'Release id, or "working catalogue" for a base diff.' },
    releases: { type: 'array', items: { type: 'string' }, description: 'Base diffs: the releases compared, oldest first.' },
    droppedReleases: { type: 'array', items: { type: 'string' }, description: 'Base diffs: releases of the base that the working catalogue deleted.' },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'severity', 'kind', 'release', 'message'],
        additionalProperties: false,
        properties: {
          id: { enum: [...RULE_IDS], description: 'Stable rule id (npm run diff -- --list-rules).' },
          severity: { enum: [...SEVERITIES] },
          kind: { enum: [...KINDS] },
          endpoint: { type: 'string', pattern: '^[A-Z]+ /', description: '"METHOD /path".' },
          wsMethod: { type: 'string' },
          name: { type: 'string', description: 'Parameter name or body property path; the websocket-API method or stream for those kinds.' },
          enum: { type: 'string', description: 'Named enum whose value changed (reported once, users in usedBy).' },
          value: { type: 'string' },
          usedBy: { type: 'array', items: enumUser },
          attribute: { type: 'string', description: 'Schema keyword (type, minimum, maxLength, pattern, items.*) or "exclusive".' },
          before: { type: 'string', description: 'Value at <from> (security scheme, required flag, or the keyword as JSON).' },
          after: { type: 'string' },
          release: { type: 'string', description: 'Release where the change happened; for a base diff, the first release it affects.' },
          releases: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Base diffs: every release whose pinned clients see the change.' },
          message: { type: 'string', description: 'What changed; in an upgrade, a change breaking old clients ends with what the gateway does with them ("old clients: bridged by version change <id>" or "not bridged: refused 410 …").' },
          at: where,
          source: { type: 'string', description: "The catalogue's source for the changed fact (its source: field): a document and commit, a CHANGELOG entry or a client release." },
          bridged: { type: 'boolean', description: 'Upgrade diffs, changes breaking clients pinned before them (and deprecations a version change carries): whether the gateway carries those clients across (changes.yaml).' },
        },
      },
    },
  },
} as const;
