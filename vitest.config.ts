import { defineConfig } from 'vitest/config';

const crash = 'test/robustness/**/*.test.ts';
// Several engine nodes on one PostgreSQL schema, one killed with SIGKILL or held behind a circuit (test/robustness).
const pgNodes = ['test/robustness/pg-multi-node.test.ts', 'test/robustness/pg-circuit.test.ts'];
// Restarts the PostgreSQL server itself: every other PostgreSQL test would fail beside it.
const pgRestart = 'test/robustness/pg-restart.test.ts';
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
          // A hang guard, not a speed check: with two files at once a test that starts the built CLI several
          // times took 60 s on a machine loaded by other work, where it takes a few seconds alone.
          testTimeout: 120_000,
          // Vitest's default is one worker fewer than the cores: one file at a time on two. Many of these files
          // wait on child processes (the built CLI, servers, PostgreSQL) or on the real clock, so two at a time keep
          // both cores busy. Every PostgreSQL file works in schemas of its own, so two never meet.
          maxWorkers: 2,
        },
      },
      {
        // The crash test spawns and kills engine processes (on SQLite files): after the unit files.
        test: {
          name: 'crash',
          include: [crash],
          exclude: [...pgNodes, pgRestart],
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
        // crash and package suites (each browser test file starts its own service and browser). These files mostly wait
        // on the browser and the server (other processes), so two run at once, as in every group but the last two.
        test: {
          name: 'ui',
          include: [ui],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // A page that loads its data after it renders is waited for with expect.poll: one second (the default)
          // was too short on a CI machine running the other suites beside it (a sessions list seen empty).
          expect: { poll: { timeout: 10_000 } },
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
      {
        // Groups run in order, each after the one before has finished: the unit files (group 0: the store contract,
        // serve and openRecourse on PostgreSQL among them), then crash, package, ui and agents (group 1, none on
        // PostgreSQL), then these node tests (group 2), one file at a time, beside no other test: each runs three
        // or four engine processes on the database and one kills a node with SIGKILL.
        test: {
          name: 'pg-nodes',
          include: pgNodes,
          testTimeout: 900_000,
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // Restarts the PostgreSQL server under load (pg_ctlcluster): last and alone (group 3), since any test on
        // the database beside it would see its connections dropped. It starts the server again even when it fails.
        test: {
          name: 'pg-restart',
          include: [pgRestart],
          testTimeout: 900_000,
          hookTimeout: 120_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
