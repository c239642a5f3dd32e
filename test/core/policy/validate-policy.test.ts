import { describe, expect, it } from 'vitest';
import {
  defaultPolicyDocument,
  dynamicProfileSchema,
  policyDocumentSchema,
  validateDynamicProfile,
  validatePolicyDocument,
  type ClassPolicy,
  type PolicyDocument,
} from '../../../src/core/index.js';

const skip: ClassPolicy = {
  retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: 'skip',
};
const retrying = (max_retries: unknown, initial_interval_seconds: unknown = 5) => ({
  version: 1,
  transient: {
    retry: { enabled: true, max_retries, initial_interval_seconds },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'skip',
  },
  hard: skip,
});
const waiting = (max_wait_seconds: unknown) => ({
  version: 1,
  transient: skip,
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: true, max_wait_seconds },
    on_exhausted: 'stop',
  },
});
const issuesOf = (value: unknown) => {
  const r = validatePolicyDocument(value);
  return r.ok ? [] : r.issues;
};
const accepted = (value: unknown): PolicyDocument => {
  const r = validatePolicyDocument(value);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
};

describe('policy document limits', () => {
  it.each([1, 10])('[POL-03] accepts max_retries %s when retry is enabled', (n) => {
    expect(accepted(retrying(n)).transient.retry.max_retries).toBe(n);
  });
  it.each([0, 11, -1, 2.5, '3', null, Number.NaN, Number.POSITIVE_INFINITY])(
    '[POL-03][POL-08] rejects max_retries %s',
    (n) => {
      const issues = issuesOf(retrying(n));
      expect(issues).toHaveLength(1);
      expect(issues[0]!.path).toBe('/transient/retry/max_retries');
      expect(issues[0]!.message).toContain('from 1 to 10');
      expect(issues[0]!.message).toContain('(got ');
    },
  );
  it.each([1, 3600])('[POL-04] accepts initial_interval_seconds %s', (s) => {
    expect(accepted(retrying(3, s)).transient.retry.initial_interval_seconds).toBe(s);
  });
  it.each([0, 3601, 0.5, -5])('[POL-04] rejects initial_interval_seconds %s', (s) => {
    expect(issuesOf(retrying(3, s))).toEqual([
      {
        path: '/transient/retry/initial_interval_seconds',
        message: `initial_interval_seconds must be an integer from 1 to 3600 seconds (1 s to 1 h) when retry is enabled (got ${s})`,
      },
    ]);
  });
  it.each([1, 604_800])('[POL-05] accepts max_wait_seconds %s', (s) => {
    expect(accepted(waiting(s)).hard.wait_for_reset.max_wait_seconds).toBe(s);
  });
  it.each([0, 604_801, 1.5])('[POL-05] rejects max_wait_seconds %s', (s) => {
    expect(issuesOf(waiting(s))[0]).toMatchObject({ path: '/hard/wait_for_reset/max_wait_seconds' });
    expect(issuesOf(waiting(s))[0]!.message).toContain('from 1 to 604800');
  });
  it('[POL-06] a disabled section holds zeros: non-zero is an error, omitted reads as zero', () => {
    const doc = {
      version: 1,
      transient: { ...skip, retry: { enabled: false, max_retries: 2, initial_interval_seconds: 0 } },
      hard: skip,
    };
    expect(issuesOf(doc)).toEqual([
      {
        path: '/transient/retry/max_retries',
        message: 'max_retries must be 0 when retry is disabled (got 2)',
      },
    ]);
    const omitted = {
      version: 1,
      transient: { retry: { enabled: false }, wait_for_reset: { enabled: false }, on_exhausted: 'stop' },
      hard: skip,
    };
    expect(accepted(omitted).transient).toEqual({ ...skip, on_exhausted: 'stop' });
  });
  it('[POL-07] on_exhausted is required and is skip or stop', () => {
    expect(issuesOf({ version: 1, transient: { ...skip, on_exhausted: 'retry' }, hard: skip })[0]).toEqual({
      path: '/transient/on_exhausted',
      message: 'on_exhausted must be "skip" or "stop" (got "retry")',
    });
    const { on_exhausted: _, ...noOutcome } = skip;
    expect(issuesOf({ version: 1, transient: noOutcome, hard: skip })[0]!.path).toBe(
      '/transient/on_exhausted',
    );
  });
});

describe('[POL-11][POL-10] field-addressable validation errors', () => {
  it('reports every problem at once: version, unknown class and field, outcome, bounds, coverage', () => {
    const issues = issuesOf({
      version: 2,
      transient: {
        retry: { enabled: true, max_retries: 0, initial_interval_seconds: 7200, extra: 1 },
        wait_for_reset: { enabled: 'yes' },
        on_exhausted: 'later',
      },
      unclassified: skip,
    });
    expect(issues.map((i) => i.path).sort()).toEqual(
      [
        '/hard',
        '/transient/on_exhausted',
        '/transient/retry/extra',
        '/transient/retry/initial_interval_seconds',
        '/transient/retry/max_retries',
        '/transient/wait_for_reset/enabled',
        '/unclassified',
        '/version',
      ].sort(),
    );
    expect(issues.find((i) => i.path === '/version')!.message).toBe(
      'version 2 is not supported (supported: 1)',
    );
    expect(issues.find((i) => i.path === '/unclassified')!.message).toContain('unknown class or field');
    expect(issues.find((i) => i.path === '/hard')!.message).toContain('incomplete class coverage');
  });
  it('rejects a non-object and a missing version', () => {
    expect(issuesOf('skip')[0]).toMatchObject({ path: '' });
    expect(issuesOf({ transient: skip, hard: skip })[0]).toEqual({
      path: '/version',
      message: 'version is required (supported: 1)',
    });
  });
  it('[POL-12] keeps exactly the two class objects of a version 1 document', () => {
    expect(Object.keys(accepted({ version: 1, transient: skip, hard: skip })).sort()).toEqual([
      'hard',
      'transient',
      'version',
    ]);
  });
  it('[POL-09] the zod schema shared with the UI gives the same paths, messages and normalized output', () => {
    const bad = retrying(11);
    const parsed = policyDocumentSchema.safeParse(bad);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => ({ path: i.path, message: i.message }))).toEqual([
      { path: ['transient', 'retry', 'max_retries'], message: issuesOf(bad)[0]!.message },
    ]);
    expect(policyDocumentSchema.parse({ on_provider_error: 'stop' })).toEqual(
      accepted({ on_provider_error: 'stop' }),
    );
  });
});

describe('defaults and legacy normalization', () => {
  const stopPolicy: ClassPolicy = { ...skip, on_exhausted: 'stop' };
  const retrySame: ClassPolicy = {
    retry: { enabled: true, max_retries: 1, initial_interval_seconds: 5 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop',
  };
  it('[POL-13][POL-14] the default is immediate skip for both classes, and an empty legacy map is the default', () => {
    expect(defaultPolicyDocument).toEqual({ version: 1, transient: skip, hard: skip });
    expect(accepted({})).toEqual(defaultPolicyDocument);
  });
  it('[POL-15][POL-16] try_next becomes no wait, no retry, then skip for both classes', () => {
    expect(accepted({ on_provider_error: 'try_next' })).toEqual({ version: 1, transient: skip, hard: skip });
  });
  it('[POL-17] stop becomes no wait, no retry, then stop for both classes', () => {
    expect(accepted({ on_provider_error: 'stop' })).toEqual({
      version: 1,
      transient: stopPolicy,
      hard: stopPolicy,
    });
  });
  it('[POL-18] retry_same becomes one retry after 5 s, then stop, for both classes', () => {
    expect(accepted({ on_provider_error: 'retry_same' })).toEqual({
      version: 1,
      transient: retrySame,
      hard: retrySame,
    });
  });
  it('[POL-19] a per-code rule sets the class of its code, overriding on_provider_error', () => {
    expect(accepted({ on_provider_error: 'retry_same', rate_limited: 'stop' })).toEqual({
      version: 1,
      transient: stopPolicy,
      hard: retrySame,
    });
    expect(accepted({ quota_limited: 'try_next', auth_required: 'try_next' })).toEqual({
      version: 1,
      transient: skip,
      hard: skip,
    });
    expect(accepted({ on_provider_error: 'stop', model_capacity: 'retry_same' })).toEqual({
      version: 1,
      transient: retrySame,
      hard: stopPolicy,
    });
  });
  it('[POL-19] two codes of one class with different actions are an error naming both', () => {
    expect(issuesOf({ rate_limited: 'stop', provider_overloaded: 'retry_same' })).toEqual([
      {
        path: '/provider_overloaded',
        message:
          'provider_overloaded (retry_same) and rate_limited (stop) are both transient codes with different actions: a class has one policy',
      },
    ]);
  });
  it('[POL-19][CLS-17] a non-provider code, an unknown key or action, and a mix with version 1 are errors', () => {
    expect(issuesOf({ context_length_exceeded: 'try_next' })[0]!.message).toContain(
      'is not a provider error',
    );
    expect(issuesOf({ on_provider_error: 'retry_forever' })[0]!.message).toContain(
      '"retry_same", "try_next" or "stop"',
    );
    expect(issuesOf({ version: 1, transient: skip, hard: skip, on_provider_error: 'stop' })).toEqual([
      {
        path: '/on_provider_error',
        message: 'legacy rule "on_provider_error" cannot be mixed with a version 1 document',
      },
    ]);
    expect(issuesOf({ on_provider_error: 'stop', teapot: 'stop' })[0]!.path).toBe('/teapot');
  });
  it('[POL-21] only the normalized document is returned', () => {
    const normalized = accepted({ on_provider_error: 'try_next', rate_limited: 'retry_same' });
    expect(Object.keys(normalized).sort()).toEqual(['hard', 'transient', 'version']);
    expect(accepted(normalized)).toEqual(normalized);
  });
});

describe('[POL-01][API-01] dynamic profiles', () => {
  const profile = {
    id: 'p-1',
    name: 'Claude, then Codex',
    version: 3,
    candidates: [
      { profile_id: 'claude-sonnet', enabled: true, policy: retrying(3) },
      { profile_id: 'codex-gpt5', enabled: true, policy: { on_provider_error: 'stop' } },
      { profile_id: 'gemini-pro', enabled: false },
    ],
  };
  it('normalizes every candidate policy (v1, legacy, or absent for the default)', () => {
    const r = validateDynamicProfile(profile);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.candidates.map((c) => c.policy.version)).toEqual([1, 1, 1]);
    expect(r.value.candidates[2]!.policy).toEqual(defaultPolicyDocument);
    expect(dynamicProfileSchema.parse(profile)).toEqual(r.value);
  });
  it('addresses problems inside candidates', () => {
    const bad = {
      ...profile,
      candidates: [
        profile.candidates[0],
        { profile_id: 'claude-sonnet', enabled: 'no', policy: retrying(99) },
      ],
    };
    const r = validateDynamicProfile(bad);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path)).toEqual([
      '/candidates/1/profile_id',
      '/candidates/1/enabled',
      '/candidates/1/policy/transient/retry/max_retries',
    ]);
  });
  it('[POL-11] a name holding a NUL character is a field error: PostgreSQL cannot store it, so neither backend saves it', () => {
    const r = validateDynamicProfile({ ...profile, name: 'Fle\u0000et' });
    expect(r.ok ? [] : r.issues).toEqual([
      {
        path: '/name',
        message: 'name must not contain the NUL character (U+0000): PostgreSQL cannot store it',
      },
    ]);
    expect(dynamicProfileSchema.safeParse({ ...profile, name: 'Fle\u0000et' }).success).toBe(false);
  });
  it('[POL-11] a profile whose candidates are all disabled is a field error at /candidates, reported with the rest', () => {
    const r = validateDynamicProfile({
      ...profile,
      name: '',
      candidates: [
        { profile_id: 'a', enabled: false },
        { profile_id: 'b', enabled: false, policy: retrying(99) },
      ],
    });
    expect(r.ok ? [] : r.issues).toEqual([
      { path: '/name', message: 'name must be a non-empty string of at most 200 characters (got "")' },
      {
        path: '/candidates/1/policy/transient/retry/max_retries',
        message: expect.stringContaining('from 1 to 10') as string,
      },
      { path: '/candidates', message: 'at least one candidate must be enabled (all 2 are disabled)' },
    ]);
    const nested = validateDynamicProfile(
      { ...profile, candidates: [{ profile_id: 'a', enabled: false }] },
      '/profile',
    );
    expect(nested.ok ? [] : nested.issues.map((i) => i.path)).toEqual(['/profile/candidates']);
    expect(
      dynamicProfileSchema.safeParse({ ...profile, candidates: [{ profile_id: 'a', enabled: false }] })
        .success,
    ).toBe(false);
  });
  it('[POL-11] one enabled candidate is enough; an absent enabled counts as enabled; a bad one is reported alone', () => {
    const disabled = { profile_id: 'a', enabled: false };
    expect(validateDynamicProfile({ ...profile, candidates: [disabled, { profile_id: 'b' }] }).ok).toBe(true);
    const bad = validateDynamicProfile({
      ...profile,
      candidates: [disabled, { profile_id: 'b', enabled: 'no' }],
    });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path)).toEqual(['/candidates/1/enabled']);
  });
  it('rejects a profile without candidates, with too many, or with bad fields', () => {
    const r = validateDynamicProfile({ id: '', name: ' ', version: 0, candidates: [], colour: 'blue' });
    expect(r.ok ? [] : r.issues.map((i) => i.path)).toEqual([
      '/colour',
      '/id',
      '/name',
      '/version',
      '/candidates',
    ]);
  });
});

describe('messages never carry terminal controls', () => {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  const rawControl = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  it('a bad key or value with bidi isolates, overrides and ESC is echoed without any of them raw', () => {
    const key = 'x\u2066\u202e\u001b[31m\u0007\u061c';
    const issues = issuesOf({ version: 1, transient: skip, hard: { ...skip, on_exhausted: key }, [key]: 1 });
    expect(issues.map((i) => i.path)).toEqual([`/${key}`, '/hard/on_exhausted']);
    for (const { message } of issues) {
      expect(message).not.toMatch(rawControl);
      // Every control, invisible and bidi character is written out as an escape: the echo shows what was refused.
      expect(message).toContain(String.raw`"x\u2066\u202e\u001b[31m\u0007\u061c"`);
    }
  });
});
