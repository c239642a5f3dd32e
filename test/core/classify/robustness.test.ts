import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzSettings, hostileInput } from '../../helpers/hostile-envelopes.mjs';
import { classificationSchema, classify, RecourseError } from '../../../src/core/index.js';

/**
 * Robustness of `classify` over generated and mutated envelopes: realistic fixtures mutated field by field,
 * arbitrary JSON, 64 KiB bodies, and texts built to make regular expressions backtrack. It never throws, the
 * output always validates, the same input always gives the same output, and no planted secret appears in it.
 * The time of a call is a benchmark's business (`npm run bench:classify-worst-case` replays these same inputs),
 * not a test's: a loaded machine must not fail a correct classifier.
 */
const { runs, seed, now } = fuzzSettings;

describe('[CLS-02][DAT-09] classify robustness', () => {
  it(`never throws, validates, is deterministic and leaks no planted secret (${runs} runs, seed ${seed})`, () => {
    fc.assert(
      fc.property(hostileInput, ({ envelope, secret }) => {
        const out = classify(envelope, { now });
        const check = classificationSchema.safeParse(out);
        if (!check.success) throw new Error(JSON.stringify(check.error.issues));
        if (secret) expect(JSON.stringify(out)).not.toContain(secret.value);
        expect(classify(envelope, { now })).toEqual(out);
      }),
      { numRuns: runs, seed },
    );
  }, 600_000);
});

describe('classify without a clock', () => {
  const envelope = { kind: 'http', status: 529, body: 'Overloaded' };

  it('names the missing options.now in a RecourseError instead of failing on undefined (plain JavaScript callers)', () => {
    for (const options of [undefined, {}, { now: '2026-12-01T00:00:00Z' }, null]) {
      let thrown: unknown;
      try {
        classify(envelope, options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RecourseError);
      expect((thrown as RecourseError).code).toBe('invalid_input');
      expect((thrown as RecourseError).message).toContain('options.now');
    }
  });

  it('takes epoch ms or a Date, and refuses a clock that is no instant from 1970 to 9999', () => {
    const at = Date.UTC(2026, 11, 1);
    expect(classify(envelope, { now: new Date(at) })).toEqual(classify(envelope, { now: at }));
    expect(classify(envelope, { now: 0 }).occurred_at).toBe('1970-01-01T00:00:00Z');
    // A NaN clock used to read as the epoch and -1e20 printed a year that is no ISO-8601: both are refused now.
    for (const now of [Number.NaN, Infinity, -1, -1e20, 1e16, new Date(Number.NaN)]) {
      expect(() => classify(envelope, { now }), String(now)).toThrow(RecourseError);
    }
  });
});
