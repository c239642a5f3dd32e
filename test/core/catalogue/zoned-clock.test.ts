import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { resolveZonedClock } from '../../../src/core/catalogue/timing/zoned-clock.js';

/** The zone's wall clock at `epochMs`, read from the parts (the slow, unambiguous way). */
function wallClock(zone: string, epochMs: number) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(epochMs);
  const value = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { month: value('month'), day: value('day'), hour: value('hour'), minute: value('minute') };
}

/** Whole, half, three-quarter and 30-minute-DST offsets, both hemispheres, and zones with no DST. */
const zones = [
  'UTC',
  'Europe/Helsinki',
  'America/New_York',
  'America/St_Johns',
  'Asia/Calcutta',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'America/Santiago',
];

describe('[CLS-23] wall-clock reset times in a named zone (issue 10: the clock is read without formatToParts)', () => {
  it('resolve to the first later instant the zone shows that time, or to nothing in a gap', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2099, 0, 1) }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        (zone, referenceMs, hour, minute) => {
          const at = resolveZonedClock({ hour, minute, zone }, referenceMs);
          if (at === null) return;
          expect(at).toBeGreaterThan(referenceMs);
          expect(at - referenceMs).toBeLessThanOrEqual(50 * 3_600_000);
          expect(wallClock(zone, at)).toMatchObject({ hour, minute });
          // Not a day late: the instant a day earlier is not yet after the reference, or shows another time.
          const dayBefore = at - 86_400_000;
          if (dayBefore > referenceMs) expect(wallClock(zone, dayBefore)).not.toMatchObject({ hour, minute });
        },
      ),
      { numRuns: 2000, seed: 23 },
    );
  });

  it('with a date, land on that month and day', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2099, 0, 1) }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        (zone, referenceMs, month, day, hour) => {
          const at = resolveZonedClock({ hour, minute: 30, month, day, zone }, referenceMs);
          if (at === null) return;
          expect(at).toBeGreaterThan(referenceMs);
          expect(wallClock(zone, at)).toEqual({ month, day, hour, minute: 30 });
        },
      ),
      { numRuns: 1000, seed: 24 },
    );
  });

  it('an unknown zone resolves to nothing', () => {
    expect(
      resolveZonedClock({ hour: 9, minute: 0, zone: 'Mars/Olympus_Mons' }, Date.UTC(2026, 0, 1)),
    ).toBeNull();
  });
});
