import { describe, expect, it } from 'vitest';
import { PromptTurn } from '../../src/acp/prompt-turn.js';
import type { ReplayEvent } from '../../src/core/index.js';

// The worker alone (no process): what the prompt barrier relies on, checked where ordering is deterministic.

const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const key = { sessionId: 'route-1', executionId: 'intent-1', promptGeneration: 1 };

describe('prompt-turn worker', () => {
  it('[CUR-02][CUR-17] updates are applied in the order queued, and the judge runs only after every update queued before it', async () => {
    const seen: string[] = [];
    const recorded: ReplayEvent[] = [];
    const turn = new PromptTurn(
      'cursor-acp',
      (update) => seen.push((update.content as { text: string }).text),
      (event) => recorded.push(event),
    );
    await turn.begin(key, 'native-1');
    for (let i = 0; i < 100; i++) turn.enqueue(1, chunk(`c${i}`));
    turn.enqueue(1, chunk('Error: RetriableError: Connection stalled'));
    // Not awaited in between: the judge is queued behind the updates on the evidence mutex.
    const judged = turn.examine((projection, replay) => ({
      pending: projection?.pending,
      outputs: replay?.counts.assistant_output,
    }));
    expect(seen).toEqual([]);
    expect(await judged).toEqual({ pending: true, outputs: 100 });
    expect(seen).toHaveLength(101);
    expect(seen[0]).toBe('c0');
    expect(recorded).toHaveLength(100);
  });

  it('[CUR-11] the marker is set under the evidence mutex: while another holder has it, no update is applied', async () => {
    let applied = 0;
    const turn = new PromptTurn(
      'cursor-acp',
      () => (applied += 1),
      () => undefined,
    );
    await turn.begin(key, 'native-1');
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const held = turn.mutex.run(() => {
      entered();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await inside;
    turn.enqueue(1, chunk('Error: RetriableError: [unavailable] PING timed out'));
    const judged = turn.examine((projection) => projection?.pending);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(applied).toBe(0);
    release();
    await held;
    expect(await judged).toBe(true);
    expect(applied).toBe(1);
  });

  it('[SAF-10] updates stamped with another generation (stale, or history replayed by session/load) count for nothing', async () => {
    const infos: number[] = [];
    const turn = new PromptTurn(
      'cursor-acp',
      (_update, info) => infos.push(info.generation),
      () => undefined,
    );
    await turn.begin({ ...key, promptGeneration: 2 }, 'native-1');
    turn.enqueue(0, chunk('history'));
    turn.enqueue(1, { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read File', kind: 'read' });
    turn.enqueue(2, chunk('fresh'));
    const counts = await turn.examine((_projection, replay) => replay?.counts);
    expect(counts).toMatchObject({ assistant_output: 1, tool_call: 0 });
    expect(infos).toEqual([0, 1, 2]);
  });
});
