import type { ClassPolicy, PolicyDocument } from './policy-document.js';

/** Immediate skip: no retry, no reset waiting, then `skip` (the default for new and legacy candidates). */
export const immediateSkip: ClassPolicy = Object.freeze({
  retry: Object.freeze({ enabled: false, max_retries: 0, initial_interval_seconds: 0 }),
  wait_for_reset: Object.freeze({ enabled: false, max_wait_seconds: 0 }),
  on_exhausted: 'skip',
});

/** The default document: both classes skip immediately, introducing no hidden delays (POL-13, POL-14). */
export const defaultPolicyDocument: PolicyDocument = Object.freeze({
  version: 1,
  transient: immediateSkip,
  hard: immediateSkip,
});
