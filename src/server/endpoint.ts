import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Access, Role } from './auth.js';
import type { Reply } from './http-errors.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a handler is given: validated input and who is calling. */
export interface EndpointContext<B, Q> {
  readonly params: Readonly<Record<string, string>>;
  readonly body: B;
  readonly query: Q;
  readonly role: Role | null;
  /**
   * When the caller's credential stops being accepted (a session cookie's expiry, epoch ms); null for a bearer token
   * or a public endpoint. A stream ends then: it must not outlive what let it open.
   */
  readonly credentialExpiresAtMs: number | null;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

/**
 * One HTTP endpoint, described as data: the server registers it and `/openapi.json` is generated from the same
 * list, so the documented surface is the served one (tests read it to prove what is absent: API-05, API-08).
 */
export interface Endpoint<B = unknown, Q = unknown> {
  readonly method: Method;
  /** Fastify's path syntax (`/v1/routes/:id`); OpenAPI shows `{id}`. */
  readonly url: string;
  readonly access: Access;
  readonly summary: string;
  readonly tag: string;
  readonly body?: z.ZodType<B>;
  readonly query?: z.ZodType<Q>;
  /** Status -> description, for the documentation. */
  readonly responses: Readonly<Record<number, string>>;
  /**
   * Runs after authorization and before the body is read (Fastify's `preParsing`): a throw (an `HttpError`, such
   * as 404 for an unknown resource) answers without parsing the body, so a malformed body cannot hide it.
   */
  readonly beforeBody?: (params: Readonly<Record<string, string>>) => Promise<void>;
  /** Told of a body its schema refused (422), before the refusal is answered: for metrics of refused requests. */
  readonly onInvalidBody?: (body: unknown) => void;
  /** Streams its own answer (Server-Sent Events): the handler writes to `reply.raw` and returns null. */
  readonly streams?: boolean;
  handler(context: EndpointContext<B, Q>): Promise<Reply | null>;
}

/** Keeps the types of one endpoint's body and query together while the list holds any endpoint. */
export function endpoint<B = undefined, Q = undefined>(definition: Endpoint<B, Q>): Endpoint {
  // An endpoint's handler takes its own body type; the registry calls it only with a body its schema parsed.
  return definition;
}
