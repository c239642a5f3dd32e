import { describe, expect, it } from 'vitest';
import { AckDispatcher } from '../../src/server/ack-dispatcher.js';
import type { DispatchIntent } from '../../src/core/index.js';

const intent = (id: string): DispatchIntent =>
  ({
    id,
    routeId: 'route-1',
    generation: 1,
    candidate: 'a',
    kind: 'retry',
    createdAtMs: 0,
  }) as unknown as DispatchIntent;

/** A dispatcher whose webhook only records which intents it was handed. */
function recordingDispatcher(ackTimeoutMs: number) {
  const delivered: string[] = [];
  const dispatcher = new AckDispatcher({
    deliver: (i) => Promise.resolve(void delivered.push(i.id)),
    ackTimeoutMs,
  });
  return { dispatcher, delivered };
}

describe('[DUR-06] the server dispatcher hands each intent over once', () => {
  it('an intent answered before it was handed over (the event stream was faster) is not delivered', async () => {
    const { dispatcher, delivered } = recordingDispatcher(1_000);
    const controller = new AbortController();
    controller.abort();
    await expect(dispatcher.dispatch(intent('d-1'), null, { signal: controller.signal })).rejects.toThrow(
      /answered/,
    );
    expect(delivered).toEqual([]);
  });

  it('an intent still waiting is delivered once, and an answer recorded elsewhere ends its wait', async () => {
    const { dispatcher, delivered } = recordingDispatcher(60_000);
    const controller = new AbortController();
    const waiting = dispatcher.dispatch(intent('d-2'), null, { signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    expect(delivered).toEqual(['d-2']);
    controller.abort();
    await expect(waiting).rejects.toThrow(/answered/);
    expect(delivered).toEqual(['d-2']);
  });
});
