/** One Server-Sent Event as a client parses it. */
export interface SseEvent {
  readonly id: string | null;
  readonly event: string;
  readonly data: string;
}

/**
 * A client of `/v1/events` over fetch: collects events as they arrive until `close()`. Parses the wire format
 * itself (id, event, data lines, a blank line ends an event), as a browser's EventSource does.
 */
export function followEvents(
  url: string,
  headers: Record<string, string>,
): {
  readonly events: SseEvent[];
  readonly ended: Promise<void>;
  close(): void;
  waitFor(test: (events: SseEvent[]) => boolean, ms?: number): Promise<void>;
} {
  const events: SseEvent[] = [];
  const controller = new AbortController();
  const waiters: (() => void)[] = [];
  const ended = (async () => {
    try {
      const response = await fetch(url, { headers, signal: controller.signal });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) events.push({ id, event, data: data.join('\n') });
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      for (const wake of waiters.splice(0)) wake();
    }
  })();
  return {
    events,
    ended,
    close: () => controller.abort(),
    async waitFor(test, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!test(events)) {
        if (Date.now() > deadline)
          throw new Error(`events did not arrive in time: ${JSON.stringify(events.map((e) => e.event))}`);
        await Promise.race([
          new Promise<void>((resolve) => waiters.push(resolve)),
          new Promise((r) => setTimeout(r, 100)),
        ]);
      }
    },
  };
}
