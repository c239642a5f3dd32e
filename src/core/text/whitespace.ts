/**
 * Unicode whitespace trimming. `String.prototype.trim` already removes every Unicode `White_Space` character
 * and the BOM; this module names that contract so the Cursor observer and the catalogue rule share it.
 */
export function trimUnicode(text: string): string {
  return text.trim();
}

/** C0/C1 controls, zero-width and bidi marks (embeddings, overrides, isolates), separators, lone surrogates. */
const invisible = new RegExp(
  '[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2028\\u2029\\u2060-\\u2069\\ufeff]' +
    '|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]',
  'g',
);

/** Removes control and invisible characters; tabs and line breaks first become single spaces. */
export function stripControlCharacters(text: string): string {
  return text.replace(/[\t\n\r\v\f]+/g, ' ').replace(invisible, '');
}
