import { describe, expect, it } from 'vitest';
import { useLintProbes } from './lint-probes.js';

/**
 * The catalogue is data and the classifier compiles it: `src/core/catalogue/**` never imports
 * `src/core/classify/**`. This test writes probe files into src/core/catalogue, lints them with the project's
 * configuration and expects the ban to fire (and the core's own bans to still hold there).
 */
const probes: Record<string, string> = {
  'imports-classify.ts':
    "import { compileCatalogue } from '../../classify/compiled-catalogue.js';\nexport const c = compileCatalogue;\n",
  'imports-classify-type.ts':
    "import type { Classification } from '../../classify/classification.js';\nexport type C = Classification;\n",
  'imports-node.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
  'imports-catalogue.ts':
    "import { catalogueRules } from '../registry.js';\nexport const n = catalogueRules.length;\n",
};

const messages = useLintProbes('src/core/catalogue', probes);

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
