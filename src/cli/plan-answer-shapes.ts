import type { AnswerShape } from './answer-shape.js';

/**
 * The fields the plan commands read into, field by field: an answer without them (another service, a proxy, a
 * different version) is `not a Recourse answer` (exit 3), never a crash with a stack trace nor a success that
 * prints `plan undefined`. Fields only interpolated into text stay unchecked (what they hold is printed escaped).
 */
const hint = { message: 'string', cli_command: ['string', 'null'] } as const satisfies AnswerShape;

const record = {
  phase: 'string',
  category: 'string',
  message: 'string',
  hints: { items: hint },
} as const satisfies AnswerShape;

const decision = { hints: { items: hint } } as const satisfies AnswerShape;

/** A plan as the action answers print it (`plan ID: phase P, state S`). */
const plan = { id: 'string', phase: 'string', state: 'string' } as const satisfies AnswerShape;

/** `PUT /v1/plans/{id}`: the plan with its policy and revision. */
export const configuredPlanShape = {
  ...plan,
  recovery: 'object',
  revision: 'number',
} as const satisfies AnswerShape;

/** `GET /v1/plans/{id}/errors`. */
export const planErrorsShape = {
  plan: { fields: plan },
  errors: { items: record },
  summary: { fields: { by_category: 'object' } },
  decision: { fields: decision },
} as const satisfies AnswerShape;

/**
 * An answer to a plan write (`changed`, `recorded`, or a refusal), by its status: a refusal carries its reason and
 * message, a recorded error its record and decision.
 */
export function planWriteShape(answer: Readonly<Record<string, unknown>>): AnswerShape {
  const base = { status: 'string', plan: { fields: plan } } as const satisfies AnswerShape;
  if (answer.status === 'recorded')
    return { ...base, record: { fields: record }, decision: { fields: decision } };
  if (answer.status === 'changed') return base;
  return { ...base, reason: 'string', message: 'string' };
}
