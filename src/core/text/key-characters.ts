/** Characters a credential can contain (`[A-Za-z0-9._~+/=*-]`); any other character is a safe place to cut text. */
const keyCharacters = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=*-')
  keyCharacters[c.charCodeAt(0)] = 1;

/** Whether the character code `code` can be part of a credential. */
export function isKeyCharacter(code: number): boolean {
  return code < 128 && keyCharacters[code] === 1;
}

/**
 * How far back a cut moves to leave out a run of key characters; a longer run, or one that is all of `kept`, is cut
 * where it is (a cut text is never emptied).
 */
const longestKept = 512;

/**
 * `kept`, the start of a text that went on with the character `next` (its code; NaN when the text ended there),
 * without the part of a run of key characters that the cut split. A key cut short no longer reads as one (it is
 * shorter than its format, or its prefix is gone), so the redactor would let its first characters through.
 */
export function withoutSplitRun(kept: string, next: number): string {
  if (!isKeyCharacter(next)) return kept;
  const limit = Math.max(0, kept.length - longestKept);
  let start = kept.length;
  while (start > limit && isKeyCharacter(kept.charCodeAt(start - 1))) start--;
  return start > limit ? kept.slice(0, start) : kept;
}
