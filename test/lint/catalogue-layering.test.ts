import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The catalogue is data and the classifier compiles it: `src/core/catalogue/**` never imports
 * `src/core/classify/**`. This test writes probe files into src/core/catalogue, lints them with the project's
 * configuration and expects the ban to fire (and the core's own bans to still hold there).
 */
const root = new URL('../../', import.meta.url).pathname;
const probeDir = join(root, 'src/core/catalogue', `__lint_probe_${process.pid}__`);
const eslint = new ESLint({ cwd: root });

const probes: Record<string, string> = {
  'imports-classify.ts':
    "import { compileCatalogue } from '../../classify/compiled-catalogue.js';\nexport const c = compileCatalogue;\n",
  'imports-classify-type.ts':
    "import type { Classification } from '../../classify/classification.js';\nexport type C = Classification;\n",
  'imports-node.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
  'imports-catalogue.ts':
    "import { catalogueRules } from '../registry.js';\nexport const n = catalogueRules.length;\n",
};

let messages: Map<string, string[]>;

beforeAll(async () => {
  mkdirSync(probeDir, { recursive: true });
  for (const [name, code] of Object.entries(probes)) writeFileSync(join(probeDir, name), code);
  const results = await eslint.lintFiles(Object.keys(probes).map((name) => join(probeDir, name)));
  messages = new Map(
    results.map((r) => [r.filePath.split('/').pop()!, r.messages.map((m) => `${m.ruleId}: ${m.message}`)]),
  );
}, 120_000);

afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

const restricted = (file: string) => messages.get(file)!.filter((m) => m.startsWith('no-restricted-imports'));

describe('lint keeps the catalogue below the classifier', () => {
  it('bans src/core/catalogue from importing src/core/classify', () => {
    expect(restricted('imports-classify.ts')).toEqual([
      expect.stringContaining('must not import src/core/classify'),
    ]);
    expect(restricted('imports-classify-type.ts')).toEqual([
      expect.stringContaining('must not import src/core/classify'),
    ]);
  });

  it('keeps the core bans inside the catalogue', () => {
    expect(restricted('imports-node.ts')).toEqual([expect.stringContaining('no Node built-ins')]);
  });

  it('accepts imports within the catalogue', () => {
    expect(messages.get('imports-catalogue.ts')).toEqual([]);
  });
});
