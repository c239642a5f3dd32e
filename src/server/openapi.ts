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
        Object.entries(e.responses).map(([status, description]) => [status, { description }]),
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
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'recourse_session' },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}

function jsonSchema(schema: z.ZodType): unknown {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}
