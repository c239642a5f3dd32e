import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BufferedOutput } from '../../src/cli/buffered-output.js';

/**
 * A stream that keeps every chunk it is given (as a slow pipe's queue does, by reference) and reports itself
 * full after each one, so every write waits for a drain.
 */
function queueingStream() {
  const held: Array<Buffer | string> = [];
  const stream = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer | string, _encoding, done) {
      held.push(chunk);
      setImmediate(done);
    },
  });
  const text = () => held.map((c) => (typeof c === 'string' ? c : c.toString('utf8'))).join('');
  return { stream, held, text };
}

describe('BufferedOutput', () => {
  it('writes what was added, in order, as UTF-8, lines of every width and script alike', async () => {
    const { stream, text } = queueingStream();
    const out = new BufferedOutput(stream);
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `${i} ${'ü日😀\u202e'.repeat(i % 40)} ${'x'.repeat((i * 37) % 500)}\n`,
    );
    for (const line of lines) {
      out.add(line);
      if (out.full) await out.flush();
    }
    await out.flush();
    expect(text()).toBe(lines.join(''));
  });

  it('keeps a text longer than one buffer whole, between what came before and after it', async () => {
    const { stream, text } = queueingStream();
    const out = new BufferedOutput(stream);
    const long = `${'é'.repeat(100_000)}\n`;
    out.add('before\n');
    out.add(long);
    out.add('after\n');
    await out.flush();
    expect(text()).toBe(`before\n${long}after\n`);
  });

  it('never writes again into bytes it has handed to the stream (a queued chunk keeps its text)', async () => {
    const { stream, held } = queueingStream();
    const out = new BufferedOutput(stream);
    const snapshots: string[] = [];
    for (let batch = 0; batch < 50; batch++) {
      // Short batches (a line at a time, as from standard input) and long ones (past one buffer) in turn.
      const lines = batch % 2 === 0 ? 1 : 400;
      for (let i = 0; i < lines; i++) out.add(`batch ${batch} line ${i} ${'y'.repeat(200)}\n`);
      const before = held.length;
      await out.flush();
      for (const chunk of held.slice(before)) snapshots.push(chunk.toString());
    }
    expect(held.map((c) => c.toString())).toEqual(snapshots);
  });

  it('writes nothing for nothing added', async () => {
    const { stream, held } = queueingStream();
    const out = new BufferedOutput(stream);
    await out.flush();
    expect(out.full).toBe(false);
    expect(held).toEqual([]);
  });
});
