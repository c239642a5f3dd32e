import { z } from 'zod';
import type { DynamicProfile, PolicyDocument } from './policy-document.js';
import type { DynamicProfileInput, PolicyDocumentInput } from './policy-input.js';
import { validateDynamicProfile, validatePolicyDocument, type Validated } from './validate-policy.js';

/**
 * zod schemas shared with the web UI. They run the same validators as the backend (one definition of every
 * limit and message) and output the normalized document; their issues carry the same paths as arrays.
 */
function schemaOf<T, Input>(validate: (value: unknown) => Validated<T>) {
  // The input type is what a caller may write (z.input gives it); the validator checks the value whatever it is.
  return z
    .custom<Input>(() => true)
    .transform((value, ctx): T => {
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

export const policyDocumentSchema = schemaOf<PolicyDocument, PolicyDocumentInput>((v) =>
  validatePolicyDocument(v),
);
export const dynamicProfileSchema = schemaOf<DynamicProfile, DynamicProfileInput>((v) =>
  validateDynamicProfile(v),
);
