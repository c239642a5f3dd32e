/**
 * Terminal escape sequences: CSI (`ESC [` parameters, intermediates, a final byte: colours `\x1b[31m`,
 * `\x1b[0;1m`, cursor moves), OSC (`ESC ]` up to BEL or `ESC \`: titles, hyperlinks), a character-set selection
 * (`ESC ( B`) and the other two-character escapes. Every part is bounded, so the scan is linear.
 */
const terminalCode =
  // eslint-disable-next-line no-control-regex -- finding escape sequences is the point
  /\u001b(?:\[[0-?]{0,64}[ -/]{0,8}[@-~]|\][^\u0007\u001b]{0,2048}(?:\u0007|\u001b\\)|[()*+#][ -~]|[0-~])/g;

/**
 * `text` without its terminal colour and control sequences, so `\x1b[31mError: 529 Overloaded\x1b[0m` reads as
 * `Error: 529 Overloaded`. Text without ESC is returned as is (one native scan).
 */
export function stripTerminalCodes(text: string): string {
  return text.includes('\u001b') ? text.replace(terminalCode, '') : text;
}

/**
 * Maps an offset in `stripTerminalCodes(text).toLowerCase()` (what rules match) back to the same character in
 * `text`. Only matching reads the
 * stripped text: the excerpt is cut from the original and sanitized there, because a malformed sequence can
 * swallow a character (`\x1b[ a` eats the `a` of `arn:`) and hide a secret's context from the redactor.
 */
export function unstrippedOffset(text: string, offset: number): number {
  offset = beforeLowerCasing(text, offset);
  if (!text.includes('\u001b')) return offset;
  let removed = 0;
  for (const m of text.matchAll(terminalCode)) {
    if (m.index - removed > offset) break;
    removed += m[0].length;
  }
  return offset + removed;
}

/**
 * An offset in the lower-cased text as an offset before lower-casing: one character grows when lower-cased, `İ`
 * (U+0130, to `i` and a combining dot), so each before the offset shifts it by one. Escape sequences hold no `İ`.
 */
function beforeLowerCasing(text: string, offset: number): number {
  if (!text.includes('\u0130')) return offset;
  const stripped = stripTerminalCodes(text);
  let lowered = 0;
  let at = 0;
  while (at < stripped.length && lowered < offset) {
    lowered += stripped.charCodeAt(at) === 0x130 ? 2 : 1;
    at++;
  }
  return at;
}
