import { openInput, reasonOf } from './read-lines.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';

/** Policy and scenario files are small; reading stops past this many bytes. */
const maxJsonBytes = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type JsonFileResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/**
 * Reads and parses one JSON file (or standard input for `-`). A path that is missing, a directory or not a
 * regular file, a read error, an empty, oversized, malformed or not UTF-8 input are each one line in words, naming the
 * input with its control characters escaped.
 */
export async function readJsonFile(file: string): Promise<JsonFileResult> {
  const input = await openInput(file);
  if (!input.ok) return input;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of input.stream) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxJsonBytes) {
        input.stream.destroy();
        return { ok: false, message: `${input.name} is too large: at most ${maxJsonBytes} bytes are read` };
      }
      chunks.push(buffer);
    }
  } catch (error) {
    return { ok: false, message: `${input.name} cannot be read: ${reasonOf(error)}` };
  }
  let text: string;
  try {
    // Fatal: JSON is UTF-8 (RFC 8259), and a lenient decoder would turn a Latin-1 é in a path or an id into U+FFFD
    // without a word.
    text = utf8.decode(Buffer.concat(chunks)).replace(/^\uFEFF/, '');
  } catch {
    return { ok: false, message: `${input.name} is not UTF-8 text (JSON must be)` };
  }
  if (text.trim() === '') return { ok: false, message: `${input.name} is empty` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // The parser quotes the input near the error: escaped like the rest of the line.
    return {
      ok: false,
      message: `malformed JSON in ${input.name}: ${escapeControlCharacters((error as Error).message)}`,
    };
  }
}
