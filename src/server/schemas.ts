import { z } from 'zod';
import { manualActions, parseIsoDateTime, routeStates, type JsonValue } from '../core/index.js';

/**
 * One zod schema per request document, shared by the server, the operator CLI and (later) the UI. Objects are
 * strict: an unknown field is an error, not silently dropped.
 */
const id = z.string().min(1).max(256);
const generation = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/**
 * A route id a caller picks: `session:` ids belong to the routes of task sessions (`POST /v1/sessions` makes them),
 * so a plain route may not take one and keep a session id from being opened.
 */
const plainRouteId = id.refine(
  (value) => !value.startsWith('session:'),
  'ids beginning with "session:" belong to task sessions (open one with POST /v1/sessions)',
);

export const startRouteBody = z.strictObject({
  route_id: plainRouteId.optional(),
  /** The logical session the route carries: the route id when `route_id` is not given. */
  session_id: plainRouteId.optional(),
  profile_id: id,
  caller: z.enum(['task', 'workflow', 'utility', 'office', 'plan']).optional(),
  /**
   * The caller's own data (at most 64 KiB of JSON, 64 levels deep), handed back with every dispatch. The engine
   * checks it: zod's recursive JSON schema would exhaust the stack on deeply nested input before any limit.
   */
  payload: z.custom<JsonValue>().optional(),
});

/** `POST /v1/routes/purge`: routes that wait for nothing and last changed before an instant go, a batch per call. */
export const purgeRoutesBody = z.strictObject({
  finished_before: z
    .string()
    .max(64)
    .refine(
      (value) => parseIsoDateTime(value) !== null,
      'an ISO-8601 date-time with a zone, like 2026-06-01T12:00:00Z',
    ),
  limit: z.number().int().min(1).max(10_000).optional(),
});

export const routeActionBody = z.strictObject({
  action: z.enum(manualActions),
  expected_generation: generation,
  expected_state: z.enum(routeStates).optional(),
});

/** The facts `recourse simulate` calls `progress`: what the attempt did before it failed. */
export const replayFacts = z.strictObject({
  assistant_output: z.boolean().optional(),
  tool_activity: z.boolean().optional(),
  thought: z.boolean().optional(),
  assistant_text: z.string().max(65_536).nullable().optional(),
  partial_result: z.boolean().optional(),
});

export const evidenceBody = z.strictObject({
  /** One evidence envelope (validated by the classifier's own parser, every problem by field). */
  envelope: z.record(z.string(), z.unknown()),
  invocation_id: id.optional(),
  generation,
  /** Without it the failure is unsafe to replay (it fails closed). */
  replay: replayFacts.nullable().optional(),
  /** The agent's own prompt call is still open: it owns its retry. */
  prompt_open: z.boolean().optional(),
});

export const successBody = z.strictObject({ invocation_id: id.optional(), generation });

/** Optional: a prompt without a fence sends no body. */
export const promptBody = z.strictObject({ expected_generation: generation.optional() }).optional();

export const classifyBody = z.strictObject({
  envelope: z.unknown(),
  /** With `generation`: evidence of another invocation is `unclassified`/`stale`. */
  invocation_id: id.optional(),
  generation: generation.optional(),
});

/**
 * A whole number from a query string, from 1 to `max`: decimal digits only. `z.coerce.number()` took what
 * `Number()` takes (`0x10` as 16, `1e3` as 1000, ` 5` as 5) and called an empty value "too small" and a repeated
 * one "NaN"; the CLI refuses all of those, and so does the server now, saying what it wants.
 */
function queryCount(max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,10}$/, `must be a whole number from 1 to ${max}, in decimal digits`)
    .transform(Number)
    .pipe(z.number().int().min(1, `must be from 1 to ${max}`).max(max, `must be from 1 to ${max}`));
}

export const listRoutesQuery = z.strictObject({
  state: z.enum(routeStates).optional(),
  profile_id: id.optional(),
  cursor: id.optional(),
  limit: queryCount(1000).optional(),
});

const taskId = z.strictObject({ task_id: id });

export const openSessionBody = z.strictObject({
  task_id: id,
  session_id: id,
  profile_id: id,
  owner: id,
});

export const sessionEvidenceBody = z.strictObject({
  task_id: id,
  envelope: z.record(z.string(), z.unknown()),
  invocation_id: id.optional(),
  replay: replayFacts.nullable().optional(),
  prompt_open: z.boolean().optional(),
});

export const sessionSuccessBody = z.strictObject({ task_id: id, invocation_id: id.optional() });
export const sessionRefBody = taskId;
export const sessionQuery = taskId;
/** Cancel names the task-session pair and the person it is done for (the session's owner). */
export const sessionCancelBody = z.strictObject({ task_id: id, owner: id });

/** The person's choice on the manual recovery message (CUR-33): only a person chooses, never the classifier. */
export const sessionRecoveryBody = z.strictObject({
  task_id: id,
  choice: z.enum(['resume', 'start_fresh']),
  message_id: id,
});

/** `POST /v1/sign-in`: a configured token (16 to 256 visible characters; bounded here, checked by lookup). */
export const signInBody = z.strictObject({ token: z.string().min(1).max(512) });

/** A newest-first list: `cursor` is the previous answer's `next_cursor`; `limit` 1 to 200 (50 by default). */
export const pageQuery = z.strictObject({
  cursor: z.string().min(1).max(512).optional(),
  limit: queryCount(200).optional(),
});
