/** UTF-8 measurements on JavaScript strings, without encoders or allocation of byte buffers. */

/** Bytes one UTF-16 code unit contributes; a surrogate pair counts 4 for the pair (2 + 2). */
function unitBytes(unit: number): number {
  if (unit < 0x80) return 1;
  if (unit < 0x800) return 2;
  if (unit >= 0xd800 && unit <= 0xdfff) return 2;
  return 3;
}

/** The UTF-8 length of `text` in bytes (a lone surrogate counts as the 3-byte replacement character). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else {
      bytes += unit >= 0xd800 && unit <= 0xdfff ? 3 : unitBytes(unit);
    }
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a code point.
 * Returns the input itself when it already fits.
 */
export function cutUtf8(text: string, maxBytes: number): string {
  // Fast path: every code unit is at most 3 bytes.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    let width: number;
    let units = 1;
    if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      width = 4;
      units = 2;
    } else {
      width = unit >= 0xd800 && unit <= 0xdfff ? 3 : unitBytes(unit);
    }
    if (bytes + width > maxBytes) return text.slice(0, i);
    bytes += width;
    i += units - 1;
  }
  return text;
}

/** The longest suffix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a code point. */
export function cutUtf8Tail(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const unit = text.charCodeAt(i);
    let width: number;
    let start = i;
    if (isLowSurrogate(unit) && i > 0) {
      const high = text.charCodeAt(i - 1);
      if (high >= 0xd800 && high <= 0xdbff) {
        width = 4;
        start = i - 1;
      } else {
        width = 3;
      }
    } else {
      width = unit >= 0xd800 && unit <= 0xdfff ? 3 : unitBytes(unit);
    }
    if (bytes + width > maxBytes) return text.slice(i + 1);
    bytes += width;
    i = start;
  }
  return text;
}
