import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * `viewer` reads; `operator` also acts on routes, sessions and plans; `admin` also edits profiles and policies
 * (API-06); `adapter` stands apart: it submits evidence, results and acknowledgements (API-04).
 */
export const roles = ['viewer', 'operator', 'admin', 'adapter'] as const;
export type Role = (typeof roles)[number];

/** What a route needs; `docs/server.md` has the table of which role reaches which. */
export type Access = 'public' | 'read' | 'operate' | 'admin' | 'adapter' | 'orchestrate';

/** The access levels a role is granted or not (every one but `public`), in the order `/v1/me` lists them. */
export const accessLevels = [
  'read',
  'operate',
  'admin',
  'orchestrate',
  'adapter',
] as const satisfies readonly Exclude<Access, 'public'>[];

const allowed: Readonly<Record<Exclude<Access, 'public'>, readonly Role[]>> = {
  // An adapter reads the routes it reports on; nothing it reads carries a credential or raw evidence (API-07).
  read: ['viewer', 'operator', 'admin', 'adapter'],
  operate: ['operator', 'admin'],
  admin: ['admin'],
  adapter: ['adapter'],
  // Starting a route or a task session: an orchestrator (adapter) or a person (operator, admin).
  orchestrate: ['operator', 'admin', 'adapter'],
};

export function roleMayAccess(role: Role, access: Access): boolean {
  return access === 'public' || allowed[access].includes(role);
}

interface TokenEntry {
  readonly role: Role;
  readonly digest: Buffer;
}

/** Configured bearer tokens. Only digests are kept, and a lookup compares against every entry in constant time. */
export class TokenTable {
  private readonly entries: readonly TokenEntry[];
  private readonly fingerprints = new WeakMap<Buffer, readonly { role: Role; fingerprint: Buffer }[]>();

  constructor(tokens: readonly { readonly role: Role; readonly token: string }[]) {
    this.entries = tokens.map((t) => ({ role: t.role, digest: digest(t.token) }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The role of a presented token, or null. Every entry is compared, so the time says nothing of a match. */
  lookup(token: string): Role | null {
    const presented = digest(token);
    let found: Role | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, presented) && found === null) found = entry.role;
    }
    return found;
  }

  /**
   * The keyed fingerprint a session cookie carries for the configured token `token`, with its role; null for an
   * unknown token. It is an HMAC of the token's digest under the cookie key: it names the token without being it.
   */
  session(key: Buffer, token: string): { readonly role: Role; readonly fingerprint: string } | null {
    const role = this.lookup(token);
    return role === null
      ? null
      : { role, fingerprint: fingerprint(key, digest(token)).toString('base64url') };
  }

  /**
   * Whether a cookie's fingerprint names a token configured now, under `role`: a token removed from the
   * configuration ends every session it was traded for, on every node. Every entry is compared.
   */
  holdsSession(key: Buffer, role: Role, presented: string): boolean {
    const given = Buffer.from(presented, 'base64url');
    if (given.length !== fingerprintBytes) return false;
    let cached = this.fingerprints.get(key);
    if (cached === undefined) {
      cached = this.entries.map((e) => ({ role: e.role, fingerprint: fingerprint(key, e.digest) }));
      this.fingerprints.set(key, cached);
    }
    let held = false;
    for (const entry of cached) {
      if (timingSafeEqual(entry.fingerprint, given) && entry.role === role) held = true;
    }
    return held;
  }

  /** A key derived from every configured token: each node with the same tokens derives the same key. */
  derivedKey(): Buffer {
    const hash = createHash('sha256').update('recourse-cookie-key/v1');
    for (const d of [...this.entries].map((e) => e.digest.toString('hex')).sort()) hash.update(d);
    return hash.digest();
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

const fingerprintBytes = 16;

function fingerprint(key: Buffer, tokenDigest: Buffer): Buffer {
  return createHmac('sha256', key)
    .update('recourse-session-token/v1:')
    .update(tokenDigest)
    .digest()
    .subarray(0, fingerprintBytes);
}

/** A token the server makes for one run when none is configured (printed in the start-up URL). */
export function generatedToken(): string {
  return randomBytes(24).toString('base64url');
}

const tokenShape = /^[\x21-\x7e]{16,256}$/;

/**
 * Parses `role:token` pairs separated by commas or new lines (`RECOURSE_TOKENS`, `--tokens-file`; `#` starts a
 * comment line). Problems name the pair by its position, never its token; a token given twice (under two roles,
 * or one) is refused, naming both places (lines of a file, entries of a list on one line).
 */
export function parseTokens(
  text: string,
  source: string,
): { ok: true; tokens: { role: Role; token: string }[] } | { ok: false; message: string } {
  const tokens: { role: Role; token: string }[] = [];
  const pairs = text
    .split('\n')
    .flatMap((line, l) => line.split(',').map((pair) => ({ pair: pair.trim(), line: l + 1 })))
    .filter((p) => p.pair !== '' && !p.pair.startsWith('#'));
  const multiline = text.trim().includes('\n');
  const places: string[] = [];
  for (const [i, { pair, line }] of pairs.entries()) {
    const colon = pair.indexOf(':');
    const role = colon < 0 ? pair : pair.slice(0, colon);
    const token = colon < 0 ? '' : pair.slice(colon + 1);
    if (!(roles as readonly string[]).includes(role)) {
      return {
        ok: false,
        message: `${source}: entry ${i + 1} must be ROLE:TOKEN with ROLE one of ${roles.join(', ')}`,
      };
    }
    if (!tokenShape.test(token) || token.includes(',')) {
      return {
        ok: false,
        message: `${source}: the ${role} token of entry ${i + 1} must be 16 to 256 visible characters without commas`,
      };
    }
    const place = multiline ? `line ${line}` : `entry ${i + 1}`;
    const earlier = tokens.findIndex((t) => t.token === token);
    if (earlier >= 0) {
      // Which role would win is not for the order of lines to decide.
      return {
        ok: false,
        message: `${source}: ${places[earlier]} (${tokens[earlier]!.role}) and ${place} (${role}) give the same token: give each token one role`,
      };
    }
    tokens.push({ role: role as Role, token });
    places.push(place);
  }
  if (pairs.length > 0 && tokens.length === 0) return { ok: false, message: `${source}: no token` };
  return { ok: true, tokens };
}

/**
 * The browser's session cookie: stateless and signed, so every node sharing the key accepts it, and bound to the
 * token it was traded for (`v2.<role>.<expiry>.<token fingerprint>.<signature>`), so it ends when that token is
 * removed. A `v1` cookie (bound to a role only) is refused: its browser signs in again.
 */
export const sessionCookieName = 'recourse_session';
const sessionCookieSeconds = 12 * 3600;

/** A session the server hands out: the role and the keyed fingerprint of the token it was traded for. */
export interface SessionGrant {
  readonly role: Role;
  readonly fingerprint: string;
}

export function signSession(key: Buffer, grant: SessionGrant, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + sessionCookieSeconds;
  const body = `v2.${grant.role}.${expires}.${grant.fingerprint}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/**
 * The `Set-Cookie` value that signs a browser in with `grant` (HttpOnly, SameSite=Strict, 12 hours), `Secure` when
 * the browser reached the service over HTTPS (`secure`): then the cookie never travels over plain HTTP. It cannot be
 * `Secure` always: the service itself speaks plain HTTP, and a browser drops a `Secure` cookie set over it (but on
 * localhost).
 */
export function sessionCookie(key: Buffer, grant: SessionGrant, nowMs: number, secure = false): string {
  const value = signSession(key, grant, nowMs);
  return `${sessionCookieName}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${sessionCookieSeconds}${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that signs a browser out: the same cookie, emptied and expired now. */
export function clearedSessionCookie(secure = false): string {
  return `${sessionCookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/**
 * Whether the browser reached the service over HTTPS: a TLS-terminating proxy in front says so with
 * `X-Forwarded-Proto: https` (its first value), and the page's `Origin` is an `https:` one. Either only adds
 * `Secure` to the cookie, so a forged header can only keep the cookie off plain HTTP.
 */
export function reachedOverHttps(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const forwarded = headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  const origin = headers.origin;
  return proto === 'https' || (typeof origin === 'string' && origin.toLowerCase().startsWith('https://'));
}

/**
 * The role a cookie value carries, when its signature holds, it has not expired and the token it was traded for
 * is still configured (under that role) in `tokens`.
 */
export function verifySession(key: Buffer, value: string, nowMs: number, tokens: TokenTable): Role | null {
  const parts = value.split('.');
  if (parts.length !== 5 || parts[0] !== 'v2') return null;
  const [, role, expires, tokenFingerprint, signature] = parts as [string, string, string, string, string];
  const expected = createHmac('sha256', key).update(`v2.${role}.${expires}.${tokenFingerprint}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (!(roles as readonly string[]).includes(role)) return null;
  if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= nowMs) return null;
  return tokens.holdsSession(key, role as Role, tokenFingerprint) ? (role as Role) : null;
}

/** When a v2 cookie stops being accepted, in epoch ms (read after `verifySession` accepted it), or null. */
export function sessionExpiryMs(value: string): number | null {
  const expires = value.split('.')[2];
  return expires !== undefined && /^\d{1,12}$/.test(expires) ? Number(expires) * 1000 : null;
}

/** The token fingerprint a v2 cookie carries (read after `verifySession` accepted it), or null. */
export function sessionFingerprint(value: string): string | null {
  const parts = value.split('.');
  return parts.length === 5 && parts[0] === 'v2' ? parts[3]! : null;
}

/**
 * Whether a request's `Origin` is the server's own (`http(s)://` + its `Host`): a browser sends it with every
 * change, and another site's page cannot forge it.
 */
export function isSameOrigin(
  origin: string | string[] | undefined,
  host: string | string[] | undefined,
): boolean {
  return (
    typeof origin === 'string' &&
    typeof host === 'string' &&
    (origin === `http://${host}` || origin === `https://${host}`)
  );
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
