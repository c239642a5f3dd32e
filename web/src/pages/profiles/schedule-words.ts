import type { ClassSchedule } from '../../../../src/core/policy/index.js';
import { durationWords } from '../../format.js';

/**
 * A class schedule (`classSchedule`, the function `recourse policy preview` uses) in words. The numbers are the
 * schedule's; only the wording is the page's.
 */
export function scheduleWords(schedule: ClassSchedule): { reset: string | null; retries: string } {
  const outcome = outcomeWords(schedule.on_exhausted);
  const reset =
    schedule.max_wait_seconds > 0
      ? `If the provider gives a trusted reset time within ${durationWords(schedule.max_wait_seconds)}, wait for it once, then try once more.`
      : null;
  const delays = schedule.delays_seconds;
  if (delays.length === 0) {
    const lead = reset === null ? 'No retry' : 'Otherwise no retry';
    return { reset, retries: `${lead}: ${outcome} at once.` };
  }
  const total = delays.reduce((sum, d) => sum + d, 0);
  const steps = delays.map((d, i) => `${i + 1} after ${durationWords(d)}`).join(' · ');
  const lead = reset === null ? 'Retry' : 'Otherwise retry';
  return { reset, retries: `${lead} ${steps}, ${durationWords(total)} of waiting, then ${outcome}.` };
}

/** What happens when recovery is exhausted, in words. */
export function outcomeWords(outcome: ClassSchedule['on_exhausted']): string {
  return outcome === 'skip' ? 'skip to the next candidate' : 'stop and wait for you to choose';
}

/** The one-line summary of a class for the candidate row: "retry 3× from 5 s, then skip". */
export function classSummary(schedule: ClassSchedule): string {
  const parts: string[] = [];
  if (schedule.max_wait_seconds > 0)
    parts.push(`wait for reset up to ${durationWords(schedule.max_wait_seconds)}`);
  if (schedule.delays_seconds.length > 0)
    parts.push(`retry ${schedule.delays_seconds.length}× from ${durationWords(schedule.delays_seconds[0]!)}`);
  const outcome = schedule.on_exhausted;
  return parts.length === 0 ? outcome : `${parts.join(', ')}, then ${outcome}`;
}

/** "Transient: retry 3× from 5 s, then skip · Hard: stop" */
export function candidateSummary(schedules: { transient: ClassSchedule; hard: ClassSchedule }): string {
  return `Transient: ${classSummary(schedules.transient)} · Hard: ${classSummary(schedules.hard)}`;
}
