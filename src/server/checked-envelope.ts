import { parseEnvelope, type EvidenceEnvelope } from '../core/index.js';
import { invalid } from './http-errors.js';

/** The classifier's own parser names an envelope's problems; here they are addressed under `/envelope`. */
export function checkedEnvelope(value: unknown): EvidenceEnvelope {
  const parsed = parseEnvelope(value);
  if (!parsed.ok)
    throw invalid(parsed.issues.map((i) => ({ path: `/envelope${i.path}`, message: i.message })));
  return value as EvidenceEnvelope;
}
