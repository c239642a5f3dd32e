/**
 * UTF-8 measurements on JavaScript strings. `TextEncoder.encodeInto` (a pure, synchronous standard API)
 * measures and cuts natively into a reused scratch buffer; it never splits a code point and counts a lone
 * surrogate as the 3-byte replacement character.
 */
const encoder = new TextEncoder();
const maxScratchBytes = 256 * 1024;
let scratch = new Uint8Array(0);

function scratchOf(bytes: number): Uint8Array | null {
  if (bytes > maxScratchBytes) return null;
  if (scratch.length < bytes) scratch = new Uint8Array(Math.max(bytes, 64 * 1024 + 16));
  return scratch.subarray(0, bytes);
}

/** The UTF-8 length of `text` in bytes. */
export function utf8ByteLength(text: string): number {
  const buffer = scratchOf(text.length * 3);
  if (buffer !== null) return encoder.encodeInto(text, buffer).written;
  let bytes = 0;
  for (let i = 0; i < text.length; i += 32 * 1024) bytes += utf8ByteLength(text.slice(i, i + 32 * 1024));
  return bytes;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a code point.
 * Returns the input itself when it already fits.
 */
export function cutUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const buffer = scratchOf(maxBytes);
  if (buffer === null) return cutUtf8(text.slice(0, maxBytes), maxBytes);
  const { read } = encoder.encodeInto(text, buffer);
  return read >= text.length ? text : text.slice(0, read);
}

/** The longest suffix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a code point. */
export function cutUtf8Tail(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  // Measure from the end: at most `maxBytes` units can fit, so only that tail needs encoding.
  let start = Math.max(0, text.length - maxBytes);
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  let tail = text.slice(start);
  while (utf8ByteLength(tail) > maxBytes) {
    const excess = utf8ByteLength(tail) - maxBytes;
    let drop = Math.max(1, Math.floor(excess / 3));
    if (isLowSurrogate(tail.charCodeAt(drop))) drop++;
    tail = tail.slice(drop);
  }
  return tail;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
