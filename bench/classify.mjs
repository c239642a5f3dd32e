// Classification throughput and per-evidence latency, over the labelled corpus and over a synthetic
// catalogue ten times larger. Prints figures; it is a benchmark, not a test (npm run bench:classify).
import { cpus, loadavg } from 'node:os';
import {
  catalogueRules,
  classifyEvidence,
  compileCatalogue,
  defaultCatalogue,
  parseEnvelope,
} from '../dist/core/index.js';
import { corpusFiles, readCorpus, replayNow, toEnvelope } from '../test/helpers/corpus.mjs';

/** Each record's evidence, with the clock it is replayed at (the instant it was observed, as the tests do). */
const evidence = corpusFiles.flatMap(readCorpus).flatMap((record) => {
  const parsed = parseEnvelope(toEnvelope(record));
  return parsed.ok ? [{ evidence: parsed.evidence, options: { now: replayNow(record) } }] : [];
});

/**
 * A keyword no input carries, for variant `n`: a word gets a suffix; a Chinese, Japanese or Korean keyword (the
 * catalogue takes those as two-character bigrams only) becomes another bigram, of CJK extension A characters.
 */
function syntheticKeyword(keyword, n, index) {
  if (
    !/[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/.test(
      keyword,
    )
  )
    return `${keyword}_syn${n}`;
  return String.fromCharCode(0x3400 + n, 0x3500 + index);
}

/**
 * Ten times the rules: each real rule plus nine variants shaped like it (same kinds, statuses, tiers and
 * pattern sizes) whose keywords and field values are new words, as a catalogue grown by other providers'
 * messages would be.
 */
function syntheticRules(factor) {
  const out = [...catalogueRules];
  for (let n = 1; n < factor; n++) {
    for (const rule of catalogueRules) {
      const when = { ...rule.when };
      if (when.keywords) when.keywords = when.keywords.map((k, i) => syntheticKeyword(k, n, i));
      if (when.fields) {
        when.fields = Object.fromEntries(
          Object.entries(when.fields).map(([k, v]) => [k, v.map((x) => `${x}_syn${n}`)]),
        );
      }
      if (when.text) when.text = new RegExp(`syn${n}_(?:${when.text.source})`, when.text.flags);
      out.push({ ...rule, id: rule.id.replace(/\.v(\d+)$/, `_syn${n}.v$1`), when });
    }
  }
  return out;
}

/**
 * Times every call over `rounds` rounds of the corpus for each catalogue, the catalogues alternating round by
 * round: a machine shared with other work slows both alike, so their ratio is read from one run.
 */
function measureInterleaved(catalogues, rounds = 200) {
  for (const { catalogue } of catalogues)
    for (let i = 0; i < 20; i++) for (const e of evidence) classifyEvidence(e.evidence, e.options, catalogue); // warm up
  const runs = catalogues.map(() => ({ samples: new Float64Array(rounds * evidence.length), k: 0, ns: 0n }));
  for (let r = 0; r < rounds; r++) {
    catalogues.forEach(({ catalogue }, c) => {
      const run = runs[c];
      const start = process.hrtime.bigint();
      for (const e of evidence) {
        const t = process.hrtime.bigint();
        classifyEvidence(e.evidence, e.options, catalogue);
        run.samples[run.k++] = Number(process.hrtime.bigint() - t) / 1000;
      }
      run.ns += process.hrtime.bigint() - start;
    });
  }
  return catalogues.map(({ catalogue, label }, c) => {
    const { samples, k, ns } = runs[c];
    samples.sort();
    const pct = (p) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))];
    const perSecond = (k / Number(ns)) * 1e9;
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    console.log(
      `${label.padEnd(34)} ${String(catalogue.rules.length).padStart(5)} rules  ${Math.round(perSecond).toLocaleString('en-US').padStart(9)} classifications/s  ` +
        `mean ${mean.toFixed(2)} µs  p50 ${pct(0.5).toFixed(2)} µs  p99 ${pct(0.99).toFixed(2)} µs  max ${pct(1).toFixed(1)} µs`,
    );
    return { perSecond, mean, p50: pct(0.5), p99: pct(0.99) };
  });
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${cpus().length} cores`,
);
console.log(
  `corpus: ${evidence.length} evidence envelopes from corpus/; one core, timings include the call only`,
);
const [base, big] = measureInterleaved([
  { catalogue: defaultCatalogue, label: 'shipped catalogue' },
  {
    catalogue: compileCatalogue('synthetic-x10', syntheticRules(10)),
    label: 'synthetic catalogue, 10x the rules',
  },
]);
const ratio = big.mean / base.mean;
console.log(
  `cost of a 10x catalogue per evidence: ${ratio.toFixed(2)}x by mean, ${(big.p50 / base.p50).toFixed(2)}x by p50 ` +
    '(target <= 1.1x; rounds alternate between the two catalogues)',
);
console.log(
  `targets: >= 100,000/s ${base.perSecond >= 100_000 ? 'met' : 'MISSED'}; p99 <= 50 µs ${base.p99 <= 50 ? 'met' : 'MISSED'}; ` +
    `10x catalogue <= 1.1x ${ratio <= 1.1 ? 'met' : 'MISSED'}`,
);
