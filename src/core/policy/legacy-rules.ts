import { immediateSkip } from './defaults.js';
import { legacyRetrySameIntervalSeconds } from './limits.js';
import type { ClassPolicy, PolicyDocument } from './policy-document.js';
import { classOfCode, isNonProviderCode, isProviderCode, type PolicyClass } from '../catalogue/codes.js';
import { describe, pointer, type FieldIssue } from '../validation/field-issue.js';

/** The legacy per-candidate rules a policy map may still hold. */
export const legacyActions = ['retry_same', 'try_next', 'stop'] as const;
export type LegacyAction = (typeof legacyActions)[number];

/** The legacy key that sets both classes at once. */
export const legacyDefaultKey = 'on_provider_error';

/** What each legacy action means as a class policy (REQUIREMENTS POL-16 to POL-18). */
export function classPolicyOfLegacy(action: LegacyAction): ClassPolicy {
  switch (action) {
    case 'try_next':
      return immediateSkip;
    case 'stop':
      return { ...immediateSkip, on_exhausted: 'stop' };
    case 'retry_same':
      return {
        retry: { enabled: true, max_retries: 1, initial_interval_seconds: legacyRetrySameIntervalSeconds },
        wait_for_reset: { enabled: false, max_wait_seconds: 0 },
        on_exhausted: 'stop',
      };
  }
}

/** True for keys that only a legacy rules map has. */
export function isLegacyKey(key: string): boolean {
  return key === legacyDefaultKey || isProviderCode(key) || isNonProviderCode(key);
}

/**
 * Normalizes a legacy rules map once into the versioned document: `on_provider_error` sets both classes, and a
 * per-code key (`rate_limited: "stop"`) sets its code's class, overriding it. Two codes of one class with
 * different actions, a non-provider code, an unknown key or action are errors; an empty map is the default.
 */
export function normalizeLegacyRules(
  map: Record<string, unknown>,
  path: string,
  issues: FieldIssue[],
): PolicyDocument | null {
  const before = issues.length;
  let base: LegacyAction | null = null;
  const perClass: Partial<Record<PolicyClass, { action: LegacyAction; key: string }>> = {};
  for (const [key, raw] of Object.entries(map)) {
    const at = pointer(path, key);
    const action = legacyActions.includes(raw as LegacyAction) ? (raw as LegacyAction) : null;
    if (action === null) {
      issues.push({
        path: at,
        message: `a legacy rule must be "retry_same", "try_next" or "stop" (got ${describe(raw)})`,
      });
      continue;
    }
    if (key === legacyDefaultKey) {
      base = action;
      continue;
    }
    if (isNonProviderCode(key)) {
      issues.push({
        path: at,
        message: `${key} is not a provider error: legacy rules apply only to provider codes`,
      });
      continue;
    }
    const cls = classOfCode(key);
    if (cls === null) {
      issues.push({
        path: at,
        message: `unknown legacy rule key ${describe(key)} (on_provider_error or a provider code such as rate_limited)`,
      });
      continue;
    }
    const earlier = perClass[cls];
    if (earlier && earlier.action !== action) {
      issues.push({
        path: at,
        message: `${key} (${action}) and ${earlier.key} (${earlier.action}) are both ${cls} codes with different actions: a class has one policy`,
      });
      continue;
    }
    perClass[cls] = { action, key };
  }
  if (issues.length > before) return null;
  const forClass = (cls: PolicyClass): ClassPolicy => {
    const action = perClass[cls]?.action ?? base;
    return action === null ? immediateSkip : classPolicyOfLegacy(action);
  };
  return { version: 1, transient: forClass('transient'), hard: forClass('hard') };
}
