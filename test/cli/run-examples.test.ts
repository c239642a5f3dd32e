import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRunProfile } from '../../src/cli/run-profile.js';

const examples = fileURLToPath(new URL('../../examples/run/', import.meta.url));
const files = readdirSync(examples).filter((f) => f.endsWith('.json'));

// Any absolute folder stands for --cwd; nothing is created there.
const projectFolder = resolve('example-project');

describe('examples/run', () => {
  it('has example profiles', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it.each(files)(
    '[DAT-13] %s is a valid run profile whose credentials come only from the environment',
    (file) => {
      const text = readFileSync(join(examples, file), 'utf8');
      const parsed = parseRunProfile(JSON.parse(text), projectFolder);
      expect(parsed.ok ? [] : parsed.issues).toEqual([]);
      if (!parsed.ok) return;
      for (const candidate of parsed.value.profile.candidates) {
        const recipe = parsed.value.recipes[candidate.profile_id];
        // Defaults: the provider is the candidate's; the cwd (absent or relative) is taken from --cwd.
        expect(recipe?.provider).toBe(candidate.provider);
        expect(recipe?.cwd).toBe(projectFolder);
      }
      for (const recipe of Object.values(parsed.value.recipes)) {
        for (const [name, value] of Object.entries(recipe.env)) {
          if (/KEY|TOKEN|SECRET/.test(name)) expect(typeof value, name).toBe('object');
        }
      }
    },
  );
});
