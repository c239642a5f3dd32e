import { HttpError } from './http-errors.js';

/** How many refused tokens one client address may send in a window before it must wait. */
export interface TokenThrottleLimits {
  readonly failures: number;
  readonly windowMs: number;
}

/**
 * 30 refused tokens a minute: far above a person's typing and a misconfigured client's retries, far below what
 * guessing even a short token needs.
 */
export const defaultTokenThrottle: TokenThrottleLimits = { failures: 30, windowMs: 60_000 };

/** Addresses remembered at most: past it the oldest is forgotten, so a spray of addresses cannot grow memory. */
const maxAddresses = 10_000;

/**
 * Refused tokens per client address (bearer tokens, sign-ins, `/?token=`): once an address has had `failures`
 * refused within `windowMs`, every token it sends is refused until the oldest of them leaves the window, the right
 * one too (otherwise a guess that succeeds would still show through). A session cookie is signed, never guessed,
 * and is not counted.
 */
export class TokenThrottle {
  private readonly refusals = new Map<string, number[]>();

  constructor(
    private readonly limits: TokenThrottleLimits,
    private readonly now: () => number,
  ) {}

  /** How long `address` must wait before a token it sends is looked at, in ms; 0 when it need not. */
  waitMs(address: string): number {
    const times = this.recent(address);
    if (times.length < this.limits.failures) return 0;
    return Math.max(1, times[0]! + this.limits.windowMs - this.now());
  }

  /** A token `address` sent was refused. */
  refused(address: string): void {
    const times = this.recent(address);
    times.push(this.now());
    // Only the last `failures` matter: the wait ends when the oldest of them leaves the window.
    if (times.length > this.limits.failures) times.splice(0, times.length - this.limits.failures);
    this.refusals.delete(address);
    this.refusals.set(address, times);
    if (this.refusals.size > maxAddresses) this.refusals.delete(this.refusals.keys().next().value!);
  }

  private recent(address: string): number[] {
    const times = this.refusals.get(address);
    if (times === undefined) return [];
    const since = this.now() - this.limits.windowMs;
    while (times.length > 0 && times[0]! <= since) times.shift();
    if (times.length === 0) this.refusals.delete(address);
    return times;
  }
}

/** Throws `429 too_many_refused_tokens` with `Retry-After` while `address` must wait. */
export function refuseWhileThrottled(throttle: TokenThrottle, address: string): void {
  const waitMs = throttle.waitMs(address);
  if (waitMs === 0) return;
  const seconds = Math.ceil(waitMs / 1000);
  throw new HttpError(
    429,
    'too_many_refused_tokens',
    `too many tokens were refused from this address: try again in ${seconds} s`,
    {},
    { 'retry-after': String(seconds) },
  );
}
