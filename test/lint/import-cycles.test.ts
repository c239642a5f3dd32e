import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findImportCycles } from '../../scripts/import-cycles.mjs';

const find = findImportCycles as (folder: string) => string[][];

describe('the lint fails on import cycles, type-only ones included', () => {
  it('finds a cycle made only of `import type` (which import-x/no-cycle skips), and a longer one', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'recourse-cycles-'));
    try {
      await writeFile(join(folder, 'a.ts'), "import type { B } from './b.js';\nexport type A = { b: B };\n");
      await writeFile(join(folder, 'b.ts'), "import type { A } from './a.js';\nexport type B = { a: A };\n");
      await writeFile(join(folder, 'c.ts'), "export { d } from './d.js';\nexport const c = 1;\n");
      await writeFile(join(folder, 'd.ts'), "import { e } from './e.js';\nexport const d = e;\n");
      await writeFile(
        join(folder, 'e.ts'),
        "import type { c } from './c.js';\nexport const e: typeof c = 1;\n",
      );
      await writeFile(join(folder, 'f.ts'), "import { d } from './d.js';\nexport const f = d;\n");
      const cycles = find(folder).map((c) => c.map((f) => f.split('/').pop()));
      expect(cycles).toHaveLength(2);
      expect(cycles).toContainEqual(['a.ts', 'b.ts']);
      expect(cycles).toContainEqual(['c.ts', 'd.ts', 'e.ts']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('src has none', () => {
    expect(find('src')).toEqual([]);
  });
});
