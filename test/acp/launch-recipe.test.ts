import { describe, expect, it } from 'vitest';
import { parseLaunchRecipe, resolveLaunchEnv } from '../../src/acp/index.js';
import { StderrTail } from '../../src/acp/stderr-tail.js';
import { repoRoot } from './acp-harness.js';

const minimal = { agent: 'claude', command: 'claude-agent-acp', cwd: repoRoot };

describe('launch recipe', () => {
  it('validates into a frozen recipe with defaults', () => {
    const parsed = parseLaunchRecipe({
      ...minimal,
      args: ['--acp'],
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1', ANTHROPIC_API_KEY: { from_env: 'MY_KEY' } },
      inherit_env: ['PATH'],
      permission: { allow: ['read', 'search'] },
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.recipe).toMatchObject({
      agent: 'claude',
      args: ['--acp'],
      allowToolKinds: ['read', 'search'],
      shutdownGraceMs: 2000,
      stderrTailBytes: 8192,
      authMethod: null,
    });
    expect(Object.isFrozen(parsed.recipe)).toBe(true);
  });

  it('names every bad field by its JSON pointer, without echoing a misplaced secret', () => {
    const parsed = parseLaunchRecipe({
      agent: '',
      command: 7,
      cwd: 'relative/dir',
      args: ['ok', 3],
      env: {
        'BAD-NAME': 'x',
        TOKEN: { value: 'sk-ant-api03-secretsecretsecret' },
        OTHER: { from_env: 'no way' },
      },
      inherit_env: ['PATH', 'not a name'],
      permission: { allow: ['read', 'teleport'], deny: [] },
      shutdown_grace_ms: -1,
      stderr_tail_bytes: 1.5,
      colour: 'red',
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.map((i) => i.path).sort()).toEqual(
      [
        '/agent',
        '/command',
        '/cwd',
        '/args/1',
        '/env/BAD-NAME',
        '/env/TOKEN',
        '/env/OTHER/from_env',
        '/inherit_env/1',
        '/permission/allow/1',
        '/permission/deny',
        '/shutdown_grace_ms',
        '/stderr_tail_bytes',
        '/colour',
      ].sort(),
    );
    expect(JSON.stringify(parsed.issues)).not.toContain('secretsecret');
  });

  it('[DAT-13] resolves from_env at launch; a missing variable is an error naming the key, never a value', () => {
    const parsed = parseLaunchRecipe({
      ...minimal,
      env: { PLAIN: 'x', API_KEY: { from_env: 'SOURCE_KEY' } },
      inherit_env: ['HOME', 'UNSET_ONE'],
    });
    if (!parsed.ok) throw new Error('recipe should validate');
    const resolved = resolveLaunchEnv(parsed.recipe, { SOURCE_KEY: 'sk-live-value', HOME: '/h', OTHER: 'o' });
    expect(resolved).toEqual({ ok: true, env: { HOME: '/h', PLAIN: 'x', API_KEY: 'sk-live-value' } });
    // The recipe itself never holds the value.
    expect(JSON.stringify(parsed.recipe)).not.toContain('sk-live-value');
    const missing = resolveLaunchEnv(parsed.recipe, { HOME: '/h' });
    expect(missing).toEqual({
      ok: false,
      issues: [
        {
          path: '/env/API_KEY/from_env',
          message: 'the variable SOURCE_KEY is not set in the environment that launches the agent',
        },
      ],
    });
  });
});

describe('managed stderr tail', () => {
  it('[EVD-01] keeps only the last bytes, in order, however much was written', () => {
    const tail = new StderrTail(16);
    tail.append(Buffer.from('0123456789'));
    expect(tail.text()).toBe('0123456789');
    const mark = tail.totalBytes;
    tail.append(Buffer.from('abcdefghij'));
    expect(tail.text()).toBe('456789abcdefghij');
    expect(tail.textSince(mark)).toBe('abcdefghij');
    tail.append(Buffer.from('x'.repeat(100) + 'END'));
    expect(tail.text()).toBe('x'.repeat(13) + 'END');
    expect(tail.totalBytes).toBe(123);
  });
});
