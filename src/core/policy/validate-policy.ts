import { defaultPolicyDocument } from './defaults.js';
import { isLegacyKey, normalizeLegacyRules } from './legacy-rules.js';
import type { DynamicProfile, PolicyDocument, ProfileCandidate } from './policy-document.js';
import { rejectUnknown, validateClassPolicy } from './validate-class-policy.js';
import { policyClasses } from '../catalogue/codes.js';
import { credentialIdMessage, hasIdShape, idProblem } from '../validation/id-shape.js';
import { describe, isPlainObject, pointer, type FieldIssue } from '../validation/field-issue.js';

export type Validated<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly FieldIssue[] };

const supportedVersions = [1] as const;
const v1Keys = ['version', ...policyClasses] as const;

/**
 * Validates a policy document, version 1 or a legacy rules map, and returns the normalized version 1 document.
 * Every problem is reported at once with a JSON pointer and a message naming the limit and the bad value.
 */
export function validatePolicyDocument(value: unknown, path = ''): Validated<PolicyDocument> {
  const issues: FieldIssue[] = [];
  const document = readPolicyDocument(value, path, issues);
  return document === null || issues.length > 0 ? { ok: false, issues } : { ok: true, value: document };
}

function readPolicyDocument(value: unknown, path: string, issues: FieldIssue[]): PolicyDocument | null {
  if (!isPlainObject(value)) {
    issues.push({
      path,
      message: `a policy must be an object: a version 1 document or a legacy rules map (got ${describe(value)})`,
    });
    return null;
  }
  const keys = Object.keys(value);
  const v1 = keys.some((k) => (v1Keys as readonly string[]).includes(k));
  const legacy = keys.filter(isLegacyKey);
  if (!v1) return keys.length === 0 ? defaultPolicyDocument : normalizeLegacyRules(value, path, issues);
  for (const key of legacy) {
    issues.push({
      path: pointer(path, key),
      message: `legacy rule ${describe(key)} cannot be mixed with a version 1 document`,
    });
  }
  const version = value.version;
  if (version === undefined)
    issues.push({ path: pointer(path, 'version'), message: 'version is required (supported: 1)' });
  else if (!supportedVersions.includes(version as 1)) {
    issues.push({
      path: pointer(path, 'version'),
      message: `version ${describe(version)} is not supported (supported: 1)`,
    });
  }
  for (const key of keys) {
    if (!(v1Keys as readonly string[]).includes(key) && !isLegacyKey(key)) {
      issues.push({
        path: pointer(path, key),
        message: `unknown class or field ${describe(key)} (classes: transient, hard)`,
      });
    }
  }
  const classes: Partial<PolicyDocument> = {};
  for (const cls of policyClasses) {
    if (value[cls] === undefined) {
      issues.push({
        path: pointer(path, cls),
        message: `incomplete class coverage: ${cls} is required (every candidate has a transient and a hard policy)`,
      });
      continue;
    }
    const policy = validateClassPolicy(value[cls], pointer(path, cls), issues);
    if (policy !== null) (classes as Record<string, unknown>)[cls] = policy;
  }
  if (classes.transient === undefined || classes.hard === undefined) return null;
  return { version: 1, transient: classes.transient, hard: classes.hard };
}

const maxCandidates = 32;

/**
 * Validates a dynamic profile; each candidate's policy may be version 1 or legacy, or absent (the default).
 * At least one candidate must be enabled (`enabled` defaults to true).
 */
export function validateDynamicProfile(value: unknown, path = ''): Validated<DynamicProfile> {
  const issues: FieldIssue[] = [];
  if (!isPlainObject(value)) {
    return {
      ok: false,
      issues: [
        {
          path,
          message: `a dynamic profile must be an object {id, name, version, candidates} (got ${describe(value)})`,
        },
      ],
    };
  }
  rejectUnknown(value, ['id', 'name', 'version', 'candidates'], path, 'a dynamic profile', issues);
  const id = value.id;
  const idIssue = idProblem(id);
  if (idIssue !== null) {
    // An id of the right characters that holds a key is refused as that (docs/server.md), never shown.
    issues.push({
      path: pointer(path, 'id'),
      message:
        idIssue === 'credential'
          ? `id ${credentialIdMessage}`
          : `id must be 1-128 letters, digits or ._:@/- starting with a letter or digit (got ${describe(id)})`,
    });
  }
  const name = value.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    issues.push({
      path: pointer(path, 'name'),
      message: `name must be a non-empty string of at most 200 characters (got ${describe(name)})`,
    });
  } else if (name.includes('\u0000')) {
    // SQLite stores it, PostgreSQL refuses it: the same profile must save on both backends, or on neither.
    issues.push({
      path: pointer(path, 'name'),
      message: 'name must not contain the NUL character (U+0000): PostgreSQL cannot store it',
    });
  }
  // Optional: the store numbers versions itself; a version given must still be a positive integer.
  const version = value.version ?? 1;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    issues.push({
      path: pointer(path, 'version'),
      message: `version must be a positive integer (got ${describe(version)})`,
    });
  }
  const candidates = readCandidates(value.candidates, pointer(path, 'candidates'), issues);
  if (issues.length > 0 || candidates === null) return { ok: false, issues };
  return {
    ok: true,
    value: { id: id as string, name: name as string, version: version as number, candidates },
  };
}

function readCandidates(value: unknown, path: string, issues: FieldIssue[]): ProfileCandidate[] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > maxCandidates) {
    issues.push({
      path,
      message: `candidates must be a list of 1 to ${maxCandidates} candidates (got ${describe(value)}${Array.isArray(value) ? ` of ${value.length}` : ''})`,
    });
    return null;
  }
  const out: ProfileCandidate[] = [];
  const seen = new Set<string>();
  value.forEach((candidate: unknown, index) => {
    const at = pointer(path, index);
    if (!isPlainObject(candidate)) {
      issues.push({
        path: at,
        message: `a candidate must be an object {profile_id, enabled, policy} (got ${describe(candidate)})`,
      });
      return;
    }
    rejectUnknown(
      candidate,
      ['profile_id', 'enabled', 'policy', 'provider', 'model'],
      at,
      'a candidate',
      issues,
    );
    const descriptors: { provider?: string; model?: string } = {};
    for (const key of ['provider', 'model'] as const) {
      const raw = candidate[key];
      if (raw === undefined) continue;
      if (!hasIdShape(raw)) {
        issues.push({
          path: pointer(at, key),
          message: `${key} must be a non-secret id of 1-128 letters, digits or ._:@/- (got ${describe(raw)})`,
        });
      } else {
        descriptors[key] = raw;
      }
    }
    const profileId = candidate.profile_id;
    if (!hasIdShape(profileId)) {
      issues.push({
        path: pointer(at, 'profile_id'),
        message:
          idProblem(profileId) === 'credential'
            ? `profile_id ${credentialIdMessage}`
            : `profile_id must be 1-128 letters, digits or ._:@/- (got ${describe(profileId)})`,
      });
    } else if (seen.has(profileId)) {
      issues.push({
        path: pointer(at, 'profile_id'),
        message: `profile_id ${describe(profileId)} appears twice: each candidate is a distinct profile`,
      });
    } else {
      seen.add(profileId);
    }
    const enabled = candidate.enabled ?? true;
    if (typeof enabled !== 'boolean') {
      issues.push({
        path: pointer(at, 'enabled'),
        message: `enabled must be true or false (got ${describe(enabled)})`,
      });
    }
    // A candidate without a policy and without legacy rules gets the default document (REQUIREMENTS POL-14).
    const policy =
      candidate.policy === undefined
        ? defaultPolicyDocument
        : readPolicyDocument(candidate.policy, pointer(at, 'policy'), issues);
    if (policy !== null && typeof profileId === 'string' && typeof enabled === 'boolean') {
      out.push({ profile_id: profileId, enabled, policy, ...descriptors });
    }
  });
  // A route starts on the first enabled candidate: a profile with none could never start one, so it is refused
  // here, with its other problems, rather than when a route is started.
  if (value.every((candidate: unknown) => isPlainObject(candidate) && candidate.enabled === false)) {
    issues.push({
      path,
      message: `at least one candidate must be enabled (all ${value.length} are disabled)`,
    });
  }
  return out;
}
