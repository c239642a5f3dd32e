import { defineConfig } from 'vitest/config';

const crash = 'test/robustness/**/*.test.ts';
const packed = 'test/package/embed-example.test.ts';
const ui = 'test/ui/**/*.test.ts';
const agents = 'test/agents-e2e/**/*.test.ts';

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
          exclude: [crash, packed, ui, agents],
          testTimeout: 60_000,
        },
      },
      {
        // The crash test spawns and kills engine processes: alone, after the other files.
        test: {
          name: 'crash',
          include: [crash],
          testTimeout: 900_000,
          // One file: the worker count only has to match the others of its group (vitest requires it).
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Packs the package and installs it into a fresh folder (a native build: about a minute of CPU), then
        // runs the embedding example with kills: beside the crash test, after the unit files.
        test: {
          name: 'package',
          include: [packed],
          testTimeout: 900_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The web UI in Debian's Chromium against the built `recourse serve`: after the unit files, beside the
        // crash and package suites (each browser test file starts its own service and browser). A project gets one
        // worker on two cores by default; these files mostly wait on the browser and the server (other processes),
        // so two run at once.
        test: {
          name: 'ui',
          include: [ui],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Real agent CLIs (Claude Code, Gemini CLI, Codex) in loopback-only network namespaces against the fake
        // provider (docs/agents.md): needs root for `unshare --net` and fails, never skips, without it. After the
        // unit files, beside crash, package and ui; the agents mostly wait on their child processes, so two files
        // run at once. About 3 minutes on two cores (docs/agents.md).
        test: {
          name: 'agents',
          include: [agents],
          testTimeout: 300_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
