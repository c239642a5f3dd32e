import { evidenceBounds } from './bounds.js';
import { boundedJson } from './bounded-json.js';
import { evidenceKinds, type EvidenceKind } from './envelope.js';
import type { Evidence, HeaderList } from './evidence.js';
import { FieldReader, type EnvelopeIssue } from './field-reader.js';
import { describe, isPlainObject, pointer } from '../validation/field-issue.js';
import { parseIsoDateTime } from '../time/iso-time.js';
import { cutUtf8 } from '../text/utf8.js';

export type ParseEnvelopeResult =
  | { readonly ok: true; readonly evidence: Evidence }
  | { readonly ok: false; readonly issues: readonly EnvelopeIssue[] };

const commonFields = [
  'kind',
  'provider',
  'agent',
  'model',
  'observed_at',
  'invocation_id',
  'prompt_generation',
  'phase',
];

const kindFields: Record<EvidenceKind, readonly string[]> = {
  http: ['status', 'headers', 'body'],
  acp_error: ['error'],
  acp_update: ['update'],
  stderr: ['text'],
  process_exit: ['exit_code', 'signal', 'stderr_tail'],
  sdk_exception: ['name', 'message', 'status', 'headers'],
};

const allowedByKind = Object.fromEntries(
  evidenceKinds.map((kind) => [kind, new Set([...commonFields, ...kindFields[kind]])]),
) as unknown as Record<EvidenceKind, ReadonlySet<string>>;

const kindSet: ReadonlySet<string> = new Set(evidenceKinds);

/**
 * Validates one evidence envelope and bounds it. Every problem is reported with a JSON pointer; oversized
 * text, headers and JSON values are cut and their pointers listed in `evidence.truncated`, never rejected.
 */
export function parseEnvelope(value: unknown): ParseEnvelopeResult {
  if (!isPlainObject(value)) {
    return {
      ok: false,
      issues: [{ path: '', message: `an envelope must be a JSON object (got ${describe(value)})` }],
    };
  }
  const kind = value.kind;
  if (typeof kind !== 'string' || !kindSet.has(kind)) {
    const got = kind === undefined ? 'kind is required' : `kind ${describe(kind)} is not supported`;
    return {
      ok: false,
      issues: [{ path: '/kind', message: `${got} (one of: ${evidenceKinds.join(', ')})` }],
    };
  }
  const evidenceKind = kind as EvidenceKind;
  const read = new FieldReader(value, '');
  read.rejectUnknown(allowedByKind[evidenceKind], `kind ${evidenceKind}`);
  const evidence = readCommon(read, evidenceKind);
  readKind(read, evidence);
  if (read.issues.length > 0) return { ok: false, issues: read.issues };
  evidence.truncated = Object.freeze(read.truncated);
  return { ok: true, evidence: Object.freeze(evidence) as unknown as Evidence };
}

/**
 * Evidence while it is read: the common fields, then the kind's own fields added in a fixed order, then
 * `truncated`. Built in place and frozen once (object spreads cost about half of a parse), with the same
 * properties in the same order as the `Evidence` types list them.
 */
type Building = Record<string, unknown> & { kind: EvidenceKind; truncated?: readonly string[] };

function readCommon(read: FieldReader, kind: EvidenceKind): Building {
  const idBytes = evidenceBounds.idBytes;
  let observedAtMs: number | null = null;
  const observed = read.raw('observed_at');
  if (observed !== undefined && observed !== null) {
    observedAtMs = typeof observed === 'string' ? parseIsoDateTime(observed) : null;
    if (observedAtMs === null) {
      read.fail(
        'observed_at',
        `observed_at must be an ISO-8601 date-time with a zone, like 2026-06-01T12:00:00Z (got ${describe(observed)})`,
      );
    }
  }
  return {
    kind,
    providerId: read.optionalText('provider', idBytes),
    agentId: read.optionalText('agent', idBytes),
    modelId: read.optionalText('model', idBytes),
    observedAtMs,
    invocationId: read.optionalText('invocation_id', idBytes),
    promptGeneration: read.integer('prompt_generation', 0, Number.MAX_SAFE_INTEGER, false),
    phase: read.optionalText('phase', idBytes),
  };
}

/** Adds the kind's own fields to `evidence`, in the order its type lists them (and reads them: issue order). */
function readKind(read: FieldReader, evidence: Building): void {
  const textBytes = evidenceBounds.textBytes;
  switch (evidence.kind) {
    case 'http':
      evidence.status = zeroAsNull(read.integer('status', 0, 599, true));
      evidence.headers = readHeaders(read, 'headers');
      evidence.body = readBody(read);
      return;
    case 'acp_error': {
      const { rpcCode, message, data } = readRpcError(read);
      evidence.rpcCode = rpcCode;
      evidence.message = message;
      evidence.data = data;
      return;
    }
    case 'acp_update': {
      const { updateType, text } = readUpdate(read);
      evidence.updateType = updateType;
      evidence.text = text;
      return;
    }
    case 'stderr':
      evidence.text = read.requiredText('text', textBytes);
      return;
    case 'process_exit':
      if (read.raw('exit_code') === undefined)
        read.fail('exit_code', 'exit_code is required (an integer or null)');
      evidence.exitCode = read.integer('exit_code', -2_147_483_648, 4_294_967_295, false);
      evidence.signal = read.optionalText('signal', evidenceBounds.idBytes);
      evidence.stderrTail = read.optionalText('stderr_tail', textBytes) ?? '';
      return;
    case 'sdk_exception':
      evidence.name = read.requiredText('name', evidenceBounds.idBytes);
      evidence.message = read.requiredText('message', textBytes);
      evidence.status = zeroAsNull(read.integer('status', 0, 599, false));
      evidence.headers = readHeaders(read, 'headers');
      return;
  }
}

function zeroAsNull(status: number | null): number | null {
  return status === 0 ? null : status;
}

function readBody(read: FieldReader): string {
  const body = read.raw('body');
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return read.bound('body', body, evidenceBounds.textBytes);
  // A JSON body some clients hand over already parsed: keep it as bounded JSON text.
  const json = boundedJson(body);
  if (json.cut) read.truncated.push(read.path('body'));
  return json.text;
}

function readHeaders(read: FieldReader, key: string): HeaderList {
  const raw = read.raw(key);
  if (raw === undefined || raw === null) return [];
  if (!isPlainObject(raw)) {
    read.fail(key, `${key} must be an object of header names to values (got ${describe(raw)})`);
    return [];
  }
  const out: Array<readonly [string, string]> = [];
  const limit = evidenceBounds.headerBytes;
  let cut = false;
  for (const name of Object.keys(raw)) {
    if (out.length >= evidenceBounds.headerEntries) {
      cut = true;
      break;
    }
    const value = raw[name];
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) text = value.join(', ');
    else {
      read.issues.push({
        path: pointer(read.path(key), name),
        message: `header ${describe(name)} must be a string, a number or an array of strings (got ${describe(value)})`,
      });
      continue;
    }
    const boundedName = cutUtf8(name.toLowerCase(), limit);
    const boundedValue = cutUtf8(text, limit);
    if (boundedName.length !== name.length || boundedValue.length !== text.length) cut = true;
    out.push([boundedName, boundedValue]);
  }
  if (cut) read.truncated.push(read.path(key));
  return out;
}

function readRpcError(read: FieldReader): { rpcCode: number; message: string; data: string | null } {
  const raw = read.raw('error');
  if (!isPlainObject(raw)) {
    read.fail(
      'error',
      raw === undefined
        ? 'error is required (a JSON-RPC error object)'
        : `error must be a JSON-RPC error object (got ${describe(raw)})`,
    );
    return { rpcCode: 0, message: '', data: null };
  }
  const inner = new FieldReader(raw, '/error');
  inner.rejectUnknown(new Set(['code', 'message', 'data']), 'a JSON-RPC error');
  const rpcCode = inner.integer('code', -2_147_483_648, 2_147_483_647, true) ?? 0;
  const message = inner.requiredText('message', evidenceBounds.textBytes);
  let data: string | null = null;
  const rawData = raw.data;
  if (rawData !== undefined && rawData !== null) {
    const json =
      typeof rawData === 'string'
        ? { text: inner.bound('data', rawData, evidenceBounds.textBytes), cut: false }
        : boundedJson(rawData);
    if (json.cut) inner.truncated.push(inner.path('data'));
    data = json.text;
  }
  read.issues.push(...inner.issues);
  read.truncated.push(...inner.truncated);
  return { rpcCode, message, data };
}

function readUpdate(read: FieldReader): { updateType: string | null; text: string | null } {
  const raw = read.raw('update');
  if (!isPlainObject(raw)) {
    read.fail(
      'update',
      raw === undefined
        ? 'update is required (an ACP SessionUpdate object)'
        : `update must be an ACP SessionUpdate object (got ${describe(raw)})`,
    );
    return { updateType: null, text: null };
  }
  const inner = new FieldReader(raw, '/update');
  const type = raw.sessionUpdate;
  if (type !== undefined && typeof type !== 'string')
    inner.fail('sessionUpdate', `sessionUpdate must be a string (got ${describe(type)})`);
  let text: string | null = null;
  const content = raw.content;
  if (isPlainObject(content) && typeof content.text === 'string') {
    text = new FieldReader(content, '/update/content').bound('text', content.text, evidenceBounds.textBytes);
    if (text.length !== content.text.length) read.truncated.push('/update/content/text');
  }
  read.issues.push(...inner.issues);
  return { updateType: typeof type === 'string' ? cutUtf8(type, evidenceBounds.idBytes) : null, text };
}
