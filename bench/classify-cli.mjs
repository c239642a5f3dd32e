// `recourse classify FILE` through the CLI, per evidence, side by side with two baselines run in the same process
// on the same file: the naive scan (150 keyword regular expressions on the raw text, a code per line:
// bench/classify-naive-scan.mjs) and the floor (parse each line, print a small JSON answer:
// bench/classify-parse-and-print.mjs). Start-up is timed on a one-line file and subtracted. A benchmark, not a
// test: it prints figures and never fails (npm run bench:classify-cli).
//
// Input: every corpus record (as the envelope the tests build) and every catalogue fixture's evidence, replicated
// in a fixed order to 23,800 lines, written to a temporary folder. Output goes to a file in the same folder.
//
// Besides, each program runs on the same lines twice over (47,600): what the second copy adds is the cost per
// evidence once the process is warm. The net figure (the targets' figure) includes a fresh process's warm-up (V8
// compiling the code and the catalogue's expressions, the rules' gates being read) spread over 23,800 lines; the
// warm figure shows how much of it that is.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusFiles, readCorpus, toEnvelope } from '../test/helpers/corpus.mjs';

const lines = 23_800;
const rounds = 5;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

const fixturesDir = here('../catalogue/fixtures/');
const envelopes = [
  ...corpusFiles.flatMap(readCorpus).map(toEnvelope),
  ...readdirSync(fixturesDir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .flatMap((name) => readFileSync(join(fixturesDir, name), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line).evidence),
].map((envelope) => JSON.stringify(envelope));

const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-cli-'));
const file = join(dir, 'evidence.jsonl');
const one = join(dir, 'one.jsonl');
const twice = join(dir, 'twice.jsonl');
const body = `${Array.from({ length: lines }, (_, i) => envelopes[i % envelopes.length]).join('\n')}\n`;
writeFileSync(file, body);
writeFileSync(twice, body + body);
writeFileSync(one, `${envelopes[0]}\n`);

const programs = {
  'naive scan': [here('./classify-naive-scan.mjs')],
  'parse and print': [here('./classify-parse-and-print.mjs')],
  'recourse classify': [here('../dist/cli/main.js'), 'classify', '--now', '2026-06-01T12:00:00Z'],
};
const names = Object.keys(programs);

/**
 * CPU time (user and system, ms) of the children this process has waited for, from /proc/self/stat (Linux; null
 * elsewhere). Wall time on a machine shared with other work measures the other work too; a child's own CPU time
 * much less so, so both are printed.
 */
function childrenCpuMs() {
  if (!existsSync('/proc/self/stat')) return null;
  // Fields after the command name's closing parenthesis; cutime and cstime are fields 16 and 17, in ticks.
  const fields = readFileSync('/proc/self/stat', 'utf8').split(')').pop().trim().split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}
/** Clock ticks per second of /proc figures: 100 on Linux for every common architecture. */
const ticksPerSecond = 100;

/** Wall and CPU time of one run, ms, with standard output to a file; fails loudly if the program does. */
function run(name, input) {
  const out = openSync(join(dir, 'out'), 'w');
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, [...programs[name], input], { stdio: ['ignore', out, 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuAfter = childrenCpuMs();
  closeSync(out);
  if (child.status !== 0) throw new Error(`${name} exited ${child.status}: ${child.stderr}`);
  return { ms, cpu: cpuBefore === null || cpuAfter === null ? NaN : cpuAfter - cpuBefore };
}

// Interleaved rounds, best of each: a pause of the machine hits one round of one program, not a whole column.
const best = Object.fromEntries(
  names.map((name) => [
    name,
    {
      full: Infinity,
      startup: Infinity,
      twice: Infinity,
      fullCpu: Infinity,
      startupCpu: Infinity,
      twiceCpu: Infinity,
    },
  ]),
);
for (let round = 0; round < rounds; round++) {
  for (const name of names) {
    const startup = run(name, one);
    // The doubled file first, so that the output file read below is the one-copy run's.
    const doubled = run(name, twice);
    const full = run(name, file);
    const b = best[name];
    b.twice = Math.min(b.twice, doubled.ms);
    b.twiceCpu = Math.min(b.twiceCpu, doubled.cpu);
    b.startup = Math.min(b.startup, startup.ms);
    b.full = Math.min(b.full, full.ms);
    b.startupCpu = Math.min(b.startupCpu, startup.cpu);
    b.fullCpu = Math.min(b.fullCpu, full.cpu);
  }
}
const outputLines = readFileSync(join(dir, 'out'), 'utf8').split('\n').length - 1;
rmSync(dir, { recursive: true, force: true });

console.log(
  `${lines.toLocaleString('en-US')} envelopes (${envelopes.length} distinct: corpus and fixtures, replicated); ` +
    `best of ${rounds} interleaved runs each; recourse printed ${outputLines.toLocaleString('en-US')} lines`,
);
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)} over the last minute`);
const perEvidence = {};
const cpuPerEvidence = {};
const warmPerEvidence = {};
const warmCpuPerEvidence = {};
for (const name of names) {
  const { full, startup, fullCpu, startupCpu, twice: doubled, twiceCpu } = best[name];
  perEvidence[name] = ((full - startup) * 1000) / (lines - 1);
  cpuPerEvidence[name] = ((fullCpu - startupCpu) * 1000) / (lines - 1);
  warmPerEvidence[name] = ((doubled - full) * 1000) / lines;
  warmCpuPerEvidence[name] = ((twiceCpu - fullCpu) * 1000) / lines;
  console.log(
    `${name.padEnd(18)} ${full.toFixed(0).padStart(6)} ms in all, start-up ${startup.toFixed(0).padStart(4)} ms, ` +
      `${perEvidence[name].toFixed(1).padStart(6)} µs per evidence net (${((full * 1000) / lines).toFixed(1)} raw); ` +
      `CPU ${cpuPerEvidence[name].toFixed(1)} µs per evidence net; warm ${warmPerEvidence[name].toFixed(1)} µs ` +
      `(CPU ${warmCpuPerEvidence[name].toFixed(1)})`,
  );
}
const naive = perEvidence['naive scan'];
const floor = perEvidence['parse and print'];
const recourse = perEvidence['recourse classify'];
console.log(
  `recourse / naive scan ${(recourse / naive).toFixed(2)}x (target <= 0.75x: ${recourse / naive <= 0.75 ? 'met' : 'MISSED'}); ` +
    `recourse / parse and print ${(recourse / floor).toFixed(2)}x; naive scan / parse and print ${(naive / floor).toFixed(2)}x`,
);
const cpuNaive = cpuPerEvidence['naive scan'];
if (Number.isFinite(cpuNaive)) {
  console.log(
    `by CPU time: recourse / naive scan ${(cpuPerEvidence['recourse classify'] / cpuNaive).toFixed(2)}x; ` +
      `recourse / parse and print ${(cpuPerEvidence['recourse classify'] / cpuPerEvidence['parse and print']).toFixed(2)}x`,
  );
}
// Both by wall and by CPU time: each is the difference of two bests, so under load the wall figure swings most.
const warmNaive = warmPerEvidence['naive scan'];
const warmCpuNaive = warmCpuPerEvidence['naive scan'];
console.log(
  `warm (what a second copy of the lines adds): recourse / naive scan ${(warmPerEvidence['recourse classify'] / warmNaive).toFixed(2)}x, ` +
    `by CPU ${(warmCpuPerEvidence['recourse classify'] / warmCpuNaive).toFixed(2)}x; a fresh process's warm-up is ` +
    `${(perEvidence['recourse classify'] - warmPerEvidence['recourse classify']).toFixed(1)} µs of recourse's net figure per evidence, ` +
    `${(cpuPerEvidence['recourse classify'] - warmCpuPerEvidence['recourse classify']).toFixed(1)} µs of CPU`,
);
