import { defineConfig } from 'vitest/config';

const robustness = 'test/core/classify/robustness.test.ts';
const crash = 'test/robustness/**/*.test.ts';

export default defineConfig({
  test: {
    // Set on the root config, it runs once before every project's files (projects do not inherit it).
    globalSetup: ['test/setup/build-dist.ts'],
    testTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [robustness, crash],
          testTimeout: 60_000,
        },
      },
      {
        // The fuzz test times every call: it runs after the other files, alone, so parallel test files do not
        // compete with it for the two cores.
        test: {
          name: 'robustness',
          include: [robustness],
          testTimeout: 900_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The crash test spawns and kills engine processes: alone too, after the fuzz test.
        test: { name: 'crash', include: [crash], testTimeout: 900_000, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
