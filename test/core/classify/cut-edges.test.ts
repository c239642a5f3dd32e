import { describe, expect, it } from 'vitest';
import { classify, type EvidenceEnvelope } from '../../../src/core/index.js';
import { windowHeadChars, windowTailChars } from '../../../src/core/classify/facts.js';
import { evidenceBounds } from '../../../src/core/evidence/bounds.js';
import { evidenceOfResponse } from '../../../src/app/index.js';

/**
 * A long text is read in part: rules read its head and tail (the classification window), and a text over the
 * evidence bound is cut. A key across either kind of cut must not come out in part, nor whole once the key word
 * before it is on the other side of the cut (DAT-09: the excerpt is sanitized; docs/classification.md: "a key word
 * before the window still counts, and a secret across either edge is replaced whole").
 */
const hexKey = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const credentials: ReadonlyArray<readonly [string, string]> = [
  ['invalid subscription key ', hexKey],
  ['Authorization: Bearer ', hexKey],
  ['password=', 'Tr0ub4dorXyzzyQ'],
  ['', 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iQ'],
];
const now = Date.parse('2026-06-01T12:00:00Z');

/** Any six characters of the key's value found in `text`. */
function leaked(text: string, value: string): string | null {
  for (let i = 0; i + 6 <= value.length; i++)
    if (text.includes(value.slice(i, i + 6))) return value.slice(i, i + 6);
  return null;
}

/** Filler of words that no rule reads, exactly `n` characters long, ending in a blank. */
const filler = (n: number) => 'w '.repeat(Math.ceil(n / 2) + 1).slice(-n - 1, -1) + ' ';

describe('[DAT-09][CLS-21] a key across a cut of the text never comes out', () => {
  it('the classification window: a key across the tail window start, at every cut point, the rule matching beside it', () => {
    for (const [word, value] of credentials) {
      const secret = word + value;
      for (let cut = 1; cut < secret.length; cut++) {
        // The tail window begins `cut` characters into the secret; the rule's words follow the secret.
        const after = ' API Error: 429 too many requests ';
        const rest = windowTailChars - (secret.length - cut) - after.length;
        const text = filler(windowHeadChars + 500) + secret + after + filler(rest - 1);
        const envelope: EvidenceEnvelope = { kind: 'stderr', provider: 'some-provider', text };
        const { safe_excerpt: excerpt, code } = classify(envelope, { now });
        expect(code).toBe('rate_limited');
        expect({ secret, cut, leak: leaked(excerpt, value) }).toEqual({ secret, cut, leak: null });
      }
    }
  });

  it('the classification window: a key across the head window end', () => {
    for (const [word, value] of credentials) {
      const secret = word + value;
      for (let cut = 1; cut < secret.length; cut++) {
        const head = filler(windowHeadChars - cut - 1) + secret;
        // The rule's words open the tail window: the excerpt around them reaches back across the gap to the head's end.
        const phrase = ' API Error: 429 too many requests ';
        const text = `${head} ${filler(3000)}${phrase}${filler(windowTailChars - 40 - phrase.length)}`;
        const { safe_excerpt: excerpt } = classify(
          { kind: 'stderr', provider: 'some-provider', text },
          { now },
        );
        expect({ secret, cut, leak: leaked(excerpt, value) }).toEqual({ secret, cut, leak: null });
      }
    }
  });

  it('[EVD-02] the evidence bound: a key cut by it is left out, in a text, in a JSON body and in a response read by the embedding', async () => {
    for (const [word, value] of credentials) {
      const secret = word + value;
      for (let kept = word.length + 1; kept < secret.length; kept++) {
        // The status is in the text, just before the key: the excerpt is cut around it, so it shows the end.
        const before = ' API Error: 429 too many requests ';
        const text = filler(evidenceBounds.textBytes - kept - before.length - 1) + before + secret + ' more';
        const built = await evidenceOfResponse(new Response(text, { status: 500 }));
        const envelopes: EvidenceEnvelope[] = [
          { kind: 'stderr', provider: 'some-provider', text },
          // `{"error":{"message":"` and the closing quote take 22 of the JSON body's bytes.
          {
            kind: 'http',
            provider: 'some-provider',
            status: 0,
            body: { error: { message: text.slice(22) } },
          },
          { kind: 'acp_error', provider: 'some-provider', error: { code: -32603, message: text } },
          { ...built, provider: 'some-provider', status: 0 },
        ];
        for (const envelope of envelopes) {
          const { safe_excerpt: excerpt } = classify(envelope, { now });
          expect(excerpt).toContain('too many requests');
          expect({ secret, kept, kind: envelope.kind, leak: leaked(excerpt, value) }).toEqual({
            secret,
            kept,
            kind: envelope.kind,
            leak: null,
          });
        }
      }
    }
  });
});
