import { describe, expect, it } from 'vitest';
import { policyDocumentSchema, validatePolicyDocument } from '../../../src/core/index.js';

/** A class policy with every field POL-02 names, each section enabled so that every number is required. */
const full = () => ({
  retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
  wait_for_reset: { enabled: true, max_wait_seconds: 600 },
  on_exhausted: 'skip',
});
const documentWith = (transient: unknown) => ({ version: 1, transient, hard: full() });
const issuesOf = (value: unknown) => {
  const r = validatePolicyDocument(value);
  return r.ok ? [] : r.issues;
};

/** The POL-02 fields as paths inside one class policy. */
const fields = [
  ['retry', 'enabled'],
  ['retry', 'max_retries'],
  ['retry', 'initial_interval_seconds'],
  ['wait_for_reset', 'enabled'],
  ['wait_for_reset', 'max_wait_seconds'],
  ['on_exhausted'],
] as const;

function without(path: readonly string[]): Record<string, unknown> {
  const policy = full() as unknown as Record<string, Record<string, unknown>>;
  if (path.length === 1) delete (policy as Record<string, unknown>)[path[0]!];
  else delete policy[path[0]!]![path[1]!];
  return policy;
}

describe('a class policy has exactly the POL-02 fields', () => {
  it('[POL-02] accepts a policy with exactly these fields and returns exactly them', () => {
    const r = validatePolicyDocument(documentWith(full()));
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.transient).toEqual(full());
    const keys = (o: object) => Object.keys(o).sort();
    expect(keys(r.value.transient)).toEqual(['on_exhausted', 'retry', 'wait_for_reset']);
    expect(keys(r.value.transient.retry)).toEqual(['enabled', 'initial_interval_seconds', 'max_retries']);
    expect(keys(r.value.transient.wait_for_reset)).toEqual(['enabled', 'max_wait_seconds']);
  });

  it.each(fields.map((path) => [path.join('.'), path] as const))(
    '[POL-02] reports a missing %s at its path',
    (_name, path) => {
      const issues = issuesOf(documentWith(without(path)));
      expect(issues.map((i) => i.path)).toEqual([`/transient/${path.join('/')}`]);
    },
  );

  it('[POL-02] reports each missing section and field at once', () => {
    expect(issuesOf(documentWith({})).map((i) => i.path)).toEqual([
      '/transient/retry',
      '/transient/wait_for_reset',
      '/transient/on_exhausted',
    ]);
    const empty = { retry: { enabled: true }, wait_for_reset: { enabled: true } };
    expect(
      issuesOf(documentWith(empty))
        .map((i) => i.path)
        .sort(),
    ).toEqual([
      '/transient/on_exhausted',
      '/transient/retry/initial_interval_seconds',
      '/transient/retry/max_retries',
      '/transient/wait_for_reset/max_wait_seconds',
    ]);
  });

  it.each([
    ['the class policy', { ...full(), max_retries: 3 }, '/transient/max_retries'],
    [
      'retry',
      { ...full(), retry: { ...full().retry, backoff_multiplier: 2 } },
      '/transient/retry/backoff_multiplier',
    ],
    [
      'wait_for_reset',
      { ...full(), wait_for_reset: { ...full().wait_for_reset, min_wait_seconds: 1 } },
      '/transient/wait_for_reset/min_wait_seconds',
    ],
  ])('[POL-02] rejects an unknown field in %s', (_name, policy, path) => {
    expect(issuesOf(documentWith(policy)).map((i) => i.path)).toEqual([path]);
    expect(policyDocumentSchema.safeParse(documentWith(policy)).success).toBe(false);
  });
});
