import type { DynamicProfile, PolicyDocument } from './policy-document.js';
import { policyClasses } from '../catalogue/codes.js';
import type { FieldIssue } from '../validation/field-issue.js';

/**
 * What a valid policy may still surprise its author with (never an error): a class that retries but does not wait
 * for resets retries on its exact schedule, so a provider's `Retry-After` or reset time never delays a retry
 * (EVL-16); only reset waiting honours it.
 */
export function policyWarnings(document: PolicyDocument, path = ''): FieldIssue[] {
  const warnings: FieldIssue[] = [];
  for (const cls of policyClasses) {
    const policy = document[cls];
    if (policy.retry.enabled && !policy.wait_for_reset.enabled) {
      warnings.push({
        path: `${path}/${cls}`,
        message: `retries run on their exact schedule (from ${policy.retry.initial_interval_seconds} s): a provider's Retry-After or reset time will not delay them; enable wait_for_reset to honour a trusted reset`,
      });
    }
  }
  return warnings;
}

/** The warnings of every candidate's policy (`/candidates/N/policy/<class>`). */
export function profileWarnings(profile: DynamicProfile): FieldIssue[] {
  return profile.candidates.flatMap((c, i) => policyWarnings(c.policy, `/candidates/${i}/policy`));
}
