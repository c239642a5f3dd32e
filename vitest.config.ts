import { defineConfig } from 'vitest/config';

const robustness = 'test/core/classify/robustness.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    projects: [
      { test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [robustness], testTimeout: 60_000 } },
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
    ],
  },
});
