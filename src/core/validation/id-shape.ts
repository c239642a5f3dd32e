import { redactSecrets } from '../sanitize/redact-secrets.js';

/**
 * The shape of every caller-chosen id (routes, profiles, plans, sessions): a letter or digit, then up to 127 of
 * letters, digits and `._:@/-`. One definition, so the engine, the policy validator, the service and the CLI
 * refuse exactly the same ids.
 */
const idShape = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/**
 * Why `value` cannot be a caller-chosen id, or null when it can: `shape` when it is not a string of the id shape,
 * `credential` when it holds what the secret scan redacts (an API key, a token). An id is stored, written to logs,
 * sent in every event and shown on screen, so a key pasted as one would spread everywhere; an e-mail address (which
 * the scan also masks) is an account name, not a secret, and stays a valid id.
 */
export function idProblem(value: unknown): 'shape' | 'credential' | null {
  if (typeof value !== 'string' || !idShape.test(value)) return 'shape';
  // Each segment is judged alone: in prose a key word before a colon ("session: ...", "token: ...") makes the scan
  // read what follows as that key's value, but in an id the separators join names (`session:<uuid>` is a task
  // session's route), so only a segment that is itself key-shaped (a prefixed key, a JWT, a long random run) counts.
  for (const segment of value.split(/[:/@]/)) {
    if (segment !== '' && redactSecrets(segment).includes('[REDACTED]')) return 'credential';
  }
  return null;
}

/** Whether `value` can be a caller-chosen id: it has the id shape and holds no credential (`idProblem`). */
export function hasIdShape(value: unknown): value is string {
  return idProblem(value) === null;
}

/** What a refused id is told, for a `credential` problem: the value is never shown. */
export const credentialIdMessage =
  'looks like a credential (an API key or token; not shown): ids are stored, logged and sent in events, so choose one that holds no secret';
