/** One Server-Sent Event: its type (`message` when none is named), its data and the last event id seen. */
export interface SseEvent {
  readonly type: string;
  readonly data: string;
  /** The stream's last event id when the event was dispatched (an event without `id:` keeps the previous one). */
  readonly lastEventId: string | null;
}

/**
 * The events of a `text/event-stream` body, parsed as the HTML standard's event stream interpretation does: lines
 * end in CRLF, LF or CR; `:` starts a comment; `data:` lines join with newlines; a blank line dispatches (an event
 * without data is dropped, its `id:` kept); `retry:` is left to the caller's own backoff.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let pending = '';
  let type = '';
  let data: string[] = [];
  let lastEventId: string | null = null;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR at the very end may be the first half of a CRLF split across chunks: wait for the next one.
      const cut = done ? pending.length : pending.endsWith('\r') ? pending.length - 1 : pending.length;
      const lines = pending.slice(0, cut).split(/\r\n|\r|\n/);
      pending = (lines.pop() ?? '') + pending.slice(cut);
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield { type: type || 'message', data: data.join('\n'), lastEventId };
          type = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') type = value;
        else if (field === 'id' && !value.includes('\0')) lastEventId = value;
      }
      // An event not ended by a blank line when the stream ends is incomplete: it is dropped, as the standard says.
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
