// ws-api.yaml: the websocket API's path and methods (parameters, security, weight like an
// endpoint's), and the rule that no websocket path hides under another.
import type { Endpoint, Parameter, UserDataSubscription, WsMethod } from '../model.js';
import { dense, type Path, type RawFile, type ServiceBuild } from './context.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';
import { checkConstraintNames, constraints, parameter } from './parameters.js';
import { security } from './security.js';
import { weights } from './weights.js';

export function wsApi(b: ServiceBuild, f: RawFile): void {
  const file = f.data as { path?: string; methods: any[] };
  if (file.path) b.svc.wsApiPath = file.path;
  const methods: WsMethod[] = dense(file.methods.map((m, i) => {
    const path = ['methods', i];
    const parameters = (m.parameters ?? []).map((p: any, j: number) => parameter(b, f, [...path, 'parameters', j], p, 'query', `websocket method ${m.name}`));
    const wm: WsMethod = {
      ...lifecycle(b, f, path, m, `websocket method ${m.name}`), name: m.name, summary: m.summary,
      security: security(b, f, [...path, 'security'], m.security, `websocket method ${m.name}`),
      parameters, constraints: constraints(m.constraints),
    };
    checkConstraintNames(b, f, [...path, 'constraints'], wm.constraints, parameters, `websocket method ${m.name}`);
    if (m.userData) wm.userData = true;
    if (m.subscription) wm.subscription = subscription(b, f, path, m.subscription, parameters, m.name);
    if (m.weight !== undefined) Object.assign(wm, weights(b, f, [...path, 'weight'], m.weight, { key: `websocket method ${m.name}`, parameters } as Pick<Endpoint, 'key' | 'parameters'>));
    return wm;
  }));
  checkOverlaps(b, methods, (m) => m.name, 'duplicate websocket method');
  b.svc.wsMethods.push(...methods);
}

/** `subscription:` as the model has it; the parameter an ending method names must be one of its own. */
function subscription(b: ServiceBuild, f: RawFile, path: Path, raw: { opens?: string; ends?: string }, parameters: readonly Parameter[], name: string): UserDataSubscription {
  const out: UserDataSubscription = raw.opens !== undefined ? { role: 'opens', field: raw.opens } : { role: 'ends', field: raw.ends! };
  if (out.role === 'ends' && !parameters.some((p) => p.name === out.field)) {
    b.problem(f, [...path, 'subscription', 'ends'], `websocket method ${name}: subscription ends names parameter ${out.field}, which the method does not have`);
  }
  return out;
}

/** A websocket path that another one routes first would never be reached: each must be its own. */
export function checkWebsocketPaths(b: ServiceBuild): void {
  const raw = b.svc.streamPaths?.raw;
  const combined = b.svc.streamPaths?.combined;
  const api = b.svc.wsApiPath;
  const clash = (x: string | undefined, y: string | undefined) => x !== undefined && y !== undefined && (x === y || y.startsWith(`${x}/`));
  const streamsFile = b.files.get('streams')?.[0];
  if (streamsFile && (clash(raw, combined) || clash(combined, raw))) {
    b.problem(streamsFile, ['paths'], `paths: raw (${raw}) and combined (${combined}) must be different paths, neither under the other`);
  }
  const apiFile = b.files.get('wsApi')?.[0];
  if (apiFile && (clash(raw, api) || clash(api, raw) || clash(combined, api) || clash(api, combined))) {
    b.problem(apiFile, ['path'], `path ${api} must differ from the stream paths of streams.yaml (${raw}, ${combined}), neither under the other`);
  }
}
