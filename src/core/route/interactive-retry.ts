import type { Classification } from '../classify/classification.js';
import { parseIsoDateTime } from '../time/iso-time.js';

/**
 * The concrete-profile interactive retry entry (REQUIREMENTS CUR-36 decision): one orchestrator-owned budget,
 * `transientMaxAttempts` retries at `transientRetryDelayFor` delays, no nested counters. A trusted hint within
 * 60 s replaces the delay. Exhaustion goes to manual recovery with Resume and Start fresh.
 */
export const interactiveRetryDefaults = {
  transientMaxAttempts: 5,
  delaysSeconds: [5, 10, 20, 40, 60],
  hintWindowSeconds: 60,
} as const;

export const manualRecoveryActions = ['resume', 'start_fresh'] as const;

/** Seconds before retry `attempt` (1-based); a validated hint within the window replaces the schedule. */
export function transientRetryDelayFor(
  attempt: number,
  classification: Classification,
  nowMs: number,
): number {
  const delays = interactiveRetryDefaults.delaysSeconds;
  const scheduled = delays[Math.min(delays.length, Math.max(1, attempt)) - 1]!;
  const hints = [classification.retry_after, classification.reset_at]
    .map((t) => (t === null ? null : parseIsoDateTime(t)))
    .filter(
      (t): t is number =>
        t !== null && t > nowMs && t - nowMs <= interactiveRetryDefaults.hintWindowSeconds * 1000,
    );
  return hints.length === 0 ? scheduled : Math.ceil((Math.max(...hints) - nowMs) / 1000);
}
