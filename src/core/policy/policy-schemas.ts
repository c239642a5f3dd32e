import { z } from 'zod';
import type { DynamicProfile, PolicyDocument } from './policy-document.js';
import { validateDynamicProfile, validatePolicyDocument, type Validated } from './validate-policy.js';

/**
 * zod schemas shared with the web UI. They run the same validators as the backend (one definition of every
 * limit and message) and output the normalized document; their issues carry the same paths as arrays.
 */
function schemaOf<T>(validate: (value: unknown) => Validated<T>) {
  return z.unknown().transform((value, ctx): T => {
    const result = validate(value);
    if (result.ok) return result.value;
    for (const issue of result.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: pathOf(issue.path), input: value });
    }
    return z.NEVER;
  });
}

/** JSON pointer to a zod path (`/candidates/1/policy` -> ['candidates', 1, 'policy']). */
function pathOf(jsonPointer: string): Array<string | number> {
  if (jsonPointer === '') return [];
  return jsonPointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

export const policyDocumentSchema = schemaOf<PolicyDocument>((v) => validatePolicyDocument(v));
export const dynamicProfileSchema = schemaOf<DynamicProfile>((v) => validateDynamicProfile(v));
