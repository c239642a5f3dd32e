import type { StatusFault, ToolCall } from './script.js';

/** The APIs the fake provider speaks; the log names them. */
export type ApiName = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini';

/** What a generation request asked for, as far as the answer depends on it. */
export interface RequestContext {
  readonly model: string;
  /** A rough token count of the request body (a quarter of its length): real enough for a usage field. */
  readonly inputTokens: number;
  /** Unique within this server run: ids of messages and tool calls are built from it. */
  readonly serial: number;
  /** Epoch ms, for `created` fields and rate-limit reset times. */
  readonly nowMs: number;
}

/** What an answer says: a text (possibly empty) and at most one tool call. */
export interface AnswerContent {
  readonly text: string;
  readonly toolCall: ToolCall | null;
}

/** One event of a streamed answer: an SSE event (`event:` name optional) or a JSON array element. */
export interface Frame {
  readonly event?: string;
  /** A JSON value, or a raw data line (`[DONE]`). */
  readonly data: unknown;
  readonly raw?: boolean;
}

/**
 * A streamed answer in four parts, so that a cut can stop after any of them: the opening, the text, the tool
 * call and the closing events. A complete answer is all four; `cut_after_text` sends the first two and drops the
 * connection, `cut_after_tool_call` the first three.
 */
export interface StreamParts {
  readonly head: readonly Frame[];
  readonly text: readonly Frame[];
  readonly tool: readonly Frame[];
  readonly tail: readonly Frame[];
}

export interface ErrorReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** One API's native shapes: answers (whole and streamed) and errors. */
export interface Dialect {
  readonly api: ApiName;
  body(content: AnswerContent, request: RequestContext): unknown;
  stream(content: AnswerContent, request: RequestContext): StreamParts;
  error(fault: StatusFault, request: RequestContext, retryAfterSeconds: number): ErrorReply;
}

/** Splits a text into a few deltas, as a real stream does (words with their following space). */
export function textDeltas(text: string): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  const deltas: string[] = [];
  for (let i = 0; i < pieces.length; i += 2) deltas.push(pieces.slice(i, i + 2).join(''));
  return deltas;
}

/** Splits a tool call's JSON arguments into two deltas, so that clients assemble them as from a real stream. */
export function argumentDeltas(json: string): string[] {
  const middle = Math.ceil(json.length / 2);
  return json.length < 2 ? [json] : [json.slice(0, middle), json.slice(middle)];
}

/** A rough output token count of an answer. */
export function outputTokens(content: AnswerContent): number {
  const toolSize = content.toolCall === null ? 0 : JSON.stringify(content.toolCall).length;
  return Math.max(1, Math.ceil((content.text.length + toolSize) / 4));
}

/** Seconds since the epoch, as `created` fields carry them. */
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000);
