import { describe, expect, it } from 'vitest';
import { formatIsoUtc, parseIsoDateTime } from '../../../src/core/time/iso-time.js';
import { parseHttpDate } from '../../../src/core/time/http-date.js';

describe('[CLS-23] ISO-8601 date-times with a zone', () => {
  it('reads the years 0000 to 0099 as themselves, not as 1900 to 1999', () => {
    for (const iso of [
      '0000-01-01T00:00:00Z',
      '0050-06-15T12:30:00Z',
      '0099-12-31T23:59:59Z',
      '0400-02-29T00:00:00Z',
    ]) {
      expect(formatIsoUtc(parseIsoDateTime(iso)!), iso).toBe(iso);
    }
    expect(parseIsoDateTime('0069-12-31T00:00:00Z')).toBeLessThan(parseIsoDateTime('1000-01-01T00:00:00Z')!);
  });

  it('reads every year the same as Date.parse where Date.parse is exact', () => {
    for (const iso of [
      '1970-01-01T00:00:00Z',
      '1969-12-31T23:59:59.999Z',
      '2026-12-06T10:00:00+02:00',
      '2028-02-29T23:59:59-18:00',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(parseIsoDateTime(iso), iso).toBe(Date.parse(iso));
    }
  });

  it('refuses an instant that a zone carries past year 0000 or 9999: no four-digit year prints it', () => {
    expect(parseIsoDateTime('0000-01-01T00:00:00+01:00')).toBeNull();
    expect(parseIsoDateTime('9999-12-31T23:00:00-02:00')).toBeNull();
    expect(parseIsoDateTime('0000-01-01T00:00:00-01:00')).toBe(Date.parse('0000-01-01T01:00:00Z'));
  });

  it('an HTTP-date with a four-digit year below 100 is that year too', () => {
    expect(parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT', 0)).toBe(Date.parse('0050-01-01T00:00:00Z'));
  });
});
