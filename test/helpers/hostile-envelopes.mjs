// @ts-check
// The hostile inputs of the classifier's robustness test, shared with the benchmark that times them
// (bench/classify-worst-case.mjs): the same seed gives both the same envelopes. Plain JavaScript, type-checked by
// tsc, because the benchmark runs on Node against dist/ without a TypeScript loader.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { readJsonl } from './corpus.mjs';
import { secretSamples } from '../core/sanitize/secrets.mjs';

/** @typedef {import('../core/sanitize/secrets.mjs').SecretSample} SecretSample */

/**
 * One generated input: an envelope (or any JSON value) and the secret planted in it, if any, which must not
 * appear in the classification.
 * @typedef {{ envelope: unknown, secret: SecretSample | undefined }} HostileInput
 */

/**
 * How many inputs and which seed: 100,000 and 20261129 unless RECOURSE_FUZZ_RUNS or RECOURSE_FUZZ_SEED say
 * otherwise. `now` is the caller's clock the inputs are classified at (epoch ms).
 */
export const fuzzSettings = {
  runs: Number(process.env.RECOURSE_FUZZ_RUNS ?? 100_000),
  seed: Number(process.env.RECOURSE_FUZZ_SEED ?? 20261129),
  now: Date.parse('2026-06-01T12:00:00Z'),
};

const fixturesDir = fileURLToPath(new URL('../../catalogue/fixtures/', import.meta.url));

/** The evidence of every catalogue fixture, file by file in name order (the order `loadFixtures` gives). */
const fixtureEvidence = readdirSync(fixturesDir)
  .filter((name) => name.endsWith('.jsonl'))
  .sort()
  .flatMap((name) =>
    readJsonl(join(fixturesDir, name)).map(
      (fixture) =>
        /** @type {Record<string, unknown>} */ (/** @type {{ evidence: unknown }} */ (fixture).evidence),
    ),
  );

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
  // A registry manifest URL's parts (an image pull): its pattern once took 5 ms on a run of these.
  'http:///v2/',
  '/v2/',
  'bin ',
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
  // The secret formats of issue 10's second hostile pass: a Digest list that never closes, command-line options,
  // runs of JSON escapes, CJK key words.
  'Digest a=b, response="',
  'mysql ',
  ' -px',
  ' -u a:',
  ' --password ',
  '\\u0041',
  '\\u003ca',
  'キー: ',
  'ー',
  'MTA4',
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

/**
 * Realistic fixtures mutated field by field or with a secret planted (6 in 9), arbitrary JSON (1 in 9), and
 * envelopes of every kind built around hostile, binary or 64 KiB texts with a planted secret (2 in 9).
 * @type {fc.Arbitrary<HostileInput>}
 */
export const hostileInput = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...fixtureEvidence),
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
        /** @type {Record<string, unknown>} */
        const e = structuredClone(base);
        const key = ['text', 'body', 'message', 'stderr_tail'].find((k) => typeof e[k] === 'string');
        if (secret && key) {
          const s = /** @type {string} */ (e[key]);
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
          envelope: /** @type {unknown} */ (e),
          secret: secret && (key || secret.secret.selfEvident) ? secret.secret : undefined,
        };
      }),
  },
  {
    weight: 1,
    arbitrary: anyJson.map((v) => ({ envelope: /** @type {unknown} */ (v), secret: undefined })),
  },
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
        /** @type {Record<string, unknown>} */
        const byKind = {
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
        return { envelope: byKind[kind], secret: /** @type {SecretSample | undefined} */ (p.secret) };
      }),
  },
);
