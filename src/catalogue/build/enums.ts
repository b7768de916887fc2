// enums.yaml: named value lists, each value with its own lifecycle.
import type { EnumDef } from '../model.js';
import { dense, type RawFile, type ServiceBuild } from './context.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';

export function enums(b: ServiceBuild, f: RawFile): void {
  const file = f.data as { enums: Record<string, { description?: string; source?: string; note?: string; values: any[] }> };
  for (const [name, def] of Object.entries(file.enums)) {
    if (b.svc.enums[name]) b.problem(f, ['enums', name], `duplicate enum "${name}"`);
    const values = dense(def.values.map((v, i) => ({
      ...lifecycle(b, f, ['enums', name, 'values', i], v, `enum ${name} value ${v.value}`),
      value: String(v.value), description: v.description,
    })));
    checkOverlaps(b, values, (v) => v.value, `enum ${name}: duplicate value`);
    b.svc.enums[name] = { name, description: def.description, source: def.source, note: def.note, values } satisfies EnumDef;
  }
}
