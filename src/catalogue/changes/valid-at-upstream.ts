// The composed request must be valid at the upstream's release whatever valid request the client
// sent. Checked once per plan, at load; what it finds is the plan's problems.
import { existsAt } from '../lifecycle.js';
import type { Endpoint, Service } from '../model.js';
import type { Plan } from './plan.js';
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
  for (const p of start.parameters) if (p.required && existsAt(p.span, s)) sent.add(p.name);
  for (const part of plan.request) {
    if (part.kind === 'transform') {
      for (const w of transformNamed(part.name)?.writes ?? []) sent.add(w);
      continue;
    }
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
  for (const part of plan.request) {
    if (part.kind !== 'segment') continue;
    const constants = [...Object.entries(part.segment.sets), ...Object.entries(part.segment.defaults)];
    for (const [src, map] of Object.entries(part.segment.values)) {
      const name = part.segment.names[src] ?? src;
      for (const v of Object.values(map)) constants.push([name, v]);
    }
    for (const [name, value] of constants) {
      const p = target.parameters.find((x) => x.name === name && existsAt(x.span, u));
      if (!p) { out.push(`${label}: sends ${name}, which ${plan.target} does not take at ${plan.upstreamRelease}`); continue; }
      const allowed = p.enum ? service.enums[p.enum]?.values.filter((v) => existsAt(v.span, u)).map((v) => v.value)
        : (p.schema.enum as unknown[] | undefined)?.map(String);
      if (allowed && !allowed.includes(value)) out.push(`${label}: ${name}=${value} is not a value ${plan.target} takes at ${plan.upstreamRelease} (${allowed.join(', ')})`);
    }
  }
  return out;
}
