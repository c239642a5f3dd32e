import { HttpError } from '../http-errors.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import type { ServerContext } from '../context.js';
import { z } from 'zod';

/**
 * Dynamic profiles (API-01, API-02): a version 1 or legacy policy document in, always the normalized version 1
 * out. Only `admin` edits (API-06); reading shows policies and non-secret descriptors, nothing else (API-07).
 */
export function profileEndpoints(context: ServerContext): Endpoint[] {
  const engine = context.recourse.engine;
  return [
    endpoint({
      method: 'GET',
      url: '/v1/profiles',
      access: 'read',
      tag: 'profiles',
      summary: 'Every dynamic profile: id, name and latest version',
      responses: { 200: '`{profiles: [{id, name, version}]}`' },
      async handler() {
        return { status: 200, body: { profiles: await engine.listProfiles() } };
      },
    }),
    endpoint({
      method: 'GET',
      url: '/v1/profiles/:id',
      access: 'read',
      tag: 'profiles',
      summary: 'The latest version of a dynamic profile (normalized version 1 policies); ETag is its version',
      responses: {
        200: 'the profile',
        404: 'no such profile',
        409: 'the stored document no longer validates',
      },
      async handler({ params }) {
        const profile = await context.recourse.store.readProfile(params.id!);
        if (profile === null)
          throw new HttpError(404, 'not_found', `no dynamic profile ${JSON.stringify(params.id)}`);
        return { status: 200, body: profile, headers: { etag: `"${profile.version}"` } };
      },
    }),
    endpoint<unknown>({
      method: 'PUT',
      url: '/v1/profiles/:id',
      access: 'admin',
      tag: 'profiles',
      summary:
        'Create or replace a dynamic profile. `If-Match: "N"` or a `version` field N makes it conditional on N being the latest (0 or none: create); a stale version is 409 with the current document',
      // Any JSON here; the engine's validator names every problem. Only an absent body is refused up front.
      body: z.custom<unknown>((value) => value !== undefined, 'must be a profile document (a JSON object)'),
      responses: {
        200: 'the stored, normalized profile (an unchanged document keeps its version)',
        409: '`version_conflict` with `current`',
        422: 'invalid fields',
      },
      async handler({ params, body, headers }) {
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new HttpError(422, 'invalid_input', 'the body must be a profile document (a JSON object)', {
            errors: [{ path: '', message: 'must be a JSON object' }],
          });
        }
        const document = body as Record<string, unknown>;
        if (document.id !== undefined && document.id !== params.id) {
          throw new HttpError(422, 'invalid_input', 'the id in the body differs from the id in the path', {
            errors: [{ path: '/id', message: `must be ${JSON.stringify(params.id)}, the id in the path` }],
          });
        }
        const expectedVersion = expectedVersionOf(headers['if-match'], document.version);
        const { version: _ignored, ...input } = document;
        const saved = await engine.saveProfile(
          { ...input, id: params.id } as never,
          expectedVersion === undefined ? {} : { expectedVersion },
        );
        context.profiles.set(saved);
        return { status: 200, body: saved, headers: { etag: `"${saved.version}"` } };
      },
    }),
    endpoint({
      method: 'DELETE',
      url: '/v1/profiles/:id',
      access: 'admin',
      tag: 'profiles',
      summary:
        'Delete a dynamic profile with every version (refused while a stored route names it). `If-Match: "N"` deletes it only while N is the latest version; a stale one is 409 with the current document',
      responses: {
        204: 'deleted',
        404: 'no such profile',
        409: '`in_use`: routes still name it; `version_conflict` with `current`',
        422: 'an If-Match that names no version',
      },
      async handler({ params, headers }) {
        const expectedVersion = expectedVersionOf(headers['if-match'], undefined);
        await engine.deleteProfile(params.id!, expectedVersion === undefined ? {} : { expectedVersion });
        context.profiles.forget(params.id!);
        return { status: 204, body: null };
      },
    }),
  ];
}

/** `If-Match: "3"` (or `3`) wins over a `version` field; both name the version the client edited. */
function expectedVersionOf(ifMatch: unknown, version: unknown): number | undefined {
  if (typeof ifMatch === 'string' && ifMatch !== '') {
    const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(ifMatch.trim());
    if (match === null) {
      throw new HttpError(422, 'invalid_input', 'If-Match must name a profile version', {
        errors: [
          {
            path: '/version',
            message: `If-Match must be a version such as "3" (got ${JSON.stringify(ifMatch.slice(0, 40))})`,
          },
        ],
      });
    }
    return Number(match[1]);
  }
  if (version === undefined || version === null) return undefined;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    throw new HttpError(422, 'invalid_input', '/version: must be 0 or a positive integer', {
      errors: [{ path: '/version', message: 'must be 0 or a positive integer: the version you edited' }],
    });
  }
  return version;
}
