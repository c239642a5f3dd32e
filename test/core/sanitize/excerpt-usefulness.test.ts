import { describe, expect, it } from 'vitest';
import { corpusFiles, readCorpus, replayNow, toEnvelope } from '../../helpers/corpus.mjs';
import { classifyEvidence, parseEnvelope, redactSecrets, safeExcerpt } from '../../../src/core/index.js';

/** The characters of an excerpt that are not a redaction marker. */
const shownChars = (excerpt: string) => excerpt.replace(/\[REDACTED\]|\[EMAIL\]/g, '').trim().length;

describe('[DAT-09][CLS-21] excerpts stay useful (issue 10)', () => {
  it('keeps at least 20 characters of unredacted text in at least 95 % of the corpus excerpts', () => {
    let total = 0;
    const poor: string[] = [];
    for (const record of corpusFiles.flatMap(readCorpus)) {
      const parsed = parseEnvelope(toEnvelope(record));
      if (!parsed.ok || record.body.trim().length < 20) continue;
      total++;
      const excerpt = classifyEvidence(parsed.evidence, { now: replayNow(record) }).safe_excerpt;
      if (shownChars(excerpt) < 20) poor.push(`${record.id}: ${excerpt}`);
    }
    expect(total).toBeGreaterThan(500);
    // Today every excerpt passes; the bound leaves room for a corpus record that is mostly a credential.
    expect(poor.length / total, poor.join('\n')).toBeLessThanOrEqual(0.05);
  });

  it.each([
    'token expired',
    'Your authentication token has expired. Please obtain a new token or refresh your existing token.',
    'invalid api key provided',
    'Invalid API key. Please check your key and try again.',
    '"max_tokens": 4096 is too large for gpt-4o-2024-08-06',
    'max_tokens_to_sample must be at most 8192',
    "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens.",
    'model key gpt-4o-2024-08-06 token limit reached',
    'token: claude-3-5-sonnet-20241022 not found',
    '{"type":"error","error":{"type":"rate_limit_error"},"request_id":"req_011CSLSsXKms54p1jPtwN6H4"}',
    'x-request-id: 550e8400-e29b-41d4-a716-446655440000',
    'request id 7c0f3f1e9a8b4c2d9e6f1a2b3c4d5e6f',
    'metadata { key: "service" value: "aiplatform.googleapis.com" }',
    '- metadata.api_key: value length must be at least 1 characters',
    'Failed to refresh token: 401 Unauthorized',
    'copilot token chat_enabled: false',
    'reason: USER_PROJECT_DENIED',
    'personal-team-blocked: spending limit reached',
    'Please include the session ID sess_AdZO6AXFD13jXJevRD7yY in your message',
    'contact our sales team (https://www.together.ai/forms/contact-sales)',
  ])('leaves ordinary words after key words alone: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it.each([
    ['invalid subscription key 3f9a0c7d5e1b42f8a6c09d3e7b5f1a24.', 'invalid subscription key [REDACTED].'],
    ['Ocp-Apim-Subscription-Key: 3f9a0c7d5e1b42f8a6c09d3e7b5f1a24', 'Ocp-Apim-Subscription-Key: [REDACTED]'],
    ['the token is 3f9a0c7d5e1b42f8a6c0', 'the token is [REDACTED]'],
    ['api key 550e8400-e29b-41d4-a716-446655440000 unknown', 'api key [REDACTED] unknown'],
    ['key=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;', 'key=[REDACTED];'],
    ['AZURE_OPENAI_API_KEY=3f9a0c7d5e1b42f8a6c09d3e7b5f1a24', 'AZURE_OPENAI_API_KEY=[REDACTED]'],
    ['token=abc123xyz', 'token=[REDACTED]'],
    ['Cookie: sessionid=AbC123dEf456; csrftoken=Zz9Yy8Xx7Ww6', 'Cookie: [REDACTED]'],
    ['secret=abc', 'secret=[REDACTED]'],
  ])('redacts keys identified by the words around them: %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('redacts a key across the excerpt window edge whole, never a fragment of it', () => {
    const key = '3f9a0c7d5e1b42f8a6c09d3e7b5f1a24';
    for (let pad = 560; pad < 700; pad += 3) {
      const text = `${'word '.repeat(pad / 5)}x subscription key ${key} ${'tail '.repeat(200)}`;
      for (const offset of [0, 200, 400, 600, 800]) {
        const excerpt = safeExcerpt(text, { at: 'offset', offset });
        for (let i = 0; i + 8 <= key.length; i++) expect(excerpt).not.toContain(key.slice(i, i + 8));
      }
    }
    const url = `${'word '.repeat(120)}https://admin:${'p4ss'.repeat(60)}@proxy.internal`;
    for (let i = 0; i < 40; i++) {
      expect(safeExcerpt(url, { at: 'offset', offset: 500 + i * 10 })).not.toContain('p4ssp4ss');
    }
  });
});
