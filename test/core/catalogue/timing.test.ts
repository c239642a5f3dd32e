import { describe, expect, it } from 'vitest';
import { classify } from '../../../src/core/index.js';

const observed = '2026-06-01T12:00:00Z';
const t0 = Date.parse(observed);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const plus = (seconds: number) => iso(t0 + seconds * 1000);
const later = Date.parse('2027-01-01T00:00:00Z');

/** A 429 whose timing comes from `headers` and `body`. */
function http429(
  headers: Record<string, string>,
  body = '{"error":{"message":"Too many requests"}}',
  observedAt = observed,
) {
  return classify({ kind: 'http', status: 429, headers, body, observed_at: observedAt }, { now: later });
}
function text(line: string, observedAt = observed) {
  return classify({ kind: 'stderr', text: line, observed_at: observedAt }, { now: later });
}

describe('[CLS-23][DAT-08] timing hints', () => {
  it('Retry-After in seconds and as an HTTP-date, and retry-after-ms', () => {
    expect(http429({ 'Retry-After': '20' }).retry_after).toBe(plus(20));
    expect(http429({ 'retry-after': 'Mon, 01 Jun 2026 12:00:45 GMT' }).retry_after).toBe(plus(45));
    expect(http429({ 'retry-after-ms': '1500', 'retry-after': '9' }).retry_after).toBe(iso(t0 + 1500));
  });

  it('Retry-After in all three HTTP-date forms of RFC 9110 section 5.6.7', () => {
    expect(http429({ 'retry-after': 'Monday, 01-Jun-26 12:00:30 GMT' }).retry_after).toBe(plus(30));
    expect(http429({ 'retry-after': 'Mon Jun  1 12:00:50 2026' }).retry_after).toBe(plus(50));
    expect(http429({ 'retry-after': 'mon, 01 jun 2026 12:00:10 gmt' }).retry_after).toBe(plus(10));
    // Not a date: no hint rather than a guess.
    expect(http429({ 'retry-after': 'Mon, 32 Jun 2026 12:00:10 GMT' }).retry_after).toBeNull();
    expect(http429({ 'retry-after': 'soon' }).retry_after).toBeNull();
  });

  it('a phrase wrapped by the terminal (blanks and a line break inside it) and a reset on an ISO date at a UTC time', () => {
    expect(
      text(`API Error: 429 Too Many Requests. Please retry in${' '.repeat(120)}\n  39.5s.`).retry_after,
    ).toBe(iso(t0 + 39_500));
    expect(
      text(
        'API Error: 400 You have reached your specified API usage limits. You will regain access on 2026-07-01 at     00:00 UTC.',
      ).reset_at,
    ).toBe('2026-07-01T00:00:00Z');
  });

  it('OpenAI x-ratelimit-reset-* durations: the exhausted bucket decides', () => {
    const h = {
      'x-ratelimit-reset-requests': '20ms',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-tokens': '6m0s',
      'x-ratelimit-remaining-tokens': '0',
    };
    expect(http429(h).reset_at).toBe(plus(360));
    expect(http429({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '20ms' }).reset_at).toBe(
      plus(1),
    );
  });

  it('the IETF RateLimit fields: a structured item exhausted decides, and the older RateLimit-Reset', () => {
    // A bare 429 from a named provider (an unnamed one must name the model call: the model-call anchor).
    const reset = (headers: Record<string, string>) => {
      const out = classify(
        { kind: 'http', status: 429, headers, body: '{}', provider: 'some-provider', observed_at: observed },
        { now: later },
      );
      expect(out.code).toBe('rate_limited');
      return out.reset_at ?? out.retry_after;
    };
    expect(
      reset({ ratelimit: '"api";r=0;t=55', 'ratelimit-policy': '"fixed window";"api";q=500;w=300' }),
    ).toBe(plus(55));
    // Of two windows, the exhausted one says when a request can go again, not the one that resets sooner.
    expect(reset({ RateLimit: '"burst";r=3;t=1, "hour";r=0;t=600' })).toBe(plus(600));
    expect(reset({ 'RateLimit-Reset': '30', 'RateLimit-Remaining': '0' })).toBe(plus(30));
    // No time in the field, or not a number: no hint rather than a guess.
    expect(reset({ ratelimit: '"api";r=0' })).toBeNull();
    expect(reset({ ratelimit: '"api";r=0;t=soon' })).toBeNull();
    expect(reset({ 'ratelimit-reset': 'tomorrow' })).toBeNull();
  });

  it('anthropic-ratelimit-*-reset instants and the unified subscription reset', () => {
    const h = {
      'anthropic-ratelimit-requests-reset': '2026-06-01T12:00:30Z',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2026-06-01T12:00:05Z',
    };
    expect(http429(h).reset_at).toBe(plus(30));
    const unified = classify(
      {
        kind: 'http',
        status: 429,
        headers: { 'anthropic-ratelimit-unified-reset': String(t0 / 1000 + 7200) },
        body: '',
        observed_at: observed,
      },
      { now: later },
    );
    expect(unified.reset_at).toBe(plus(7200));
    expect(unified.code).toBe('quota_limited');
  });

  it('rate-limit headers printed inside the text: the exhausted bucket, only for the rule that reads them', () => {
    // An SDK's dump of the failed response's headers (a Python dict or `name: value` lines).
    const dump = [
      "429 {'anthropic-ratelimit-requests-remaining': '0',",
      "'anthropic-ratelimit-requests-reset': '2026-06-01T12:00:40Z',",
      "'anthropic-ratelimit-tokens-remaining': '16000', 'anthropic-ratelimit-tokens-reset': '2026-06-01T12:05:00Z'}",
    ].join(' ');
    const out = text(dump);
    expect([out.code, out.classifier_rule]).toEqual(['rate_limited', 'provider.ratelimit_remaining_zero.v1']);
    expect(out.reset_at).toBe(plus(40));
    expect(text('x-ratelimit-remaining-tokens: 0\nx-ratelimit-reset-tokens: 6m0s').reset_at).toBe(plus(360));
    expect(
      text('x-ratelimit-remaining-tokens: 0\nx-ratelimit-reset-tokens: 1m0s\nPlease try again in 20s')
        .retry_after,
    ).toBe(plus(20));
    // Another rule that wins does not trust a printed header: a quoted reset beside a plain 429 is no hint.
    const plain = text("Error: 429 Too Many Requests {'x-ratelimit-reset-requests': '8.64s'}");
    expect(plain.classifier_rule).not.toBe('provider.ratelimit_remaining_zero.v1');
    expect([plain.retry_after, plain.reset_at]).toEqual([null, null]);
  });

  it('Chinese waits, a loading model\'s estimated_time, a cooldown\'s reset_seconds, "Retry after <date> UTC"', () => {
    expect(text('429 所有账号均已达速率限制，请 117 秒后重试').retry_after).toBe(plus(117));
    expect(text('429 请求过于频繁，请 5 分钟后再试').retry_after).toBe(plus(300));
    expect(
      http429({}, '{"error":"Model x/y is currently loading","estimated_time":35.6677131652832}').retry_after,
    ).toBe(iso(t0 + 35668));
    // Seven hours of cooldown: a long window, so the code follows the wait (quota, not a rate limit).
    const cooldown = http429({}, '{"error":{"code":"model_cooldown","reset_seconds":25803}}');
    expect([cooldown.code, cooldown.retry_after]).toEqual(['quota_limited', plus(25803)]);
    const cody = text(
      '429: you have exceeded the rate limit of 10 requests. Retry after 2026-06-01 12:20:00 +0000 UTC',
    );
    expect(cody.reset_at ?? cody.retry_after).toBe(plus(1200));
    // A countdown of the client's own in Chinese is not read as "N seconds later, retry": no 后重试 follows it.
    expect(text('429 等待 13570s 第 1/10 次').retry_after).toBeNull();
  });

  it('Gemini RetryInfo.retryDelay and Code Assist quotaResetTimeStamp from the body', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '38.5s' },
          { metadata: { quotaResetTimeStamp: '2026-06-01T12:10:00Z' } },
        ],
      },
    });
    const c = http429({}, body);
    expect(c.retry_after).toBe(iso(t0 + 38_500));
    expect(c.reset_at).toBe(plus(600));
  });

  it.each([
    ['Rate limit reached for gpt-4 on tokens per min. Please try again in 1.2s.', 1.2],
    ['Rate limit reached. Please try again in 6ms.', 0.006],
    ['Rate limit is exceeded. Please retry after 20 seconds.', 20],
    ['You have exhausted your capacity on this model. Your quota will reset after 44m7s.', 2647],
    ['Rate limit reached on tokens per minute. Please try again in 9m38.016s.', 578.016],
    ['rate limited: please wait 3 minutes before trying again', 180],
    ['throttled, retry in 2.5s', 2.5],
  ])('relative phrase %j', (line, seconds) => {
    expect(text(line).retry_after).toBe(iso(t0 + Math.round(seconds * 1000)));
  });

  it.each([
    ["You've hit your usage limit. Try again in 4 days 20 hours 9 minutes.", 418_140],
    ['5-hour usage limit reached. Resets in 4hr 19min.', 15_540],
    ["Copilot: you've hit a rate limit. Please try again in 2 days 17 hours.", 234_000],
    ['Daily quota exhausted. Your quota will reset after 8h44m7s.', 31_447],
  ])('long relative phrase %j', (line, seconds) => {
    const c = text(line);
    expect(c.retry_after).toBe(plus(seconds));
    expect(c.code).toBe('quota_limited');
  });

  it('the usage-limit epoch sentinel, in seconds or milliseconds', () => {
    expect(text('Claude AI usage limit reached|1780322400', '2026-06-01T12:00:00Z').reset_at).toBe(
      '2026-06-01T14:00:00Z',
    );
    expect(text('Claude AI usage limit reached|1780322400000').reset_at).toBe('2026-06-01T14:00:00Z');
  });

  it('zoned wall clocks resolve through the IANA zone', () => {
    expect(
      text("You've hit your session limit · resets 11:10am (Europe/Helsinki)", '2026-10-01T08:03:00Z')
        .reset_at,
    ).toBe('2026-10-01T08:10:00Z');
    expect(
      text(
        'Claude usage limit reached. Your limit will reset at 5pm (Europe/Warsaw).',
        '2025-08-19T12:00:00Z',
      ).reset_at,
    ).toBe('2025-08-19T15:00:00Z');
    // Already past today in Denver: tomorrow.
    expect(
      text("You've hit your session limit · resets 5:20am (America/Denver)", '2026-07-07T12:00:00Z').reset_at,
    ).toBe('2026-07-08T11:20:00Z');
    expect(text("You've hit your weekly limit · resets Jun 3, 9am (Europe/Paris)").reset_at).toBe(
      '2026-06-03T07:00:00Z',
    );
    expect(text('Usage limit reached, resets at 15:00 UTC').reset_at).toBe('2026-06-01T15:00:00Z');
  });

  it('an hour offset after UTC or GMT counts as people write it (GMT-3 is three hours behind), not as GMT itself', () => {
    expect(
      text(
        'Usage limit reached for gemini-3-flash-preview. Access resets at 10:57 PM GMT-3.',
        '2026-03-16T12:00:00Z',
      ).reset_at,
    ).toBe('2026-03-17T01:57:00Z');
    expect(text('Usage limit reached, resets at 9am UTC+8', '2026-06-01T00:30:00Z').reset_at).toBe(
      '2026-06-01T01:00:00Z',
    );
    // An offset past any real zone gives nothing rather than a wrong instant.
    expect(text('Usage limit reached, resets at 9am GMT+15', '2026-06-01T00:30:00Z').reset_at).toBeNull();
  });

  it('a wall clock without a zone, in a DST gap, or in an ambiguous autumn hour gives no hint', () => {
    expect(text('Usage limit reached. Your limit will reset at 5pm.').reset_at).toBeNull();
    expect(
      text(
        "You've hit your usage limit. Upgrade your plan to continue, or try again at 10 de jul. de 2026, 11:52.",
      ).reset_at,
    ).toBeNull();
    // Europe/Helsinki skips 03:00-04:00 on 2026-03-29 and repeats 03:00-04:00 on 2026-10-25.
    expect(
      text('Session limit reached · resets 3:30am (Europe/Helsinki)', '2026-03-29T00:00:00Z').reset_at,
    ).toBeNull();
    expect(
      text('Session limit reached · resets 3:30am (Europe/Helsinki)', '2026-10-25T00:00:00Z').reset_at,
    ).toBeNull();
    expect(text('Session limit reached · resets 3:30am (Mars/Olympus_Mons)').reset_at).toBeNull();
  });

  it.each([
    'API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}) · Retrying in 4 seconds… (attempt 4/10)',
    'Connection reset by server, retrying in 25s - attempt #21',
    'Rate limit exceeded. Waiting for 10 seconds.',
    'stream error: exceeded retry limit, last status: 429 Too Many Requests; retrying 1/5 in 214ms…',
    'Rate limited by the API. Retrying in 20.387 second(s)... with extra buffer of: 20.0 second(s)',
    'rate limited; {"retryInMs": 3000}',
    'Rate limit exceeded. Please retry after a brief wait.',
    'Sorry, your request was rate-limited. Please wait and try sending again later.',
  ])("a client's own countdown is not a hint: %j", (line) => {
    const c = text(line);
    expect(c.retry_after).toBeNull();
    expect(c.reset_at).toBeNull();
  });

  it('keeps only a future time within 30 days', () => {
    expect(text('Claude AI usage limit reached|1780300000').reset_at).toBeNull(); // before observed_at
    expect(text('rate limited, please try again in 31 days').retry_after).toBeNull();
    expect(text('rate limited, please try again in 30 days').retry_after).toBe(plus(30 * 86400));
    expect(http429({ 'retry-after': '99999999' }).retry_after).toBeNull();
  });

  it('[DAT-08] a hint past the end of year 9999 is dropped, never printed as a five-digit year', () => {
    const now = Date.parse('9999-12-31T23:00:00Z');
    const at = (headers: Record<string, string>, body: string) =>
      classify({ kind: 'http', status: 429, headers, body }, { now });
    // Within 30 days of the clock, but in year 10000: no ISO-8601 date-time names it.
    const past = at({ 'retry-after': '7200' }, '{"error":{"message":"Too many requests"}}');
    expect(past.code).toBe('rate_limited');
    expect(past.occurred_at).toBe('9999-12-31T23:00:00Z');
    expect(past.retry_after).toBeNull();
    // The last instant a four-digit year names is still kept.
    const last = at({ 'retry-after': '3599' }, '{"error":{"message":"Too many requests"}}');
    expect(last.retry_after).toBe('9999-12-31T23:59:59Z');
  });

  it('measures relative hints from observed_at, else from the caller now', () => {
    const now = Date.parse('2026-02-02T02:00:00Z');
    expect(classify({ kind: 'stderr', text: 'Rate limit hit, try again in 10s' }, { now }).retry_after).toBe(
      iso(now + 10_000),
    );
    expect(classify({ kind: 'stderr', text: 'Rate limit hit, try again in 10s' }, { now }).occurred_at).toBe(
      iso(now),
    );
  });

  it('structured headers outrank body fields, which outrank text', () => {
    const body =
      '{"error":{"message":"Rate limited. Please try again in 50s.","details":[{"retryDelay":"40s"}]}}';
    expect(http429({ 'retry-after': '30' }, body).retry_after).toBe(plus(30));
    expect(http429({}, body).retry_after).toBe(plus(40));
    expect(http429({}, '{"error":{"message":"Rate limited. Please try again in 50s."}}').retry_after).toBe(
      plus(50),
    );
  });

  it('no timing on not_provider or unclassified results', () => {
    const c = text('context canceled; try again in 10s');
    expect(c.class).toBe('unclassified');
    expect(c.retry_after).toBeNull();
  });
});
