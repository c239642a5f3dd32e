import { z } from 'zod';
import type { Endpoint } from './endpoint.js';

/** OpenAPI 3.1, generated from the endpoints the server registers: the document is the served surface. */
export function openApiDocument(endpoints: readonly Endpoint[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    const path = e.url.replace(/:([a-z_]+)/g, '{$1}');
    const parameters = [...e.url.matchAll(/:([a-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (e.query !== undefined) {
      const schema = jsonSchema(e.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        parameters.push({
          name,
          in: 'query',
          required: schema.required?.includes(name) ?? false,
          schema: property as { type: string },
        });
      }
    }
    (paths[path] ??= {})[e.method.toLowerCase()] = {
      summary: e.summary,
      tags: [e.tag],
      'x-recourse-access': e.access,
      ...(e.access === 'public' ? { security: [] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(e.body === undefined
        ? {}
        : {
            requestBody: {
              required: !e.body.safeParse(undefined).success,
              content: { 'application/json': { schema: jsonSchema(e.body) } },
            },
          }),
      responses: Object.fromEntries(
        Object.entries({ ...commonResponses(e), ...e.responses }).map(([status, description]) => [
          status,
          Number(status) >= 400 ? { description, content: errorContent } : { description },
        ]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Recourse',
      version,
      description:
        'Recovers AI coding agents from provider failures. Errors are `{error: {code, message}}`; invalid input is 422 with `errors: [{path, message}]` (JSON pointers).',
    },
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'recourse_session' },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}

/**
 * The refusals an endpoint may answer whatever it does (`docs/server.md`, Errors), so a client generated from the
 * document, or a checker comparing answers with it, meets no status it was not told of. The endpoint's own
 * descriptions win.
 */
function commonResponses(e: Endpoint): Record<number, string> {
  const responses: Record<number, string> = {};
  if (e.access !== 'public') {
    responses[401] = '`unauthorized`: no or unknown credential (`WWW-Authenticate: Bearer`)';
    responses[403] =
      '`forbidden`: the role may not; `cross_origin`: a change with the cookie from another origin';
    responses[429] =
      '`too_many_refused_tokens`: this client address sent too many refused tokens (`Retry-After`), whatever token it sends now';
  }
  if (e.body !== undefined) {
    responses[400] = '`malformed_json`: the body is not JSON';
    responses[413] = '`body_too_large`: more than 1 MiB';
    responses[415] = '`unsupported_media_type`: a body that is not application/json';
  }
  // A query parameter the endpoint does not declare is refused like an unknown field, on every endpoint.
  responses[422] =
    '`invalid_input`: wrong or unknown fields or query parameters, `errors: [{path, message}]`';
  return responses;
}

/** Every error's body: `{error: {code, message, reason?}, errors?, ...}` (a refusal adds `route`, `current`, `plan`). */
const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' } },
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

function jsonSchema(schema: z.ZodType): unknown {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}
