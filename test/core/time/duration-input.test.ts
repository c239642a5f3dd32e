import { describe, expect, it } from 'vitest';
import { formatDurationInput, parseDurationInput } from '../../../src/core/time/duration-input.js';

const seconds = (text: string) => {
  const parsed = parseDurationInput(text);
  return parsed.ok ? parsed.seconds : parsed.reason;
};

describe('[UI-04] duration input: units in, whole seconds stored', () => {
  it('reads s, m, h, d and a plain number as seconds', () => {
    expect(seconds('90s')).toBe(90);
    expect(seconds('5m')).toBe(300);
    expect(seconds('2h')).toBe(7200);
    expect(seconds('7d')).toBe(604_800);
    expect(seconds('30')).toBe(30);
    expect(seconds(' 5 min ')).toBe(300);
    expect(seconds('2 Hours')).toBe(7200);
    expect(seconds('1 day')).toBe(86_400);
    expect(seconds('0')).toBe(0);
  });

  it('adds parts together and takes fractions that land on whole seconds', () => {
    expect(seconds('1h 30m')).toBe(5400);
    expect(seconds('1h30m')).toBe(5400);
    expect(seconds('1d, 2h')).toBe(93_600);
    expect(seconds('1.5m')).toBe(90);
    expect(seconds('0.5h')).toBe(1800);
  });

  it('says why it refuses: empty, unreadable, or not whole seconds', () => {
    expect(seconds('')).toBe('empty');
    expect(seconds('   ')).toBe('empty');
    for (const bad of ['5x', 'abc', '-5', '5 m s', '1h 30', 'm', '1e3', '5..5s', '<script>', '9'.repeat(80)])
      expect(seconds(bad), bad).toBe('unreadable');
    expect(seconds('1.5s')).toBe('fractional');
    expect(seconds('0.1m')).toBe(6);
    expect(seconds('0.01m')).toBe('fractional');
  });

  it('writes seconds back in the largest exact unit, and reads its own output back to the same number', () => {
    expect(formatDurationInput(7200)).toBe('2h');
    expect(formatDurationInput(300)).toBe('5m');
    expect(formatDurationInput(90)).toBe('90s');
    expect(formatDurationInput(604_800)).toBe('7d');
    expect(formatDurationInput(5400)).toBe('90m');
    expect(formatDurationInput(0)).toBe('0s');
    for (const n of [1, 59, 60, 61, 3599, 3600, 86_399, 86_400, 604_800])
      expect(seconds(formatDurationInput(n))).toBe(n);
  });
});
