import { isIPv4, isIPv6 } from 'node:net';
import { HttpError } from './http-errors.js';

/** How many refused tokens one client address may send in a window before it must wait. */
export interface TokenThrottleLimits {
  readonly failures: number;
  readonly windowMs: number;
  /**
   * Count loopback clients too (false by default): every local client (the adapter, the CLI, a browser, a reverse
   * proxy on this host) shares 127.0.0.1, so one of them with a wrong token would lock all of them out, and whoever
   * can reach loopback already runs on this machine.
   */
  readonly countLoopback?: boolean;
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
    const key = this.keyOf(address);
    if (key === null) return 0;
    const times = this.recent(key);
    if (times.length < this.limits.failures) return 0;
    return Math.max(1, times[0]! + this.limits.windowMs - this.now());
  }

  /** A token `address` sent was refused. */
  refused(address: string): void {
    const key = this.keyOf(address);
    if (key === null) return;
    const times = this.recent(key);
    times.push(this.now());
    // Only the last `failures` matter: the wait ends when the oldest of them leaves the window.
    if (times.length > this.limits.failures) times.splice(0, times.length - this.limits.failures);
    this.refusals.delete(key);
    this.refusals.set(key, times);
    if (this.refusals.size > maxAddresses) this.refusals.delete(this.refusals.keys().next().value!);
  }

  /** Whom `address` counts for: null for loopback (unless counted), else `clientKey`. */
  private keyOf(address: string): string | null {
    const key = clientKey(address);
    return key.loopback && this.limits.countLoopback !== true ? null : key.key;
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

/**
 * The client a connection's address stands for: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4
 * one, so a dual-stack listener counts one client once), an IPv6 address by its /64 (one host holds a whole /64 and
 * could otherwise rotate through it, a fresh address per guess).
 */
export function clientKey(address: string): { readonly key: string; readonly loopback: boolean } {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  const v4 = mapped ?? (isIPv4(address) ? address : null);
  if (v4 !== null) return { key: v4, loopback: v4.startsWith('127.') };
  if (!isIPv6(address)) return { key: address, loopback: false };
  const groups = ipv6Groups(address.split('%')[0]!);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    // IPv4-mapped, written in hex (`::ffff:c000:280`): the IPv4 client it is.
    const [hi, lo] = [groups[6]!, groups[7]!];
    return clientKey(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  const loopback = groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
  return {
    key: `${groups
      .slice(0, 4)
      .map((g) => g.toString(16))
      .join(':')}::/64`,
    loopback,
  };
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded; a trailing dotted IPv4 part as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The address the throttle counts a request against: the connection's, except that a connection from loopback that
 * carries a forwarding header came through a proxy on this host (a TLS terminator in front of the plain-HTTP
 * service), and then the client that proxy names counts: the last `X-Forwarded-For` entry (the one the proxy itself
 * added; earlier ones are whatever the client sent), else `X-Real-IP`, else the last `for=` of `Forwarded`. Only a
 * loopback peer is believed: anyone else could name any address.
 */
export function throttledAddress(
  peer: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string {
  if (!clientKey(peer).loopback) return peer;
  const first = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const forwardedFor = first('x-forwarded-for')?.split(',').at(-1)?.trim();
  if (forwardedFor) return forwardedFor;
  const realIp = first('x-real-ip')?.trim();
  if (realIp) return realIp;
  const forwarded = first('forwarded');
  if (forwarded !== undefined) {
    const all = [...forwarded.matchAll(/\bfor=(?:"([^"]*)"|([^;,\s]+))/gi)].map((m) => (m[1] ?? m[2])!);
    const last = forwardedNode(all.at(-1));
    if (last !== null) return last;
  }
  return peer;
}

/** The address of a `Forwarded` node (`192.0.2.60`, `192.0.2.60:80`, `[2001:db8::1]:4711`), or null (`unknown`, `_hidden`). */
function forwardedNode(node: string | undefined): string | null {
  if (node === undefined || node === '' || node.toLowerCase() === 'unknown' || node.startsWith('_'))
    return null;
  const bracketed = /^\[([^\]]+)\]/.exec(node);
  if (bracketed !== null) return bracketed[1]!;
  return node.split(':').length === 2 ? node.replace(/:\d*$/, '') : node;
}
