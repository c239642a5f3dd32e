import { defineConfig } from 'vitest/config';

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
          exclude: [crash],
          testTimeout: 60_000,
        },
      },
      {
        // The crash test spawns and kills engine processes: alone, after the other files.
        test: { name: 'crash', include: [crash], testTimeout: 900_000, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
