// TEMPORARY: replaced by classify.ts's classifyEvidenceDetailed when the classifier branch lands.
import { classifyEvidence, type ClassifyOptions } from './classify.js';
import type { Classification } from './classification.js';
import type { Evidence } from '../evidence/evidence.js';

export interface TimingOrigin {
  readonly observedAtMs: number | null;
  readonly originMs: number;
  readonly corrected: boolean;
}

export function classifyEvidenceDetailed(
  evidence: Evidence,
  options: ClassifyOptions,
): { classification: Classification; timingOrigin: TimingOrigin } {
  const now = typeof options.now === 'number' ? options.now : options.now.getTime();
  const ahead = evidence.observedAtMs !== null && evidence.observedAtMs - now > 300_000;
  const classification = classifyEvidence(ahead ? { ...evidence, observedAtMs: null } : evidence, options);
  return {
    classification,
    timingOrigin: {
      observedAtMs: evidence.observedAtMs,
      originMs: ahead ? now : (evidence.observedAtMs ?? now),
      corrected: ahead,
    },
  };
}
