/**
 * Characters a terminal acts on rather than shows: C0 controls (ESC, CR, BEL, NUL, ...), DEL, C1 controls, the
 * Unicode bidi controls (marks U+061C, U+200E, U+200F; embeddings and overrides U+202A-U+202E; isolates
 * U+2066-U+2069), the line and paragraph separators, and lone surrogates.
 */
const terminalUnsafe =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const named: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function hex(unit: number, width: number): string {
  return unit.toString(16).padStart(width, '0');
}

/**
 * Text for a terminal line: every terminal-unsafe character is shown escaped (`\t`, `\n`, `\r`, `\x1b` up to
 * U+00FF, `\u202e` above), so input can neither move the cursor, recolour, reorder nor split the line.
 * Everything else is unchanged.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(terminalUnsafe, (c) => {
    const unit = c.charCodeAt(0);
    return named[c] ?? (unit <= 0xff ? `\\x${hex(unit, 2)}` : `\\u${hex(unit, 4)}`);
  });
}

/** What `JSON.stringify` leaves raw of the set above: it escapes C0 controls and lone surrogates itself. */
const rawInJson = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (from `JSON.stringify`, indented or not) with the terminal-unsafe characters it leaves raw (DEL, C1,
 * bidi controls, separators) written as `\uXXXX` escapes: the same JSON value, safe to print. They can only
 * occur inside strings, so the structure never changes.
 */
export function escapeControlsInJson(json: string): string {
  return json.replace(rawInJson, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}
