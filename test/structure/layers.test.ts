// Layers point one way (docs/architecture.md, "Layers"): catalogue/, upstream/, builders/ and diff/ import nothing from
// gateway/ or cli/, and no file or folder in src/ or tools/ is part of an import cycle. The rules live
// in .dependency-cruiser.cjs; the second test proves the check can fail by planting violations in a copy.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { describe, layerViolations } from './cruise.js';
import { tempDir } from '../support/temp.js';

const test = suite('layering');

test('src/ and tools/ break no layering rule and have no file or folder cycle', () => {
  const found = layerViolations();
  assert.ok(found.length === 0, `${found.length} layering violation(s):\n  ${found.map(describe).join('\n  ')}`);
});

test('the check fails on a planted file cycle and on catalogue/ importing gateway/', () => {
  const copy = tempDir('layers-');
  try {
    // The real rules and compiler settings over a small tree: the planted files and what they import.
    for (const p of ['tsconfig.json', '.dependency-cruiser.cjs', 'src/gateway/errors.ts']) cpSync(join(ROOT, p), join(copy, p), { recursive: true });
    mkdirSync(join(copy, 'src/catalogue'), { recursive: true });
    mkdirSync(join(copy, 'tools'));
    writeFileSync(join(copy, 'tools/planted-tool.ts'), "import { a } from '../src/planted-a.js';\nexport const tool = a;\n");
    writeFileSync(join(copy, 'src/planted-a.ts'), "import { b } from './planted-b.js';\nexport const a = () => b;\n");
    writeFileSync(join(copy, 'src/planted-b.ts'), "import { a } from './planted-a.js';\nexport const b = () => a;\n");
    writeFileSync(join(copy, 'src/catalogue/planted-up.ts'), "import * as errors from '../gateway/errors.js';\nexport const up = errors;\n");
    const found = layerViolations(copy);
    const listing = found.map(describe).join('\n  ');
    const cycle = found.find((v) => v.rule === 'no-circular' && [v.from, ...v.cycle].includes('src/planted-a.ts') && [v.from, ...v.cycle].includes('src/planted-b.ts'));
    assert.ok(cycle, `no cycle reported between src/planted-a.ts and src/planted-b.ts; reported:\n  ${listing}`);
    const up = found.find((v) => v.rule === 'lower-layer-imports-upper' && v.from === 'src/catalogue/planted-up.ts' && v.to === 'src/gateway/errors.ts');
    assert.ok(up, `src/catalogue/planted-up.ts → src/gateway/errors.ts not reported; reported:\n  ${listing}`);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test.run();
