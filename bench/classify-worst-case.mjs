// The worst case of one classification: replays the robustness test's hostile inputs (the same generator, seed
// and count: test/helpers/hostile-envelopes.mjs) against the built dist/ and prints the slowest single call and
// the tail of the distribution, next to baselines timed on the same inputs in the same run. A benchmark, not a
// test: it prints figures and never fails (npm run bench:classify-worst-case).
//
// Baselines: `parseEnvelope` alone (the validation every classification starts with) and a JSON.stringify +
// JSON.parse round trip of the envelope (no Recourse code at all). A pause that also shows in a baseline's tail
// is the machine or the garbage collector (the generator allocates 64 KiB strings), not the classifier.
//
// Each input is classified once, untimed, before it is timed: V8 keeps a generated string (repeated, sliced,
// concatenated) as a rope until something first reads it, and an envelope parsed from JSON, as a real one is,
// arrives flat. The first read of a generated input costs something a real input does not.
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { classify, parseEnvelope } from '../dist/core/index.js';
import { fuzzSettings, hostileInput } from '../test/helpers/hostile-envelopes.mjs';

const budgetMs = 2;
const { runs, seed, now } = fuzzSettings;

/** Wall time of one call, ms. */
function time(call) {
  const start = performance.now();
  call();
  return performance.now() - start;
}

const measured = {
  classify: (input) => classify(input, { now }),
  parseEnvelope: (input) => parseEnvelope(input),
  'JSON round trip': (input) => JSON.parse(JSON.stringify(input) ?? 'null'),
};
const names = Object.keys(measured);

// Warm the JIT on every shape of input first: the figures are the steady-state cost of a call, not the
// one-time cost of compiling the classifier's functions and regular expressions.
for (const { envelope } of fc.sample(hostileInput, { numRuns: 3000, seed: seed + 1 })) {
  for (let round = 0; round < 3; round++) for (const name of names) measured[name](envelope);
}

const samples = Object.fromEntries(names.map((name) => [name, new Float64Array(runs)]));
const timeClassify = (input) => time(() => classify(input, { now }));
let k = 0;
let worst = { ms: -1, input: undefined };
let worstBestOfFour = 0;
const started = performance.now();
fc.assert(
  fc.property(hostileInput, ({ envelope }) => {
    classify(envelope, { now });
    for (const name of names) samples[name][k] = time(() => measured[name](envelope));
    const ms = samples.classify[k];
    if (ms > worst.ms) worst = { ms, input: envelope };
    // What the robustness test once asserted: a call over half the budget re-timed up to three more times and
    // the best kept. A pause is not the input's cost; an input slow by construction stays slow on every try.
    let best = ms;
    for (let retry = 0; best >= budgetMs / 2 && retry < 3; retry++)
      best = Math.min(best, timeClassify(envelope));
    worstBestOfFour = Math.max(worstBestOfFour, best);
    k++;
  }),
  { numRuns: runs, seed },
);
const seconds = (performance.now() - started) / 1000;

/** The value below which a share p of the samples lies. */
function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function describeInput(input) {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return `a JSON ${Array.isArray(input) ? 'array' : typeof input}`;
  const kind = typeof input.kind === 'string' ? input.kind : '(no kind)';
  return `${kind} envelope of ${JSON.stringify(input).length.toLocaleString('en-US')} JSON characters`;
}

const ms = (value) => `${value.toFixed(3)} ms`;
console.log(
  `${runs.toLocaleString('en-US')} hostile inputs (seed ${seed}), one core, ${seconds.toFixed(1)} s in all; each call timed alone`,
);
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)} over the last minute`);
console.log(
  `${''.padEnd(16)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'p99.9'.padStart(10)} ${'worst'.padStart(10)}`,
);
for (const name of names) {
  const sorted = samples[name].slice(0, k).sort();
  const row = [0.5, 0.99, 0.999].map((p) => ms(percentile(sorted, p)).padStart(10));
  console.log(`${name.padEnd(16)} ${row.join(' ')} ${ms(sorted[k - 1]).padStart(10)}`);
}
const again = Math.min(timeClassify(worst.input), timeClassify(worst.input), timeClassify(worst.input));
console.log(
  `slowest classify call: ${ms(worst.ms)} on ${describeInput(worst.input)}; the same input re-timed: best of three ${ms(again)}`,
);
console.log(
  `budget ${budgetMs} ms per call: worst single call ${ms(worst.ms)} ${worst.ms < budgetMs ? 'within' : 'OVER'}; ` +
    `worst best of up to four tries ${ms(worstBestOfFour)} ${worstBestOfFour < budgetMs ? 'within' : 'OVER'}`,
);
