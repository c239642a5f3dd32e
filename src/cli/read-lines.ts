import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Opens FILE, or standard input for `-` or no file. Rejects with a readable message when FILE cannot be read. */
export async function openInput(file: string | undefined): Promise<Readable> {
  if (file === undefined || file === '-') return process.stdin;
  const stream = createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  return stream;
}

/** Yields each line with its 1-based number; a byte-order mark on the first line is dropped. */
export async function* numberedLines(input: Readable): AsyncGenerator<{ line: number; text: string }> {
  const reader = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of reader) {
    line++;
    yield { line, text: line === 1 && text.startsWith('\uFEFF') ? text.slice(1) : text };
  }
}

/** Writes a chunk and waits for the stream to drain when its buffer is full. */
export async function writeOut(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
}
