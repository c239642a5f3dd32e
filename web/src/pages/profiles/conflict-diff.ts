import type { DynamicProfile } from '../../../../src/core/policy/index.js';

/**
 * What another client changed between the version this page edited and the current one, in the form's words
 * ("claude-code › Transient › Maximum retries: 3 → 5"), for the 409 version_conflict banner.
 */
export function profileChanges(before: DynamicProfile, after: DynamicProfile): string[] {
  const a = flatten(before);
  const b = flatten(after);
  const changes: string[] = [];
  const names = candidateNames(before, after);
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (key === '/version') continue;
    const from = a.get(key);
    const to = b.get(key);
    if (from === to) continue;
    changes.push(`${labelOf(key, names)}: ${from ?? '(none)'} → ${to ?? '(none)'}`);
  }
  return changes;
}

function flatten(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) value.forEach((v, i) => flatten(v, `${path}/${i}`, out));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) flatten(v, `${path}/${k}`, out);
  else out.set(path, String(value));
  return out;
}

function candidateNames(before: DynamicProfile, after: DynamicProfile): string[] {
  const count = Math.max(before.candidates.length, after.candidates.length);
  return Array.from({ length: count }, (_, i) => {
    const x = before.candidates[i]?.profile_id;
    const y = after.candidates[i]?.profile_id;
    return x === y || y === undefined ? (x ?? '') : x === undefined ? y : `${x} / ${y}`;
  });
}

const words: Readonly<Record<string, string>> = {
  name: 'Name',
  transient: 'Transient',
  hard: 'Hard',
  retry: 'Retry',
  wait_for_reset: 'Reset waiting',
  enabled: 'Enabled',
  max_retries: 'Maximum retries',
  initial_interval_seconds: 'Initial interval (s)',
  max_wait_seconds: 'Maximum wait (s)',
  on_exhausted: 'When exhausted',
  profile_id: 'Profile',
  provider: 'Provider',
  model: 'Model',
};

function labelOf(pointer: string, names: readonly string[]): string {
  const parts = pointer.split('/').slice(1);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === 'candidates' && parts[i + 1] !== undefined) {
      const index = Number(parts[++i]);
      out.push(`Candidate ${index + 1} (${names[index] ?? ''})`);
    } else if (part === 'policy' || part === 'version') continue;
    else out.push(words[part] ?? part);
  }
  return out.join(' › ');
}
