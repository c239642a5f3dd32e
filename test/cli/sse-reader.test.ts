import { describe, expect, it } from 'vitest';
import { readSse } from '../../src/cli/sse-reader.js';

/** A body that arrives in exactly these chunks, to cut lines (and CRLF pairs) where a network might. */
function body(chunks: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(chunks: readonly string[]) {
  const events = [];
  for await (const event of readSse(body(chunks))) events.push(event);
  return events;
}

describe('readSse', () => {
  it('reads id, event and data; skips comments; joins data lines; keeps the last id for events without one', async () => {
    expect(
      await all([
        'retry: 2000\n: resumable from id 4\n\n',
        'id: 5\nevent: route.transition\ndata: {"a":1}\n\n',
        'event: heartbeat\ndata: {}\n\n',
        'data: one\ndata:two\n\n',
      ]),
    ).toEqual([
      { type: 'route.transition', data: '{"a":1}', lastEventId: '5' },
      { type: 'heartbeat', data: '{}', lastEventId: '5' },
      { type: 'message', data: 'one\ntwo', lastEventId: '5' },
    ]);
  });

  it('handles CRLF and CR line ends, a CRLF split across chunks, and multi-byte characters split across chunks', async () => {
    const euro = new TextEncoder().encode('€');
    const split = new ReadableStream<Uint8Array>({
      start(controller) {
        const e = new TextEncoder();
        controller.enqueue(e.encode('id: 1\r'));
        controller.enqueue(e.encode('\ndata: '));
        controller.enqueue(euro.slice(0, 1));
        controller.enqueue(euro.slice(1));
        controller.enqueue(e.encode('\r\n\r\nid: 2\rdata: x\r\r'));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readSse(split)) events.push(event);
    expect(events).toEqual([
      { type: 'message', data: '€', lastEventId: '1' },
      { type: 'message', data: 'x', lastEventId: '2' },
    ]);
  });

  it('drops an event the stream ends before finishing', async () => {
    expect(await all(['id: 1\ndata: done\n\n', 'id: 2\ndata: cut'])).toEqual([
      { type: 'message', data: 'done', lastEventId: '1' },
    ]);
  });
});
