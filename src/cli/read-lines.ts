import { constants, fstatSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { escapeControlCharacters } from '../core/text/escape-controls.js';

/** An input ready to read, or one line saying why not: the path (escaped) and the reason in words. */
export type Input =
  | { readonly ok: true; readonly stream: Readable; readonly name: string }
  | { readonly ok: false; readonly message: string };

/** What a path is, without opening it; `unreadable` carries the system's reason. */
export type PathKind = 'file' | 'missing' | 'directory' | 'other' | { readonly unreadable: string };

/** How a message names FILE: `standard input` for `-`, else the path with its control characters escaped. */
export function nameOf(file: string): string {
  return file === '-' ? 'standard input' : escapeControlCharacters(file);
}

/** The reason a call failed, one escaped line without the path it repeats: `EIO: i/o error, read`. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return escapeControlCharacters(String(error));
  const { path } = error as NodeJS.ErrnoException;
  return escapeControlCharacters(
    typeof path === 'string' ? error.message.replace(` '${path}'`, '') : error.message,
  );
}

/** Stats FILE (following symbolic links) and says what it is. */
export async function inspectPath(file: string): Promise<PathKind> {
  try {
    const info = await stat(file);
    return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : { unreadable: reasonOf(error) };
  }
}

/**
 * Opens FILE for reading, or standard input for `-`. FILE must be a regular file: a missing path, a directory
 * and anything else (a FIFO, a device, a socket) are refused from `stat` before it is opened, so a FIFO never
 * blocks the process waiting for a writer.
 */
export async function openInput(file: string): Promise<Input> {
  const name = nameOf(file);
  if (file === '-') {
    // A directory redirected to standard input (`< folder`) reads as empty in Node: say what it is instead.
    return stdinIsDirectory() ? refused(`${name} is a directory`) : { ok: true, stream: process.stdin, name };
  }
  if (file === '') return refused('the file name is empty (use - for standard input)');
  const kind = await inspectPath(file);
  if (kind !== 'file') return refused(refusal(name, kind));
  try {
    // O_NONBLOCK: should the path become a FIFO after the check, opening it still returns at once (and the
    // second check refuses it); on a regular file the flag changes nothing.
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      return refused(refusal(name, 'other'));
    }
    // 1 MiB reads: a batch of lines (and one output write) per MiB rather than per 64 KiB.
    return { ok: true, stream: handle.createReadStream({ highWaterMark: 1024 * 1024 }), name };
  } catch (error) {
    return refused(`${name} cannot be read: ${reasonOf(error)}`);
  }
}

function refusal(name: string, kind: Exclude<PathKind, 'file'>): string {
  if (kind === 'missing') return `${name} does not exist`;
  if (kind === 'directory') return `${name} is a directory`;
  if (kind === 'other') return `${name} is not a regular file (use - for standard input)`;
  return `${name} cannot be read: ${kind.unreadable}`;
}

function refused(message: string): Input {
  return { ok: false, message };
}

function stdinIsDirectory(): boolean {
  try {
    return fstatSync(0).isDirectory();
  } catch {
    return false;
  }
}

/** Lines longer than this are reported, not held in memory (an envelope's fields are bounded far below it). */
export const maxLineBytes = 16 * 1024 * 1024;

/**
 * One line of input: its text, or (too long) its length, or the read error that ended the input.
 * Line numbers are 1-based.
 */
export type NumberedLine =
  | { readonly kind: 'line'; readonly line: number; readonly text: string }
  | { readonly kind: 'too_long'; readonly line: number; readonly bytes: number }
  | { readonly kind: 'unreadable'; readonly reason: string };

/**
 * Splits input into lines at `\n` (a `\r` before it is dropped; a last line without `\n` counts), decoding
 * UTF-8, and yields them in batches: every line a chunk of input completes, so a caller pays one promise per
 * chunk (1 MiB from a file), not per line. A byte-order mark on the first line is dropped. A line longer than
 * `maxBytes` is skipped as it streams past and reported as `too_long`, so one huge line cannot exhaust memory.
 * A read error ends the lines with `unreadable`, after the lines before it.
 */
export async function* numberedLineBatches(
  input: AsyncIterable<unknown>,
  maxBytes = maxLineBytes,
): AsyncGenerator<readonly NumberedLine[]> {
  let parts: Buffer[] = [];
  let bytes = 0;
  let pending = false;
  let line = 0;
  const take = (piece: Buffer) => {
    pending = true;
    if (bytes + piece.length > maxBytes) parts = [];
    else if (piece.length > 0) parts.push(piece);
    bytes += piece.length;
  };
  const finish = (): NumberedLine => {
    line++;
    const result: NumberedLine =
      bytes > maxBytes
        ? { kind: 'too_long', line, bytes }
        : { kind: 'line', line, text: decode(parts, line) };
    parts = [];
    bytes = 0;
    pending = false;
    return result;
  };
  try {
    for await (const chunk of input) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      const batch: NumberedLine[] = [];
      let start = 0;
      for (let end = buffer.indexOf(10); end !== -1; end = buffer.indexOf(10, start)) {
        if (parts.length === 0 && bytes === 0) {
          // The common case, a line within one chunk: decode it in place, no copy.
          pending = true;
          bytes = end - start;
          if (bytes > maxBytes) batch.push(finish());
          else {
            line++;
            batch.push({ kind: 'line', line, text: decodeOne(buffer, start, end, line) });
            bytes = 0;
            pending = false;
          }
        } else {
          take(buffer.subarray(start, end));
          batch.push(finish());
        }
        start = end + 1;
      }
      if (start < buffer.length) take(buffer.subarray(start));
      if (batch.length > 0) yield batch;
    }
  } catch (error) {
    yield [{ kind: 'unreadable', reason: reasonOf(error) }];
    return;
  }
  if (pending) yield [finish()];
}

function decode(parts: Buffer[], line: number): string {
  return trimLine(Buffer.concat(parts).toString('utf8'), line);
}

function decodeOne(buffer: Buffer, start: number, end: number, line: number): string {
  return trimLine(buffer.toString('utf8', start, end), line);
}

function trimLine(text: string, line: number): string {
  const unreturned = text.endsWith('\r') ? text.slice(0, -1) : text;
  return line === 1 && unreturned.startsWith('\uFEFF') ? unreturned.slice(1) : unreturned;
}

/** Writes a chunk and waits for the stream to drain when its buffer is full. */
export async function writeOut(stream: NodeJS.WritableStream, chunk: string | Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
}
