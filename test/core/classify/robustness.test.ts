import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../helpers/fixtures.js';
import { secretSamples } from '../sanitize/secrets.js';
import { classificationSchema, classify } from '../../../src/core/index.js';

/**
 * Robustness of `classify` over generated and mutated envelopes: realistic fixtures mutated field by field,
 * arbitrary JSON, 64 KiB bodies, and texts built to make regular expressions backtrack. It never throws, each
 * call stays under 2 ms, the output always validates, and no planted secret appears in it.
 */
const runs = Number(process.env.RECOURSE_FUZZ_RUNS ?? 100_000);
const seed = Number(process.env.RECOURSE_FUZZ_SEED ?? 20261129);
const now = Date.parse('2026-06-01T12:00:00Z');
const budgetMs = 2;

const bases = loadFixtures().map((f) => f.evidence as Record<string, unknown>);
const secrets = [...secretSamples('a1B'), ...secretSamples('Zq9'), ...secretSamples('m7K')];

/** Fragments that sit at the heart of the catalogue's patterns, repeated to provoke backtracking. */
const hostileUnits = [
  'rate limit ',
  'model ',
  'api error: ',
  '"type":"',
  "'code': '",
  'per day ',
  'limit ',
  'quota ',
  'try again in ',
  'retry after ',
  'resets ',
  '529 ',
  'overloaded ',
  'error code: ',
  'status: ',
  'a',
  '0',
  ' ',
  '\\"',
  '{"error":',
  'stream disconnected ',
  'connection ',
  'eyJ',
  'sk-',
  '@',
  '://',
  'Bearer ',
  'key=',
  'organization ',
  'projects/',
  'Error: RetriableError: ',
  '5 hours 4 minutes ',
  '1h2m3s',
  'in ',
  'usage limit reached|',
  '(Europe/',
  'aA1-',
];

const hostileText = fc
  .tuple(
    fc.array(fc.constantFrom(...hostileUnits), { minLength: 1, maxLength: 6 }),
    fc.integer({ min: 1, max: 8000 }),
  )
  .map(([units, times]) =>
    units
      .join('')
      .repeat(Math.max(1, Math.floor(times / units.length)))
      .slice(0, 70_000),
  );

const bigText = fc
  .constantFrom('x', 'é', '😀', 'ab ', 'limit ')
  .map((u) => u.repeat(Math.ceil(66_000 / u.length)));

const someText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 3, arbitrary: hostileText },
  { weight: 1, arbitrary: bigText },
);

const planted = fc.record({
  secret: fc.constantFrom(...secrets),
  left: fc.constantFrom(' ', '"', '=', ': ', '\n', '(', ',', "'", '\t'),
  right: fc.constantFrom(' ', '"', ')', ',', '\n', '.', "'"),
});

const anyJson = fc.jsonValue({ maxDepth: 4 });

/** A fixture envelope with one field replaced, a secret planted, or the whole thing arbitrary. */
const envelope = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...bases),
        fc.constantFrom(
          'text',
          'body',
          'message',
          'stderr_tail',
          'model',
          'provider',
          'observed_at',
          'status',
          'kind',
          'error',
          'headers',
          'name',
        ),
        fc.oneof(someText, anyJson),
        fc.option(planted, { nil: undefined }),
        fc.nat(),
      )
      .map(([base, field, value, secret, at]) => {
        const e: Record<string, unknown> = structuredClone(base);
        const key = ['text', 'body', 'message', 'stderr_tail'].find((k) => typeof e[k] === 'string');
        if (secret && key) {
          const s = e[key] as string;
          const i = at % (s.length + 1);
          e[key] = `${s.slice(0, i)}${secret.left}${secret.secret.text}${secret.right}${s.slice(i)}`;
        } else if (secret?.secret.selfEvident) {
          // In an id field only a self-evident credential is recognizable: a bare project name is not.
          e.model = secret.secret.value;
        } else if (field === 'error' && e.kind === 'acp_error') {
          e.error = { code: -32603, message: typeof value === 'string' ? value : 'x', data: value };
        } else if (field in e || ['text', 'body', 'message'].includes(field)) {
          e[field] = value;
        }
        return {
          envelope: e,
          secret: secret && (key || secret.secret.selfEvident) ? secret.secret : undefined,
        };
      }),
  },
  { weight: 1, arbitrary: anyJson.map((v) => ({ envelope: v, secret: undefined })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('http', 'acp_error', 'stderr', 'process_exit', 'sdk_exception', 'acp_update'),
        someText,
        planted,
      )
      .map(([kind, text, p]) => {
        const body = `${text.slice(0, 2000)}${p.left}${p.secret.text}${p.right}${text.slice(2000)}`;
        const byKind: Record<string, unknown> = {
          http: { kind, status: 429, body, headers: { authorization: `Bearer ${p.secret.value}` } },
          acp_error: { kind, error: { code: -32603, message: body, data: { detail: body } } },
          stderr: { kind, text: body },
          process_exit: { kind, exit_code: 1, signal: null, stderr_tail: body },
          sdk_exception: { kind, name: 'RateLimitError', message: body },
          acp_update: {
            kind,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: body } },
          },
        };
        return { envelope: byKind[kind], secret: p.secret };
      }),
  },
);

/**
 * Wall time of one call. An outlier is re-timed up to three times and the best kept: a garbage-collector pause
 * caused by the generator's 64 KiB strings, or a moment without a core on a busy machine, is not the
 * classifier's cost, while an input that is slow by construction stays slow on every try.
 */
function timed(input: unknown): { ms: number; out: ReturnType<typeof classify> } {
  const start = performance.now();
  const out = classify(input, { now });
  return { ms: performance.now() - start, out };
}

describe('[CLS-02][DAT-09] classify robustness', () => {
  it(`never throws, stays under ${budgetMs} ms, validates and leaks no planted secret (${runs} runs, seed ${seed})`, () => {
    // Warm the JIT on every shape of input first: the budget is the steady-state cost of a call, not the
    // one-time cost of compiling the classifier's functions and regular expressions.
    for (let i = 0; i < 400; i++) classify(bases[i % bases.length], { now });
    const warm = fc.sample(envelope, { numRuns: 3000, seed: seed + 1 });
    for (let round = 0; round < 3; round++) for (const w of warm) classify(w.envelope, { now });
    let slowest = 0;
    fc.assert(
      fc.property(envelope, ({ envelope: input, secret }) => {
        let { ms, out } = timed(input);
        for (let retry = 0; ms >= budgetMs / 2 && retry < 3; retry++) ms = Math.min(ms, timed(input).ms);
        slowest = Math.max(slowest, ms);
        expect(ms).toBeLessThan(budgetMs);
        const check = classificationSchema.safeParse(out);
        if (!check.success) throw new Error(JSON.stringify(check.error.issues));
        if (secret) expect(JSON.stringify(out)).not.toContain(secret.value);
        out = timed(input).out;
        expect(out).toEqual(classify(input, { now }));
      }),
      { numRuns: runs, seed },
    );
    console.log(`slowest classification (best of up to four tries): ${slowest.toFixed(3)} ms`);
  }, 600_000);
});
