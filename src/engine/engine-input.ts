import { EngineInputError } from './engine-errors.js';
import {
  callerKinds,
  describeValue as describe,
  credentialIdMessage,
  hasIdShape,
  idProblem,
  manualActions,
  parseEnvelope,
  replayEventKinds,
  routeModes,
  routeStates,
  payloadText,
  type CallerKind,
  type EvidenceEnvelope,
  type FailureFacts,
  type FieldIssue,
  type JsonValue,
  type ManualAction,
  type ReplayEvidence,
  type ReplayProgress,
  type RouteMode,
  type RouteState,
  type StartInput,
} from '../core/index.js';

export interface StartRequest {
  /** A caller-chosen id (a task, a workflow step, a utility call's routing invocation id); a UUIDv7 by default. */
  readonly routeId?: string;
  /** The dynamic profile (mode `dynamic`) or the concrete profile (mode `interactive`). */
  readonly profileId: string;
  readonly caller?: CallerKind;
  readonly mode?: RouteMode;
  /**
   * The caller's own data for the route (plain JSON, at most 64 KiB): never interpreted, stored with the route and
   * handed back with every dispatch (the prompt to send again after a restart, say).
   */
  readonly payload?: JsonValue;
}

export interface FailureReport {
  readonly routeId: string;
  /** The generation of the attempt that failed: a late event of an earlier attempt is refused. */
  readonly generation: number;
  /** The dispatch intent id of the attempt that failed (the Dispatcher was given it); recommended: it tells two
   * attempts of one generation (a retry and the attempt it retries) apart. */
  readonly invocationId?: string;
  /** One evidence envelope (the terminal error): `evidenceOfError` and `evidenceOfResponse` build one. */
  readonly evidence: EvidenceEnvelope;
  /**
   * What the attempt did before it failed, as plain facts (`{assistant_output, tool_activity, thought}`), or the
   * replay evidence a `ReplayRecorder` snapshot holds. With neither, the failure is unsafe (it fails closed).
   */
  readonly progress?: ReplayProgress | null;
  readonly replay?: ReplayEvidence | null;
  /** The agent's own prompt call is still open: it owns its retry and Recourse schedules nothing. */
  readonly promptOpen?: boolean;
}

export interface SuccessReport {
  readonly routeId: string;
  readonly generation: number;
  /** The dispatch intent id of the attempt that succeeded (see FailureReport). */
  readonly invocationId?: string;
}

/** The orchestrator accepted a dispatch (`Engine.acknowledgeDispatch`). */
export interface AcknowledgementReport {
  readonly routeId: string;
  /** The dispatch intent's id, as the Dispatcher was given it. */
  readonly intentId: string;
}

/** A new user prompt begins on the route: the caller sent it itself (`Engine.beginPrompt`). */
export interface PromptRequest {
  readonly routeId: string;
  /** The generation the caller saw, when known: a prompt for a route that moved on is refused. */
  readonly expectedGeneration?: number;
}

export interface ManualActionRequest {
  readonly routeId: string;
  readonly action: ManualAction;
  readonly expectedGeneration: number;
  /** The state the user saw (recommended): an action racing another within one generation is then refused. */
  readonly expectedState?: RouteState;
}

/** Whether a caller's id (a route id, say) has the shape the engine accepts, to refuse it before anything opens. */
export function isEngineId(value: string): boolean {
  return hasIdShape(value);
}

/**
 * An argument that must be an object (a request, a query, options): plain JavaScript callers may pass null or a
 * string, which would otherwise fail deep inside with a TypeError instead of a field-addressed error.
 */
export function requireObject(value: unknown, what: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EngineInputError([{ path: '', message: `${what} must be an object (got ${describe(value)})` }]);
  }
}

export function checkStart(request: StartRequest, newId: () => string): StartInput {
  requireObject(request, 'the start request');
  const issues: FieldIssue[] = [];
  const routeId = request.routeId ?? newId();
  checkId(routeId, '/route_id', issues);
  checkId(request.profileId, '/profile_id', issues);
  const caller = request.caller ?? 'task';
  if (!(callerKinds as readonly unknown[]).includes(caller)) {
    issues.push({
      path: '/caller',
      message: `caller must be one of ${callerKinds.join(', ')} (got ${describe(caller)})`,
    });
  }
  const mode = request.mode ?? 'dynamic';
  if (!(routeModes as readonly unknown[]).includes(mode)) {
    issues.push({
      path: '/mode',
      message: `mode must be one of ${routeModes.join(', ')} (got ${describe(mode)})`,
    });
  }
  let payload: string | null = null;
  if (request.payload !== undefined) {
    const checked = payloadText(request.payload, '/payload');
    if (checked.ok) payload = checked.text;
    else issues.push(checked.issue);
  }
  if (issues.length > 0) throw new EngineInputError(issues);
  return {
    routeId,
    profileId: request.profileId,
    caller,
    mode,
    // Stored as checked: a copy the caller cannot change afterwards.
    payload: payload === null ? null : (JSON.parse(payload) as JsonValue),
  };
}

/** A checked page request of `Engine.listRoutes`. */
export function checkListQuery(query: {
  readonly state?: RouteState;
  readonly profileId?: string;
  readonly after?: string;
  readonly limit?: number;
}): { state?: RouteState; profileId?: string; after?: string; limit: number } {
  requireObject(query, 'the query');
  const issues: FieldIssue[] = [];
  if (query.state !== undefined && !(routeStates as readonly unknown[]).includes(query.state)) {
    issues.push({
      path: '/state',
      message: `state must be one of ${routeStates.join(', ')} (got ${describe(query.state)})`,
    });
  }
  if (query.profileId !== undefined) checkId(query.profileId, '/profile_id', issues);
  if (query.after !== undefined) checkId(query.after, '/after', issues);
  const limit = query.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    issues.push({ path: '/limit', message: `limit must be 1 to 1000 (got ${describe(limit)})` });
  }
  if (issues.length > 0) throw new EngineInputError(issues);
  return {
    limit,
    ...(query.state === undefined ? {} : { state: query.state }),
    ...(query.profileId === undefined ? {} : { profileId: query.profileId }),
    ...(query.after === undefined ? {} : { after: query.after }),
  };
}

/** A checked failure report: the route it is about and the facts the decision reads. */
export interface FailureInput extends FailureFacts {
  readonly routeId: string;
}

export function checkFailure(report: FailureReport): FailureInput {
  requireObject(report, 'the failure report');
  const issues: FieldIssue[] = [];
  checkId(report.routeId, '/route_id', issues);
  checkGeneration(report.generation, '/generation', issues);
  if (report.invocationId !== undefined) checkId(report.invocationId, '/invocation_id', issues);
  if (report.promptOpen !== undefined && typeof report.promptOpen !== 'boolean') {
    issues.push({
      path: '/prompt_open',
      message: `prompt_open must be true or false (got ${describe(report.promptOpen)})`,
    });
  }
  if (report.replay !== undefined && report.replay !== null) checkReplay(report.replay, issues);
  if (report.progress !== undefined && report.progress !== null) checkProgress(report.progress, issues);
  const parsed = parseEnvelope(report.evidence);
  if (!parsed.ok)
    issues.push(...parsed.issues.map((i) => ({ path: `/evidence${i.path}`, message: i.message })));
  if (issues.length > 0 || !parsed.ok) throw new EngineInputError(issues);
  return {
    routeId: report.routeId,
    generation: report.generation,
    invocationId: report.invocationId ?? null,
    evidence: parsed.evidence,
    replay: report.replay ?? null,
    progress: report.progress ?? null,
    promptOpen: report.promptOpen === true,
  };
}

const progressKeys = ['assistant_output', 'tool_activity', 'thought', 'assistant_text', 'partial_result'];

/** Plain progress facts: booleans, and the assistant's text (at most 4096 characters) when it matters. */
function checkProgress(value: unknown, issues: FieldIssue[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({
      path: '/progress',
      message: `progress must be an object {${progressKeys.join(', ')}} (got ${describe(value)})`,
    });
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    if (!progressKeys.includes(key)) {
      issues.push({
        path: `/progress/${key}`,
        message: `unknown field (fields: ${progressKeys.join(', ')})`,
      });
    } else if (key === 'assistant_text') {
      if (v !== null && (typeof v !== 'string' || v.length > 4096))
        issues.push({
          path: '/progress/assistant_text',
          message: `must be a string of at most 4096 characters (got ${describe(v)})`,
        });
    } else if (typeof v !== 'boolean') {
      issues.push({ path: `/progress/${key}`, message: `must be true or false (got ${describe(v)})` });
    }
  }
}

export function checkSuccess(report: SuccessReport): SuccessReport {
  requireObject(report, 'the success report');
  const issues: FieldIssue[] = [];
  checkId(report.routeId, '/route_id', issues);
  checkGeneration(report.generation, '/generation', issues);
  if (report.invocationId !== undefined) checkId(report.invocationId, '/invocation_id', issues);
  if (issues.length > 0) throw new EngineInputError(issues);
  return report;
}

export function checkAcknowledgement(report: AcknowledgementReport): AcknowledgementReport {
  requireObject(report, 'the acknowledgement');
  const issues: FieldIssue[] = [];
  checkId(report.routeId, '/route_id', issues);
  checkId(report.intentId, '/intent_id', issues);
  if (issues.length > 0) throw new EngineInputError(issues);
  return report;
}

export function checkPrompt(request: PromptRequest): PromptRequest {
  requireObject(request, 'the prompt request');
  const issues: FieldIssue[] = [];
  checkId(request.routeId, '/route_id', issues);
  if (request.expectedGeneration !== undefined)
    checkGeneration(request.expectedGeneration, '/expected_generation', issues);
  if (issues.length > 0) throw new EngineInputError(issues);
  return request;
}

export function checkAction(request: ManualActionRequest): ManualActionRequest {
  requireObject(request, 'the action request');
  const issues: FieldIssue[] = [];
  checkId(request.routeId, '/route_id', issues);
  if (!(manualActions as readonly unknown[]).includes(request.action)) {
    issues.push({
      path: '/action',
      message: `action must be one of ${manualActions.join(', ')} (got ${describe(request.action)})`,
    });
  }
  checkGeneration(request.expectedGeneration, '/expected_generation', issues);
  if (
    request.expectedState !== undefined &&
    !(routeStates as readonly unknown[]).includes(request.expectedState)
  ) {
    issues.push({
      path: '/expected_state',
      message: `expected_state must be one of ${routeStates.join(', ')} (got ${describe(request.expectedState)})`,
    });
  }
  if (issues.length > 0) throw new EngineInputError(issues);
  return request;
}

function checkId(value: unknown, path: string, issues: FieldIssue[]): void {
  const problem = idProblem(value);
  if (problem === 'credential') issues.push({ path, message: credentialIdMessage });
  else if (problem === 'shape') {
    issues.push({
      path,
      message: `must be 1-128 letters, digits or ._:@/- starting with a letter or digit (got ${describe(value)})`,
    });
  }
}

function checkGeneration(value: unknown, path: string, issues: FieldIssue[]): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    issues.push({ path, message: `must be a positive integer (got ${describe(value)})` });
  }
}

/** A task session named by a caller: both ids are checked before anything is read or written. */
export function checkSession(input: { taskId: unknown; sessionId: unknown; owner?: unknown }): void {
  const issues: FieldIssue[] = [];
  checkId(input.taskId, '/task_id', issues);
  // The session's route id is `session:<id>`, and route ids hold at most 128 characters.
  if (typeof input.sessionId !== 'string' || input.sessionId.length > 120) {
    issues.push({
      path: '/session_id',
      message: `must be 1-120 letters, digits or ._:@/- (got ${describe(input.sessionId)})`,
    });
  } else checkId(input.sessionId, '/session_id', issues);
  if (input.owner !== undefined) checkId(input.owner, '/owner', issues);
  if (issues.length > 0) throw new EngineInputError(issues);
}

/** Replay evidence built by hand must still have the shape the safety gate reads (`openReplayEvidence`). */
function checkReplay(value: unknown, issues: FieldIssue[]): void {
  const r = value as Partial<ReplayEvidence> | null;
  const key = r?.key as Partial<ReplayEvidence['key']> | undefined;
  const counts = r?.counts as Record<string, unknown> | undefined;
  const ok =
    typeof r === 'object' &&
    r !== null &&
    typeof key === 'object' &&
    key !== null &&
    typeof key.sessionId === 'string' &&
    typeof key.executionId === 'string' &&
    typeof key.promptGeneration === 'number' &&
    typeof counts === 'object' &&
    counts !== null &&
    replayEventKinds.every((k) => typeof counts[k] === 'number' && Number.isFinite(counts[k])) &&
    typeof r.assistantText === 'string' &&
    typeof r.assistantOverflow === 'boolean' &&
    (r.providerSessionId === null || typeof r.providerSessionId === 'string');
  if (!ok) {
    issues.push({
      path: '/replay',
      message: `replay must be replay evidence as openReplayEvidence and appendReplayEvent build it (got ${describe(value)})`,
    });
  }
}
