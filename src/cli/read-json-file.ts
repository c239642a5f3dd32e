import { readFile, stat } from 'node:fs/promises';

/** Policy and scenario files are small; a larger file is refused before it is read. */
const maxJsonBytes = 1024 * 1024;

export type JsonFileResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** Reads and parses one JSON file (or standard input for `-`), reporting unreadable or malformed input in words. */
export async function readJsonFile(file: string): Promise<JsonFileResult> {
  let text: string;
  try {
    if (file === '-') {
      text = await readStdin();
    } else {
      const info = await stat(file);
      if (!info.isFile()) return { ok: false, message: `${file} is not a file` };
      if (info.size > maxJsonBytes)
        return { ok: false, message: `${file} is ${info.size} bytes; at most ${maxJsonBytes} are read` };
      text = await readFile(file, 'utf8');
    }
  } catch (error) {
    return { ok: false, message: `cannot read ${file}: ${(error as Error).message}` };
  }
  if (text.length > maxJsonBytes) return { ok: false, message: `input is larger than ${maxJsonBytes} bytes` };
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown };
  } catch (error) {
    return {
      ok: false,
      message: `malformed JSON in ${file === '-' ? 'standard input' : file}: ${(error as Error).message}`,
    };
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxJsonBytes) throw new Error(`standard input is larger than ${maxJsonBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
