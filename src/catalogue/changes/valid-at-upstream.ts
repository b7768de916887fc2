// The composed request must be valid at the upstream's release whatever valid request the client
// sent. Checked once per plan, at load; what it finds is the plan's problems.
import { existsAt } from '../lifecycle.js';
import type { Endpoint, Service } from '../model.js';
import { isPath, rootOf } from './json-path.js';
import type { JsonStep, Plan } from './plan.js';
import { transformNamed } from './transforms.js';

/**
 * The composed request must be valid at the upstream's release whatever valid request the client
 * sent: every required parameter of the target is always sent, and every constant is a value the
 * target takes. (Transforms are checked by the generated property test.)
 */
export function validAtUpstream(service: Service, plan: Plan, start: Endpoint, target: Endpoint, s: number, u: number): string[] {
  const out: string[] = [];
  const signing = new Set(service.signedParameters.map((p) => p.name));
  const sent = new Set<string>();
  const body = new Set([...start.parameters, ...target.parameters].filter((p) => p.in === 'body').map((p) => p.name));
  for (const p of start.parameters) if (p.required && existsAt(p.span, s)) sent.add(p.name);
  for (const part of plan.request) {
    if (part.kind === 'transform') {
      for (const w of transformNamed(part.name)?.writes ?? []) sent.add(w);
      continue;
    }
    if (part.kind === 'json') { for (const step of part.steps) sendsJson(sent, step, body); continue; }
    const seg = part.segment;
    for (const n of [...sent]) {
      if (!(n in seg.names)) continue;
      sent.delete(n);
      if (seg.names[n] !== null) sent.add(seg.names[n]!);
    }
    for (const k of [...Object.keys(seg.sets), ...Object.keys(seg.defaults)]) sent.add(k);
  }
  const label = `${plan.operation} at ${plan.release} → ${plan.target} at ${plan.upstreamRelease}`;
  for (const p of target.parameters) {
    if (!p.required || !existsAt(p.span, u) || signing.has(p.name)) continue;
    if (!sent.has(p.name)) out.push(`${label}: required parameter ${p.name} is not always sent`);
  }
  for (const [name, value] of constantsOf(plan)) {
    const p = target.parameters.find((x) => x.name === name && existsAt(x.span, u));
    if (!p) { out.push(`${label}: sends ${name}, which ${plan.target} does not take at ${plan.upstreamRelease}`); continue; }
    const allowed = p.enum ? service.enums[p.enum]?.values.filter((v) => existsAt(v.span, u)).map((v) => v.value)
      : (p.schema.enum as unknown[] | undefined)?.map(String);
    if (allowed && !allowed.includes(String(value))) out.push(`${label}: ${name}=${String(value)} is not a value ${plan.target} takes at ${plan.upstreamRelease} (${allowed.join(', ')})`);
  }
  return out;
}

/** What one JSON step does to the body fields always sent (fields of the body itself; paths inside one leave it as it is). */
function sendsJson(sent: Set<string>, step: JsonStep, body: ReadonlySet<string>): void {
  const move = (from: string, to: string) => { if (body.has(from) && !isPath(to) && sent.delete(from)) sent.add(to); };
  switch (step.kind) {
    case 'rename': case 'list': for (const [from, to] of Object.entries(step.names)) move(from, to); break;
    case 'map': move(step.parameter, step.to); break;
    case 'drop': for (const n of step.names) if (body.has(n)) sent.delete(n); break;
    case 'set': case 'default': for (const n of Object.keys(step.values)) sent.add(rootOf(n)); break;
  }
}

/** The constants a plan sends, by the name they are sent under (fields of a JSON body: those of the body itself). */
function constantsOf(plan: Plan): [string, unknown][] {
  const constants: [string, unknown][] = [];
  for (const part of plan.request) {
    if (part.kind === 'segment') {
      constants.push(...Object.entries(part.segment.sets), ...Object.entries(part.segment.defaults));
      for (const [src, map] of Object.entries(part.segment.values)) {
        const name = part.segment.names[src] ?? src;
        for (const v of Object.values(map)) constants.push([name, v]);
      }
    } else if (part.kind === 'json') {
      for (const s of part.steps) {
        if (s.kind === 'set' || s.kind === 'default') constants.push(...Object.entries(s.values).filter(([k]) => !isPath(k)));
        if (s.kind === 'map' && !isPath(s.to)) for (const v of Object.values(s.values)) constants.push([s.to, v]);
      }
    }
  }
  return constants;
}
