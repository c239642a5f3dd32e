import type { z } from 'zod';
import {
  clearedSessionCookie,
  isSameOrigin,
  reachedOverHttps,
  sessionCookie,
  type TokenTable,
} from '../auth.js';
import { endpoint, type Endpoint, type EndpointContext } from '../endpoint.js';
import { HttpError } from '../http-errors.js';
import { signInBody } from '../schemas.js';
import { refuseWhileThrottled, throttledAddress, type TokenThrottle } from '../token-throttle.js';

/**
 * The web UI's sign-in: a configured token traded for the signed session cookie, and sign-out. Both need the
 * server's own `Origin` (another site's page must not sign a browser in as someone else, login CSRF, nor out).
 * The token is compared in constant time and never echoed or logged.
 */
export function signInEndpoints(
  tokens: TokenTable,
  cookieKey: Buffer,
  throttle: TokenThrottle,
  now: () => number,
): Endpoint[] {
  return [
    endpoint<z.infer<typeof signInBody>>({
      method: 'POST',
      url: '/v1/sign-in',
      access: 'public',
      tag: 'meta',
      summary: 'Trade a configured token `{token}` for the browser’s session cookie (same-origin only)',
      body: signInBody,
      responses: {
        204: 'signed in: `Set-Cookie`',
        401: 'unknown token',
        403: '`cross_origin`',
        429: '`too_many_refused_tokens`',
      },
      handler({ body, headers, request }) {
        requireSameOrigin(headers);
        refuseWhileThrottled(throttle, throttledAddress(request.ip, request.headers));
        const grant = tokens.session(cookieKey, body.token);
        if (grant === null) {
          throttle.refused(throttledAddress(request.ip, request.headers));
          throw new HttpError(401, 'unauthorized', 'that token is not valid');
        }
        return Promise.resolve({
          status: 204,
          body: null,
          headers: {
            'set-cookie': sessionCookie(cookieKey, grant, now(), reachedOverHttps(headers)),
            'cache-control': 'no-store',
          },
        });
      },
    }),
    endpoint({
      method: 'POST',
      url: '/v1/sign-out',
      access: 'public',
      tag: 'meta',
      summary: 'End the browser’s session: the session cookie is cleared (same-origin only)',
      responses: { 204: 'signed out: `Set-Cookie` with `Max-Age=0`', 403: '`cross_origin`' },
      handler({ headers }) {
        requireSameOrigin(headers);
        return Promise.resolve({
          status: 204,
          body: null,
          headers: {
            'set-cookie': clearedSessionCookie(reachedOverHttps(headers)),
            'cache-control': 'no-store',
          },
        });
      },
    }),
  ];
}

function requireSameOrigin(headers: EndpointContext<unknown, unknown>['headers']): void {
  if (!isSameOrigin(headers.origin, headers.host)) {
    throw new HttpError(403, 'cross_origin', 'signing in or out needs a same-origin Origin header');
  }
}
