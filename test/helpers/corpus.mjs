// @ts-check
// The labelled corpus (corpus/README.md): read its records, turn each into the evidence envelope the classifier
// reads, and score a classification against its label. Plain JavaScript, type-checked by tsc, because the
// benchmark (bench/classify.mjs) replays the same envelopes on Node without a TypeScript loader.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * One labelled record, as a corpus line holds it.
 * @typedef {object} CorpusRecord
 * @property {string} id
 * @property {'http' | 'sdk_exception' | 'stderr' | 'acp' | 'exit'} source_kind
 * @property {string} provider
 * @property {number | null} http_status
 * @property {Record<string, string>} headers
 * @property {string} body
 * @property {string} code
 * @property {'transient' | 'hard' | 'none'} class
 * @property {number | null} retry_after_seconds
 * @property {string | null} reset_at
 * @property {string | null} observed_at
 * @property {string} source
 * @property {string} note
 * @property {readonly string[]} [also]
 */

/**
 * The fields of a classification the score reads.
 * @typedef {object} Prediction
 * @property {string | null} code
 * @property {string} class
 * @property {string | null} retry_after
 * @property {string | null} reset_at
 */

/**
 * How a prediction fares against its record. `timing` is null when the label states no timing to check.
 * @typedef {object} RecordScore
 * @property {boolean} right the code (or, for a label of class none, the unclassified class) is accepted
 * @property {boolean} unsafe transient or hard for a label of class none, and not accepted by `also`
 * @property {boolean | null} timing the predicted hint is within tolerance of the labelled one
 */

/** The corpus folder at the repository's root. */
const corpusDir = fileURLToPath(new URL('../../corpus/', import.meta.url));

/** Every `.jsonl` file of the corpus folder, by name. */
export const corpusFiles = readdirSync(corpusDir)
  .filter((name) => name.endsWith('.jsonl'))
  .sort();

/** Agent CLIs: a record from one of these names the envelope's `agent`, any other surface its `provider`. */
const agentClis = new Set([
  'claude-code',
  'codex',
  'gemini-cli',
  'cursor',
  'copilot',
  'qwen-code',
  'opencode',
  'aider',
  'amp',
  'goose',
  'cline',
  'continue',
  'roo-code',
  'kilo-code',
  'crush',
  'windsurf',
  'warp',
  'google-antigravity',
  'letta',
]);

/** The instant of a record without `observed_at`. */
const defaultObservedAt = '2026-06-01T12:00:00Z';

const sourceKinds = new Set(['http', 'sdk_exception', 'stderr', 'acp', 'exit']);
const labelClasses = new Set(['transient', 'hard', 'none']);
const requiredKeys = [
  'id',
  'source_kind',
  'provider',
  'http_status',
  'headers',
  'body',
  'code',
  'class',
  'retry_after_seconds',
  'reset_at',
  'observed_at',
  'source',
  'note',
];
const knownKeys = new Set([...requiredKeys, 'also']);

/**
 * Every non-blank line of a JSONL file, parsed. A line that is not JSON fails with its file and line number.
 * @param {string} path
 * @returns {unknown[]}
 */
export function readJsonl(path) {
  /** @type {unknown[]} */
  const values = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        values.push(JSON.parse(line));
      } catch (error) {
        throw new Error(`${path}:${index + 1}: not JSON`, { cause: error });
      }
    });
  return values;
}

/**
 * The records of one corpus file, each checked against the record format: a malformed record fails loudly
 * (file, id and field) rather than be scored as something it is not.
 * @param {string} file a name from `corpusFiles`
 * @returns {CorpusRecord[]}
 */
export function readCorpus(file) {
  return readCorpusFile(join(corpusDir, file));
}

/**
 * The records of a corpus-format file anywhere (a hold-out kept outside the corpus folder, a new collection),
 * checked like the corpus's own.
 * @param {string} path
 * @returns {CorpusRecord[]}
 */
export function readCorpusFile(path) {
  const name = path.split('/').pop() ?? path;
  return readJsonl(path).map((value, index) => checkRecord(value, `${name} record ${index + 1}`));
}

/**
 * @param {unknown} value
 * @param {string} where
 * @returns {CorpusRecord}
 */
function checkRecord(value, where) {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${where}: not an object`);
  const r = /** @type {Record<string, unknown>} */ (value);
  const fail = (/** @type {string} */ field, /** @type {string} */ want) =>
    new Error(`${where} (${String(r.id)}): ${field} must be ${want}, got ${JSON.stringify(r[field])}`);
  for (const key of Object.keys(r)) if (!knownKeys.has(key)) throw fail(key, 'absent (unknown field)');
  for (const key of requiredKeys) if (!(key in r)) throw fail(key, 'present');
  for (const key of ['id', 'provider', 'body', 'code', 'source', 'note'])
    if (typeof r[key] !== 'string') throw fail(key, 'a string');
  if (!sourceKinds.has(/** @type {string} */ (r.source_kind)))
    throw fail('source_kind', [...sourceKinds].join('|'));
  if (!labelClasses.has(/** @type {string} */ (r.class))) throw fail('class', [...labelClasses].join('|'));
  if ((r.class === 'none') !== (r.code === 'not_provider' || r.code === 'unclassified'))
    throw fail('class', `none exactly for not_provider and unclassified (code ${String(r.code)})`);
  if (r.http_status !== null && !Number.isInteger(r.http_status))
    throw fail('http_status', 'an integer or null');
  if (r.retry_after_seconds !== null && typeof r.retry_after_seconds !== 'number')
    throw fail('retry_after_seconds', 'a number or null');
  for (const key of ['reset_at', 'observed_at'])
    if (r[key] !== null && typeof r[key] !== 'string') throw fail(key, 'a string or null');
  if (typeof r.headers !== 'object' || r.headers === null || Array.isArray(r.headers))
    throw fail('headers', 'an object');
  if ('also' in r && !(Array.isArray(r.also) && r.also.every((a) => typeof a === 'string')))
    throw fail('also', 'a list of codes');
  return /** @type {CorpusRecord} */ (value);
}

/**
 * The instant the record was observed, ISO-8601: a bare date is noon UTC; a missing one is 2026-06-01T12:00:00Z.
 * @param {CorpusRecord} record
 * @returns {string}
 */
function observedAt(record) {
  const at = record.observed_at;
  if (at === null || at === '') return defaultObservedAt;
  return /^\d{4}-\d{2}-\d{2}$/.test(at) ? `${at}T12:00:00Z` : at;
}

/**
 * The caller's clock (epoch ms) for replaying a record: the instant it was observed. Never earlier, because a
 * classifier may distrust an `observed_at` ahead of its clock as the origin of a relative hint.
 * @param {CorpusRecord} record
 * @returns {number}
 */
export function replayNow(record) {
  const ms = Date.parse(observedAt(record));
  if (!Number.isFinite(ms))
    throw new Error(`${record.id}: observed_at ${String(record.observed_at)} is not a date`);
  return ms;
}

/**
 * The evidence envelope the classifier reads for a record (corpus/README.md, "From record to evidence envelope").
 * @param {CorpusRecord} record
 * @returns {Record<string, unknown>}
 */
export function toEnvelope(record) {
  const who = agentClis.has(record.provider) ? { agent: record.provider } : { provider: record.provider };
  const common = { ...who, observed_at: observedAt(record) };
  switch (record.source_kind) {
    case 'http':
      return {
        kind: 'http',
        ...common,
        status: record.http_status ?? 0,
        headers: record.headers,
        body: record.body,
      };
    case 'sdk_exception':
      return {
        kind: 'sdk_exception',
        ...common,
        name: 'Error',
        message: record.body,
        ...(record.http_status === null ? {} : { status: record.http_status }),
        headers: record.headers,
      };
    case 'acp':
      return { kind: 'acp_error', ...common, error: acpError(record.body) };
    case 'exit':
      return { kind: 'process_exit', ...common, exit_code: 1, signal: null, stderr_tail: record.body };
    case 'stderr':
      return { kind: 'stderr', ...common, text: record.body };
  }
}

/**
 * An agent-protocol error: the body itself when it is a JSON object with a message, else a JSON-RPC internal
 * error carrying the body as its message.
 * @param {string} body
 * @returns {unknown}
 */
function acpError(body) {
  try {
    const parsed = /** @type {unknown} */ (JSON.parse(body));
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) return parsed;
  } catch {
    // Not JSON: the text is the message.
  }
  return { code: -32603, message: body };
}

/**
 * Scores one classification against its record (corpus/README.md, "Scoring a prediction").
 * @param {CorpusRecord} record
 * @param {Prediction} prediction
 * @returns {RecordScore}
 */
export function scoreRecord(record, prediction) {
  const also = record.also ?? [];
  const committed = prediction.class === 'transient' || prediction.class === 'hard';
  const acceptedByAlso = committed
    ? prediction.code !== null && also.includes(prediction.code)
    : prediction.class === 'unclassified' && also.includes('unclassified');
  const right =
    acceptedByAlso ||
    (record.class === 'none' ? prediction.class === 'unclassified' : prediction.code === record.code);
  return {
    right,
    unsafe: record.class === 'none' && committed && !acceptedByAlso,
    timing: timingRight(record, prediction),
  };
}

/**
 * @param {CorpusRecord} record
 * @param {Prediction} prediction
 * @returns {boolean | null}
 */
function timingRight(record, prediction) {
  if (record.retry_after_seconds !== null) {
    const hint = prediction.retry_after ?? prediction.reset_at;
    if (hint === null) return false;
    const seconds = (Date.parse(hint) - Date.parse(observedAt(record))) / 1000;
    return Math.abs(seconds - record.retry_after_seconds) <= Math.max(1, 0.05 * record.retry_after_seconds);
  }
  if (record.reset_at !== null && !record.reset_at.startsWith('relative:')) {
    const hint = prediction.reset_at ?? prediction.retry_after;
    if (hint === null) return false;
    return Math.abs(Date.parse(hint) - Date.parse(record.reset_at)) <= 60_000;
  }
  return null;
}
