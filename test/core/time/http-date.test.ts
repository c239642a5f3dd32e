import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../src/core/time/http-date.js';

const at = (iso: string) => Date.parse(iso);
const now = at('2026-06-01T12:00:00Z');

describe('[CLS-23] HTTP-date, RFC 9110 section 5.6.7', () => {
  it('reads the preferred IMF-fixdate and the two obsolete forms to the same instant', () => {
    const want = at('1994-11-06T08:49:37Z');
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(want);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', at('1995-01-01T00:00:00Z'))).toBe(want);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', now)).toBe(want);
    expect(parseHttpDate('  Sun Nov 16 08:49:37 1994 ', now)).toBe(at('1994-11-16T08:49:37Z'));
  });

  it('takes a two-digit year more than 50 years ahead as the most recent past year with those digits', () => {
    expect(parseHttpDate('Monday, 01-Jun-26 12:00:30 GMT', now)).toBe(at('2026-06-01T12:00:30Z'));
    expect(parseHttpDate('Friday, 01-Jun-76 12:00:00 GMT', now)).toBe(at('2076-06-01T12:00:00Z'));
    expect(parseHttpDate('Friday, 01-Jun-77 12:00:00 GMT', now)).toBe(at('1977-06-01T12:00:00Z'));
  });

  it('refuses impossible dates and times, other zones and other shapes', () => {
    for (const bad of [
      'Mon, 31 Feb 2026 12:00:00 GMT',
      'Mon, 01 Jun 2026 24:00:00 GMT',
      'Mon, 01 Jun 2026 12:00:00 PST',
      'Mon, 1 Jun 2026 12:00:00 GMT',
      '2026-06-01T12:00:00Z',
      '30',
      '',
    ]) {
      expect(parseHttpDate(bad, now), bad).toBeNull();
    }
  });
});
