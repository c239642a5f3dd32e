import { describe, expect, it } from 'vitest';
import { useLintProbes } from './lint-probes.js';

/**
 * The lint is what keeps the core pure and the graph acyclic: this test writes small probe files into
 * src/core, lints them with the project's configuration, and expects the bans to fire.
 */
const probes: Record<string, string> = {
  'clock.ts': 'export const t = Date.now();\nexport const d = new Date();\n',
  'timer.ts': 'export function later(f: () => void): void {\n  setTimeout(f, 10);\n}\n',
  'node-import.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
  'driver-import.ts': "import { Command } from 'commander';\nexport const c = Command;\n",
  'cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = (): number => b() + 1;\n",
  'cycle-b.ts': "import { a } from './cycle-a.js';\nexport const b = (): number => a() - 1;\n",
  'clean.ts': 'export function add(x: number, y: number): number {\n  return x + y;\n}\n',
};

const messages = useLintProbes('src/core', probes);

describe('lint keeps src/core pure', () => {
  it('bans reading the clock', () => {
    const found = messages.get('clock.ts')!.filter((m) => m.startsWith('no-restricted-syntax'));
    expect(found).toHaveLength(2);
  });

  it('bans timers', () => {
    expect(messages.get('timer.ts')!.some((m) => m.startsWith('no-restricted-globals'))).toBe(true);
  });

  it('bans Node built-ins and drivers', () => {
    expect(messages.get('node-import.ts')!.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
    expect(messages.get('driver-import.ts')!.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
  });

  it('fails on import cycles', () => {
    expect(messages.get('cycle-a.ts')!.some((m) => m.startsWith('import-x/no-cycle'))).toBe(true);
  });

  it('accepts pure code', () => {
    expect(messages.get('clean.ts')).toEqual([]);
  });
});
