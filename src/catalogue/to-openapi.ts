// OpenAPI 3.1 description of what a service serves at one release, derived from the catalogue.
import type { Parameter } from './model.js';
import type { ReleaseView } from './resolve.js';

export function toOpenApi(views: ReleaseView[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const title = views.map((v) => v.service.title).join(' + ');
  for (const view of views) {
    for (const e of view.served) {
      const ep = e.endpoint;
      const op: Record<string, unknown> = {
        operationId: `${ep.method.toLowerCase()}${ep.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
        tags: [ep.module],
        summary: ep.summary,
        parameters: e.parameters.filter((p) => p.in !== 'body').map((p) => parameter(view, p)),
        responses: { default: { description: 'upstream or builder answer' } },
      };
      if (e.status === 'deprecated') op.deprecated = true;
      if (e.security !== 'NONE' && view.service.apiKeyHeader) op.security = [{ apiKey: [] }];
      if (ep.body) op.requestBody = { required: true, content: { 'application/json': { schema: ep.body } } };
      (paths[ep.path] ??= {})[ep.method.toLowerCase()] = op;
    }
  }
  const schemas = Object.assign({}, ...views.map((v) => v.service.schemas));
  const apiKey = views.find((v) => v.service.apiKeyHeader)?.service.apiKeyHeader;
  return {
    openapi: '3.1.0',
    info: { title, version: views.map((v) => v.release?.id).filter(Boolean).join(', ') || 'current' },
    paths: JSON.parse(JSON.stringify(paths).replaceAll('"#/$defs/', '"#/components/schemas/')),
    components: {
      schemas: JSON.parse(JSON.stringify(schemas).replaceAll('"#/$defs/', '"#/components/schemas/')),
      ...(apiKey ? { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: apiKey } } } : {}),
    },
  };
}

function parameter(view: ReleaseView, p: Parameter): Record<string, unknown> {
  const schema = { ...p.schema } as Record<string, unknown>;
  if (p.enum) schema.enum = view.enumValues(p.enum).map((v) => v.value);
  return { name: p.name, in: p.in, required: p.required, description: p.description, schema };
}
