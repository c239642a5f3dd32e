import type { DemoFaultName } from './demo-faults.js';
import type { DemoRandom } from './demo-random.js';

/** What one attempt of a simulated agent ends with. */
export type DemoOutcome = DemoFaultName | 'success';

/**
 * Short stories, one attempt per entry, each ending where the route recovers (or stops for the operator, whose
 * action starts the next attempt). The engine decides what each failure leads to; the story only says what the
 * provider does next.
 */
const episodes = {
  overload_then_recover: ['overload', 'success'],
  throttled_then_recover: ['throttled', 'success'],
  quota_then_switch: ['quota', 'success'],
  login_expired_then_switch: ['login_expired', 'success'],
  stream_cut_then_recover: ['stream_cut', 'success'],
  // Stops for a person: the operator retries or skips after a while, and that attempt succeeds.
  fails_after_tool: ['after_tool', 'success'],
  unknown_error: ['unknown', 'success'],
  // Retries run out on the first candidate, and the route moves on.
  overload_until_switch: ['overload', 'overload', 'overload', 'success'],
  clean: ['success'],
} as const satisfies Record<string, readonly DemoOutcome[]>;
type Episode = keyof typeof episodes;

/**
 * The first story of each session, in session order: twelve sessions meet every fault within their first turn, so
 * every state shows within seconds of the start.
 */
const openings: readonly Episode[] = [
  'overload_then_recover',
  'throttled_then_recover',
  'quota_then_switch',
  'fails_after_tool',
  'stream_cut_then_recover',
  'unknown_error',
  'login_expired_then_switch',
  'overload_until_switch',
  'throttled_then_recover',
  'clean',
  'overload_then_recover',
  'quota_then_switch',
];

/** Later stories, drawn at random: clean turns weigh more, so the fleet mostly works, as a real one does. */
const later: readonly Episode[] = [
  'clean',
  'clean',
  'clean',
  'overload_then_recover',
  'throttled_then_recover',
  'quota_then_switch',
  'login_expired_then_switch',
  'stream_cut_then_recover',
  'fails_after_tool',
  'unknown_error',
  'overload_until_switch',
];

/** One session's provider: hands out the outcome of each attempt in turn, story after story. */
export class DemoScript {
  private queue: DemoOutcome[];

  constructor(
    session: number,
    private readonly random: DemoRandom,
  ) {
    this.queue = [...episodes[openings[session % openings.length]!]];
  }

  next(): DemoOutcome {
    if (this.queue.length === 0) this.queue = [...episodes[this.random.pick(later)]];
    return this.queue.shift()!;
  }
}
