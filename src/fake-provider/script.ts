import {
  describeValue as describe,
  isPlainObjectValue as isPlainObject,
  jsonPointer as pointer,
  type FieldIssue,
} from '../core/index.js';

/** Every fault a script may name (the contract of `recourse fake-provider`, docs/fake-provider.md). */
export const faultNames = [
  'overloaded',
  'rate_limited',
  'insufficient_quota',
  'credit_balance',
  'invalid_key',
  'permission_denied',
  'model_not_found',
  'server_error',
  'bad_gateway',
  'unavailable',
  'cut_after_text',
  'cut_after_tool_call',
  'hang',
] as const;
export type FaultName = (typeof faultNames)[number];

/** The faults answered with an HTTP error status and a body; the other three misbehave on the connection. */
export type StatusFault = Exclude<FaultName, 'cut_after_text' | 'cut_after_tool_call' | 'hang'>;

export interface ToolCall {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

export type Step =
  | { readonly kind: 'answer'; readonly text: string; readonly toolCall: ToolCall | null }
  | { readonly kind: 'fault'; readonly fault: FaultName; readonly retryAfterSeconds: number };

export interface ScriptEntry {
  readonly step: Step;
  readonly times: number;
}

export interface Script {
  readonly steps: readonly ScriptEntry[];
  readonly then: Step;
}

export type ScriptResult =
  | { readonly ok: true; readonly script: Script }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

export const defaultRetryAfterSeconds = 17;
/** A day: a longer wait is not a rate limit a test would script. */
const maxRetryAfterSeconds = 86_400;
const defaultThen: Step = { kind: 'answer', text: 'Done.', toolCall: null };

const scriptFields = ['steps', 'then'];

/** Validates a script document; every problem is reported with its JSON pointer. */
export function readScript(value: unknown): ScriptResult {
  if (!isPlainObject(value))
    return {
      ok: false,
      issues: [{ path: '', message: `a script must be an object {steps, then} (got ${describe(value)})` }],
    };
  const issues: FieldIssue[] = [];
  for (const key of Object.keys(value))
    if (!scriptFields.includes(key))
      issues.push({
        path: pointer('', key),
        message: `unknown field ${describe(key)} (fields: ${scriptFields.join(', ')})`,
      });
  const steps: ScriptEntry[] = [];
  if (value.steps !== undefined && !Array.isArray(value.steps))
    issues.push({
      path: '/steps',
      message: `steps must be an array of steps (got ${describe(value.steps)})`,
    });
  else
    (value.steps ?? []).forEach((raw: unknown, index: number) => {
      const entry = readStep(raw, pointer('/steps', index), true, issues);
      if (entry !== null) steps.push(entry);
    });
  const then =
    value.then === undefined ? { step: defaultThen } : readStep(value.then, '/then', false, issues);
  if (issues.length > 0 || then === null) return { ok: false, issues };
  return { ok: true, script: { steps, then: then.step } };
}

const answerFields = ['answer', 'tool_call', 'times'];
const faultFields = ['fault', 'retry_after', 'times'];

function readStep(raw: unknown, path: string, counted: boolean, issues: FieldIssue[]): ScriptEntry | null {
  if (!isPlainObject(raw)) {
    issues.push({ path, message: `a step must be an object {answer} or {fault} (got ${describe(raw)})` });
    return null;
  }
  const before = issues.length;
  const isFault = 'fault' in raw;
  if (isFault === 'answer' in raw) {
    issues.push({
      path,
      message: isFault
        ? 'a step is either {answer} or {fault}, not both'
        : 'a step needs answer (a text) or fault (a fault name)',
    });
    return null;
  }
  const fields = isFault ? faultFields : answerFields;
  for (const key of Object.keys(raw))
    if (!fields.includes(key))
      issues.push({
        path: pointer(path, key),
        message:
          key === 'retry_after'
            ? 'retry_after applies to the rate_limited fault only'
            : `unknown field ${describe(key)} (fields: ${fields.join(', ')})`,
      });
  const times = readTimes(raw.times, path, counted, issues);
  const step = isFault ? readFault(raw, path, issues) : readAnswer(raw, path, issues);
  return issues.length > before || step === null ? null : { step, times };
}

function readTimes(value: unknown, path: string, counted: boolean, issues: FieldIssue[]): number {
  if (value === undefined) return 1;
  if (!counted) {
    issues.push({ path: `${path}/times`, message: 'then serves every later request: it takes no times' });
    return 1;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    issues.push({
      path: `${path}/times`,
      message: `times must be a whole number of requests, 1 or more (got ${describe(value)})`,
    });
    return 1;
  }
  return value;
}

function readAnswer(raw: Record<string, unknown>, path: string, issues: FieldIssue[]): Step | null {
  if (typeof raw.answer !== 'string') {
    issues.push({ path: `${path}/answer`, message: `answer must be a text (got ${describe(raw.answer)})` });
    return null;
  }
  const toolCall =
    raw.tool_call === undefined ? null : readToolCall(raw.tool_call, `${path}/tool_call`, issues);
  if (raw.tool_call !== undefined && toolCall === null) return null;
  return { kind: 'answer', text: raw.answer, toolCall };
}

function readToolCall(raw: unknown, path: string, issues: FieldIssue[]): ToolCall | null {
  if (!isPlainObject(raw)) {
    issues.push({ path, message: `tool_call must be an object {name, arguments} (got ${describe(raw)})` });
    return null;
  }
  const before = issues.length;
  for (const key of Object.keys(raw))
    if (key !== 'name' && key !== 'arguments')
      issues.push({
        path: pointer(path, key),
        message: `unknown field ${describe(key)} (fields: name, arguments)`,
      });
  if (typeof raw.name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(raw.name))
    issues.push({
      path: `${path}/name`,
      message: `name must be a tool name of 1 to 64 letters, digits, _ . or - (got ${describe(raw.name)})`,
    });
  if (raw.arguments !== undefined && !isPlainObject(raw.arguments))
    issues.push({
      path: `${path}/arguments`,
      message: `arguments must be an object (the tool's input) (got ${describe(raw.arguments)})`,
    });
  if (issues.length > before) return null;
  return {
    name: raw.name as string,
    arguments: (raw.arguments as Record<string, unknown> | undefined) ?? {},
  };
}

function readFault(raw: Record<string, unknown>, path: string, issues: FieldIssue[]): Step | null {
  const fault = faultNames.find((name) => name === raw.fault);
  if (fault === undefined) {
    issues.push({
      path: `${path}/fault`,
      message: `fault must be one of ${faultNames.join(', ')} (got ${describe(raw.fault)})`,
    });
    return null;
  }
  if (raw.retry_after !== undefined && fault !== 'rate_limited') {
    issues.push({
      path: `${path}/retry_after`,
      message: 'retry_after applies to the rate_limited fault only',
    });
    return null;
  }
  const retry = raw.retry_after ?? defaultRetryAfterSeconds;
  if (
    typeof retry !== 'number' ||
    !Number.isSafeInteger(retry) ||
    retry < 0 ||
    retry > maxRetryAfterSeconds
  ) {
    issues.push({
      path: `${path}/retry_after`,
      message: `retry_after must be whole seconds from 0 to ${maxRetryAfterSeconds} (got ${describe(retry)})`,
    });
    return null;
  }
  return { kind: 'fault', fault, retryAfterSeconds: retry };
}

/** Hands out the script's steps in order: each generation request takes one; `then` serves once they run out. */
export class StepCursor {
  private entry = 0;
  private servedOfEntry = 0;
  private taken = 0;

  constructor(private readonly script: Script) {}

  /** The next step, and its number (1-based, counting requests) for the log. */
  next(): { readonly step: Step; readonly request: number; readonly from: string } {
    this.taken += 1;
    const current = this.script.steps[this.entry];
    if (current === undefined) return { step: this.script.then, request: this.taken, from: 'then' };
    const from = `steps/${this.entry}`;
    this.servedOfEntry += 1;
    if (this.servedOfEntry >= current.times) {
      this.entry += 1;
      this.servedOfEntry = 0;
    }
    return { step: current.step, request: this.taken, from };
  }
}
