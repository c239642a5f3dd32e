import { openRecourse, type Recourse } from '../../../src/app/index.js';
import type { DynamicProfileInput, EvidenceEnvelope } from '../../../src/core/index.js';
import { ManualClock } from '../../../src/engine/index.js';
import { RecordingDispatcher, replayOf, tempDatabase } from '../../engine/harness.js';
import { t0 } from '../../core/route/route-fixtures.js';

/** Retries transient failures 3 times from 5 s, then skips; hard failures stop. */
export const retries = {
  version: 1 as const,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'skip' as const,
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop' as const,
  },
};

export function overloadedFrom(provider: string): EvidenceEnvelope {
  return {
    kind: 'http',
    status: 529,
    provider,
    body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  };
}

/** A real Recourse: a SQLite file, the real engine, a manual clock, a dispatcher that accepts every attempt. */
export async function openTestRecourse(
  profile: DynamicProfileInput,
): Promise<{ recourse: Recourse; clock: ManualClock; dispatcher: RecordingDispatcher }> {
  const clock = new ManualClock(t0);
  const dispatcher = new RecordingDispatcher();
  const recourse = await openRecourse({ database: await tempDatabase(), clock, dispatcher });
  await recourse.engine.saveProfile(profile);
  return { recourse, clock, dispatcher };
}

/** Reports a failure of the route's current attempt (clean replay evidence: safe to retry). */
export async function failRoute(
  recourse: Recourse,
  routeId: string,
  evidence: EvidenceEnvelope,
): Promise<void> {
  const route = await recourse.store.readRoute(routeId);
  if (route === null) throw new Error(`no route ${routeId}`);
  await recourse.engine.reportFailure({
    routeId,
    generation: route.generation,
    ...(route.dispatch === null ? {} : { invocationId: route.dispatch.intentId }),
    evidence,
    replay: replayOf(route),
  });
  await recourse.engine.idle();
}

/** Moves the clock to `ms` and fires every due timer there (late, if `ms` is past their deadlines). */
export async function fireAt(recourse: Recourse, clock: ManualClock, ms: number): Promise<void> {
  clock.set(ms);
  clock.fireDue();
  await recourse.engine.idle();
}
