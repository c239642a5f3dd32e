import type { ClassSchedule } from '../core/index.js';

/** One line per class: the retry delays, the reset waiting and the exhausted outcome (`recourse policy preview`). */
export function renderSchedule(
  schedule: { transient: ClassSchedule; hard: ClassSchedule },
  indent = '',
): string {
  const line = (name: string, s: ClassSchedule) => {
    const retry =
      s.delays_seconds.length === 0 ? 'no retry' : `retry after ${s.delays_seconds.map(duration).join(', ')}`;
    const wait =
      s.max_wait_seconds === 0
        ? 'no reset waiting'
        : `wait for a trusted reset up to ${duration(s.max_wait_seconds)} (once per cycle)`;
    return `${indent}${name.padEnd(10)} ${retry}; ${wait}; then ${s.on_exhausted}\n`;
  };
  return line('transient', schedule.transient) + line('hard', schedule.hard);
}

/** Seconds in the largest whole units: 90 -> "1 min 30 s", 86400 -> "24 h". */
export function duration(seconds: number): string {
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size && !(unit === 'd' && seconds <= 86_400)) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ') || '0 s';
}
