import { credentialIdMessage, hasIdShape, idProblem } from '../../core/index.js';
import type {
  PlanActionAnswer,
  PlanConfigureAnswer,
  PlanService,
  RecordErrorAnswer,
} from '../../app/index.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { HttpError, invalid, type Reply } from '../http-errors.js';
import { z } from 'zod';
import { decodeCursor, encodeCursor, staleCursor } from '../page-cursor.js';
import { pageQuery } from '../schemas.js';

/**
 * Plans (seed 004): recovery configuration, recorded errors with their retry decision, the history, and the
 * recovery actions of a person. Bodies are validated by the plan service itself (every problem by JSON pointer);
 * a request the plan's state does not allow is 409 `refused` with the plan's `reason` and the plan as it is.
 */
const planIdRule = 'a plan id is 1 to 128 letters, digits and . _ : @ / -, starting with a letter or digit';

export function planEndpoints(plans: PlanService): Endpoint[] {
  const refusedOr = (answer: RecordErrorAnswer | PlanActionAnswer): Reply => {
    if (answer.status === 'refused') {
      throw new HttpError(409, 'refused', answer.message, { plan: answer.plan, reason: answer.reason });
    }
    return { status: 200, body: answer };
  };
  /** `PUT` answers the plan itself (its documented body), or 409 like the other writes. */
  const planOrRefused = (answer: PlanConfigureAnswer): Reply => {
    if (answer.status === 'refused') {
      throw new HttpError(409, 'refused', answer.message, { plan: answer.plan, reason: answer.reason });
    }
    return { status: 200, body: answer.plan };
  };
  const anyBody = z.unknown();
  /** A plan that exists, or 404 before the body is looked at: an unknown plan is not a field error. */
  const existing = async (id: string | undefined): Promise<string> => {
    if (id === undefined || !hasIdShape(id) || (await plans.lifecycle.store.readPlan(id)) === null) {
      throw new HttpError(404, 'not_found', `plan ${JSON.stringify(id ?? '').slice(0, 140)} does not exist`);
    }
    return id;
  };
  const existingBeforeBody = async (params: Readonly<Record<string, string>>): Promise<void> => {
    await existing(params.id);
  };
  return [
    endpoint<undefined, z.infer<typeof pageQuery>>({
      method: 'GET',
      url: '/v1/plans',
      access: 'read',
      tag: 'plans',
      summary:
        'Plans, last changed first, a page at a time (`next_cursor` continues), with their error counts',
      query: pageQuery,
      responses: {
        200: '`{plans: [{id, phase, state, error_count, last_error_at, updated_at}], next_cursor}`',
        422: 'a cursor of another list, or a stale one (its plan changed since: reload)',
      },
      async handler({ query }) {
        const store = plans.lifecycle.store;
        const limit = query.limit ?? 50;
        let before: { updatedAtMs: number; id: string } | undefined;
        if (query.cursor !== undefined) {
          const at = decodeCursor('plans', query.cursor);
          // A plan that changed since moved to the top: continuing after it would skip the plans in between.
          if ((await store.readPlan(at.id))?.updatedAtMs !== at.atMs) throw staleCursor();
          before = { updatedAtMs: at.atMs, id: at.id };
        }
        const page = await store.listPlans({ limit, ...(before === undefined ? {} : { before }) });
        const last = page.length === limit ? page.at(-1)!.plan : null;
        return {
          status: 200,
          body: {
            plans: page.map(({ plan, errorCount, lastErrorAtMs }) => ({
              id: plan.id,
              phase: plan.phase,
              state: plan.state,
              error_count: errorCount,
              last_error_at: lastErrorAtMs === null ? null : new Date(lastErrorAtMs).toISOString(),
              updated_at: new Date(plan.updatedAtMs).toISOString(),
            })),
            next_cursor:
              last === null ? null : encodeCursor('plans', { atMs: last.updatedAtMs, id: last.id }),
          },
        };
      },
    }),
    endpoint<unknown>({
      method: 'PUT',
      url: '/v1/plans/:id',
      // The orchestrator that runs a plan creates it (as it starts routes and sessions); a person may too.
      access: 'orchestrate',
      tag: 'plans',
      summary:
        'Create a plan or change its recovery configuration `{auto_retry_threshold?, max_retries?, subplan?}`: only the fields given change. `If-Match: "N"` makes it conditional on revision N (0: only create)',
      body: anyBody,
      responses: {
        200: 'the plan',
        404: 'If-Match named a revision of a plan that does not exist',
        409: 'refused: `stale_revision` (the plan is not at the If-Match revision) or `finished`',
        422: 'invalid fields',
      },
      async handler({ params, body, headers }) {
        const id = params.id ?? '';
        const problem = idProblem(id);
        if (problem !== null) {
          // An id of the right characters that holds a key is refused as that, and not shown.
          const message = problem === 'credential' ? `plan id ${credentialIdMessage}` : planIdRule;
          throw invalid([{ path: '/id', message }]);
        }
        const expectedRevision = expectedRevisionOf(headers['if-match']);
        return planOrRefused(
          await plans.configure(id, body, {
            ...(expectedRevision === undefined ? {} : { expectedRevision }),
          }),
        );
      },
    }),
    endpoint<unknown>({
      method: 'POST',
      url: '/v1/plans/:id/complete',
      access: 'orchestrate',
      tag: 'plans',
      summary:
        'The orchestrator reports that a phase succeeded `{phase, revision?}`: the plan moves on (strategize -> execute -> apply -> completed) and its retry count starts again',
      body: anyBody,
      beforeBody: existingBeforeBody,
      responses: {
        200: '`{status: changed, plan}`',
        404: 'no such plan',
        409: 'refused: `wrong_phase`, `errored`, `finished` or `stale_revision`',
        422: 'invalid fields',
      },
      async handler({ params, body }) {
        return refusedOr(await plans.complete(await existing(params.id), body));
      },
    }),
    endpoint<unknown>({
      method: 'POST',
      url: '/v1/plans/:id/errors',
      access: 'orchestrate',
      tag: 'plans',
      summary:
        'Record a plan error `{phase, message, exception_type?, stack?, actor?, tool_call?}`: classified, appended, answered with the retry decision',
      body: anyBody,
      responses: {
        200: '`{status: recorded, plan, record, decision}`',
        404: 'no such plan',
        409: 'refused',
        422: 'invalid fields',
      },
      beforeBody: existingBeforeBody,
      async handler({ params, body }) {
        return refusedOr(await plans.recordError(await existing(params.id), body));
      },
    }),
    endpoint({
      method: 'GET',
      url: '/v1/plans/:id/errors',
      access: 'read',
      tag: 'plans',
      summary: 'The plan, its error history and its current decision (what `recourse errors` shows)',
      responses: { 200: '`{plan, errors, decision}`', 404: 'no such plan' },
      async handler({ params }) {
        return { status: 200, body: await plans.errors(await existing(params.id)) };
      },
    }),
    endpoint({
      method: 'GET',
      url: '/v1/plans/:id/decision',
      access: 'read',
      tag: 'plans',
      summary: 'Whether the plan retries automatically, escalates, and why',
      responses: { 200: 'the decision', 404: 'no such plan' },
      async handler({ params }) {
        return { status: 200, body: await plans.decision(await existing(params.id)) };
      },
    }),
    endpoint<unknown>({
      method: 'POST',
      url: '/v1/plans/:id/actions',
      access: 'operate',
      tag: 'plans',
      summary:
        'A recovery action `{action: retry|prompt|correct|revert_strategize|cancel, revision?}` (docs/plan-errors.md has each effect); with `revision`, only if the plan is still at it',
      body: anyBody,
      responses: {
        200: '`{status: changed, plan}`',
        404: 'no such plan',
        409: 'refused: `finished`, `not_errored` or `stale_revision`',
        422: 'invalid fields',
      },
      beforeBody: existingBeforeBody,
      async handler({ params, body }) {
        return refusedOr(await plans.act(await existing(params.id), body));
      },
    }),
  ];
}

/** `If-Match: "3"` (or `3`, or a weak `W/"3"`): the plan revision the caller saw; 0 means "create only". */
function expectedRevisionOf(ifMatch: unknown): number | undefined {
  if (typeof ifMatch !== 'string' || ifMatch === '') return undefined;
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(ifMatch.trim());
  if (match === null) {
    throw invalid([
      {
        path: '/revision',
        message: `If-Match must be a plan revision such as "3" (got ${JSON.stringify(ifMatch.slice(0, 40))})`,
      },
    ]);
  }
  return Number(match[1]);
}
