import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawControls, runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const v1 = {
  version: 1,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'skip',
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: true, max_wait_seconds: 300 },
    on_exhausted: 'stop',
  },
};

describe('recourse policy validate', () => {
  it('[API-02][POL-21] exits 0 with the normalized document for v1 and legacy input', () => {
    const ok = runCli(['policy', 'validate', file('v1.json', v1)]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual(v1);
    const legacy = runCli([
      'policy',
      'validate',
      file('legacy.json', { on_provider_error: 'try_next', rate_limited: 'retry_same' }),
    ]);
    expect(legacy.status).toBe(0);
    expect(JSON.parse(legacy.stdout)).toMatchObject({
      version: 1,
      transient: { retry: { max_retries: 1, initial_interval_seconds: 5 }, on_exhausted: 'stop' },
      hard: { on_exhausted: 'skip' },
    });
  });

  it('[POL-11] exits 1 with every field-addressed error on stdout', () => {
    const r = runCli([
      'policy',
      'validate',
      file('bad.json', {
        ...v1,
        transient: {
          ...v1.transient,
          retry: { enabled: true, max_retries: 11, initial_interval_seconds: 5 },
        },
        version: 3,
      }),
    ]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      errors: [
        { path: '/version', message: 'version 3 is not supported (supported: 1)' },
        {
          path: '/transient/retry/max_retries',
          message:
            'max_retries must be an integer from 1 to 10 additional attempts when retry is enabled (got 11)',
        },
      ],
    });
  });

  it('accepts a dynamic profile and reads standard input', () => {
    const profile = {
      id: 'p',
      name: 'P',
      version: 1,
      candidates: [{ profile_id: 'a', enabled: true, policy: { on_provider_error: 'stop' } }],
    };
    const r = runCli(['policy', 'validate', '-'], JSON.stringify(profile));
    expect(r.status).toBe(0);
    expect(
      (JSON.parse(r.stdout) as { candidates: Array<{ policy: { transient: { on_exhausted: string } } }> })
        .candidates[0]!.policy.transient.on_exhausted,
    ).toBe('stop');
  });

  it('[POL-10][POL-11] exits 1 for a profile whose candidates are all disabled, with its other errors', () => {
    const profile = {
      id: 'p',
      name: 'P',
      version: 0,
      candidates: [
        { profile_id: 'a', enabled: false },
        { profile_id: 'b', enabled: false },
      ],
    };
    const r = runCli(['policy', 'validate', file('all-disabled.json', profile)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      errors: [
        { path: '/version', message: 'version must be a positive integer (got 0)' },
        { path: '/candidates', message: 'at least one candidate must be enabled (all 2 are disabled)' },
      ],
    });
    expect(runCli(['policy', 'preview', file('all-disabled.json', profile)]).status).toBe(1);
  });

  it('exits 2 for unreadable or malformed input, with a message', () => {
    const missing = runCli(['policy', 'validate', join(dir, 'nope.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(`recourse policy: ${join(dir, 'nope.json')} does not exist\n`);
    const malformed = runCli(['policy', 'validate', file('bad-json.json', '{"version": 1,')]);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain('malformed JSON');
    const huge = runCli(['policy', 'validate', file('huge.json', `{"x":"${'a'.repeat(1_100_000)}"}`)]);
    expect(huge.status).toBe(2);
    expect(huge.stderr).toContain('at most 1048576');
  });
});

describe('recourse policy: hostile input', () => {
  it('refuses standard input over 1 MiB without reading on, and answers deep nesting with a field error', () => {
    expect(runCli(['policy', 'validate', '-'], ' '.repeat(2_000_000))).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'recourse policy: standard input is too large: at most 1048576 bytes are read\n',
    });
    const deep = runCli(['policy', 'validate', '-'], `${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(deep).toMatchObject({ status: 1, stderr: '' });
    expect(JSON.parse(deep.stdout)).toMatchObject({ errors: [{ path: '' }] });
  });
});

describe('recourse policy: nothing from the input reaches the terminal raw', () => {
  const evil = '\u001b[2J\r\u0007\u202e\u2066\u009b';
  it('escapes bidi and C1 characters in the normalized profile and in field errors (JSON stays equal)', () => {
    const profile = { id: 'p', name: `P${evil}`, version: 1, candidates: [{ profile_id: 'a' }] };
    const ok = runCli(['policy', 'validate', file('evil-name.json', profile)]);
    expect(ok.status).toBe(0);
    expect(rawControls(ok.stdout)).toEqual([]);
    expect((JSON.parse(ok.stdout) as { name: string }).name).toBe(`P${evil}`);
    const bad = runCli(['policy', 'validate', file('evil-key.json', { ...v1, [`k${evil}`]: evil })]);
    expect(bad.status).toBe(1);
    expect(rawControls(bad.stdout)).toEqual([]);
    expect((JSON.parse(bad.stdout) as { errors: Array<{ path: string }> }).errors[0]!.path).toBe(`/k${evil}`);
  });

  it('escapes a file name and the parser quoting malformed input in the error line', () => {
    const r = runCli(['policy', 'validate', file(`bad${evil}.json`, `{"version": ${evil}`)]);
    expect(r.status).toBe(2);
    expect(rawControls(r.stderr)).toEqual([]);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(
      /^recourse policy: malformed JSON in .*bad\\x1b\[2J\\r\\x07\\u202e\\u2066\\x9b\.json: /,
    );
  });
});

describe('recourse policy preview', () => {
  it('[EVL-16][UI-05] prints the schedule per class as JSON, each delay doubling the one before', () => {
    const r = runCli(['policy', 'preview', file('preview.json', v1), '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      transient: { delays_seconds: [5, 10, 20], max_wait_seconds: 0, on_exhausted: 'skip' },
      hard: { delays_seconds: [], max_wait_seconds: 300, on_exhausted: 'stop' },
    });
  });

  it('prints a readable schedule, per candidate for a profile', () => {
    expect(runCli(['policy', 'preview', file('preview2.json', v1)]).stdout).toBe(
      'transient  retry after 5 s, 10 s, 20 s; no reset waiting; then skip\nhard       no retry; wait for a trusted reset up to 5 min (once per cycle); then stop\n',
    );
    const profile = {
      id: 'p',
      name: 'P',
      version: 1,
      candidates: [{ profile_id: 'a', enabled: false }, { profile_id: 'b' }],
    };
    const r = runCli(['policy', 'preview', file('profile.json', profile)]);
    expect(r.stdout).toContain('a (disabled)\n');
    expect(r.stdout).toContain('b\n');
  });

  it('exits 1 with the errors for an invalid document', () => {
    const r = runCli(['policy', 'preview', file('bad2.json', { version: 1 }), '--json']);
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual([
      '/transient',
      '/hard',
    ]);
  });
});

describe('recourse policy: warnings that do not fail', () => {
  const warning =
    "recourse policy: warning: /transient: retries run on their exact schedule (from 5 s): a provider's Retry-After or reset time will not delay them; enable wait_for_reset to honour a trusted reset\n";

  it('[EVL-16] validate warns on stderr that retries without reset waiting ignore provider hints; stdout and exit stay', () => {
    const r = runCli(['policy', 'validate', file('warn.json', v1)]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(warning);
    expect(JSON.parse(r.stdout)).toEqual(v1);
  });

  it('[EVL-16] preview warns the same way, per candidate path for a profile', () => {
    const r = runCli(['policy', 'preview', file('warn2.json', v1), '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(warning);
    const profile = {
      id: 'p',
      name: 'P',
      candidates: [
        { profile_id: 'a', policy: { on_provider_error: 'retry_same' } },
        { profile_id: 'c', policy: { on_provider_error: 'try_next' } },
        { profile_id: 'b', policy: v1 },
      ],
    };
    const p = runCli(['policy', 'preview', file('warn-profile.json', profile)]);
    expect(p.status).toBe(0);
    expect(
      p.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(': ')[2]),
    ).toEqual([
      '/candidates/0/policy/transient',
      '/candidates/0/policy/hard',
      '/candidates/2/policy/transient',
    ]);
  });

  it('is silent when every retrying class also waits for a trusted reset, or nothing retries', () => {
    const waits = {
      ...v1,
      transient: { ...v1.transient, wait_for_reset: { enabled: true, max_wait_seconds: 60 } },
    };
    const r = runCli(['policy', 'validate', file('quiet.json', waits)]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const stop = runCli(['policy', 'validate', file('quiet2.json', { on_provider_error: 'stop' })]);
    expect(stop.stderr).toBe('');
  });
});
