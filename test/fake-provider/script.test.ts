import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { faultNames, readScript, StepCursor, type Script } from '../../src/fake-provider/script.js';

const examplesDir = new URL('../../examples/fake-provider/', import.meta.url);

const valid = (value: unknown): Script => {
  const result = readScript(value);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.script;
};
const issuesOf = (value: unknown) => {
  const result = readScript(value);
  return result.ok ? [] : result.issues.map((i) => i.path);
};

describe('fake provider script', () => {
  it('reads answers, tool calls and every fault, with defaults for times, retry_after and then', () => {
    const script = valid({
      steps: [
        { answer: 'hi', tool_call: { name: 'read_file', arguments: { path: 'a' } }, times: 2 },
        ...faultNames.map((fault) => ({ fault })),
        { fault: 'rate_limited', retry_after: 3 },
      ],
    });
    expect(script.steps[0]).toEqual({
      step: { kind: 'answer', text: 'hi', toolCall: { name: 'read_file', arguments: { path: 'a' } } },
      times: 2,
    });
    expect(script.steps[2]).toEqual({
      step: { kind: 'fault', fault: 'rate_limited', retryAfterSeconds: 17 },
      times: 1,
    });
    expect(script.steps.at(-1)?.step).toMatchObject({ retryAfterSeconds: 3 });
    expect(script.then).toEqual({ kind: 'answer', text: 'Done.', toolCall: null });
    expect(valid({ steps: [{ answer: '', tool_call: { name: 't' } }] }).steps[0]?.step).toMatchObject({
      toolCall: { name: 't', arguments: {} },
    });
  });

  it('reports every problem at its JSON pointer', () => {
    expect(issuesOf([])).toEqual(['']);
    expect(issuesOf({ steps: {}, extra: 1 })).toEqual(['/extra', '/steps']);
    expect(
      issuesOf({
        steps: [
          { fault: 'melted' },
          { answer: 3 },
          { answer: 'x', fault: 'hang' },
          {},
          { answer: 'x', times: 0 },
          { answer: 'x', tool_call: { name: '', arguments: [], extra: true } },
          { fault: 'overloaded', retry_after: 5 },
          { fault: 'rate_limited', retry_after: -1 },
          { answer: 'x', retry_after: 5 },
          'answer',
        ],
        then: { answer: 'x', times: 2 },
      }),
    ).toEqual([
      '/steps/0/fault',
      '/steps/1/answer',
      '/steps/2',
      '/steps/3',
      '/steps/4/times',
      '/steps/5/tool_call/extra',
      '/steps/5/tool_call/name',
      '/steps/5/tool_call/arguments',
      '/steps/6/retry_after',
      '/steps/7/retry_after',
      '/steps/8/retry_after',
      '/steps/9',
      '/then/times',
    ]);
    const result = readScript({ steps: [{ fault: 'melted' }] });
    expect(!result.ok && result.issues[0]?.message).toMatch(
      /fault must be one of overloaded, rate_limited, .*hang \(got "melted"\)/,
    );
  });

  it('never echoes a secret pasted into a script', () => {
    const result = readScript({
      steps: [{ answer: 'x', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789': 1 }],
    });
    expect(JSON.stringify(result)).not.toContain('abcdefghijklmnop');
  });

  it('serves steps in order, each times requests, then `then` for ever', () => {
    const cursor = new StepCursor(
      valid({ steps: [{ answer: 'a', times: 2 }, { fault: 'hang' }], then: { fault: 'unavailable' } }),
    );
    const served = Array.from({ length: 5 }, () => cursor.next());
    expect(served.map((s) => [s.from, s.step.kind === 'answer' ? s.step.text : s.step.fault])).toEqual([
      ['steps/0', 'a'],
      ['steps/0', 'a'],
      ['steps/1', 'hang'],
      ['then', 'unavailable'],
      ['then', 'unavailable'],
    ]);
    expect(served.map((s) => s.request)).toEqual([1, 2, 3, 4, 5]);
  });

  it('every example script is valid', () => {
    const files = readdirSync(examplesDir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files)
      expect(readScript(JSON.parse(readFileSync(new URL(file, examplesDir), 'utf8'))), file).toMatchObject({
        ok: true,
      });
  });
});
