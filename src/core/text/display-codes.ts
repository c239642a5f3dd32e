/**
 * The terminal sequences an excerpt drops: colours and cursor moves (`ESC [` digits and semicolons, then one of
 * the usual final letters), OSC strings (titles, hyperlinks) and character-set selections (`ESC ( B`). Only
 * well-formed, common sequences go: a malformed one (`ESC [ a`) keeps its characters, because removing them could
 * take the first letters of a secret's prefix with them. The classifier's matching strips more (every CSI).
 */
const displayCode =
  // eslint-disable-next-line no-control-regex -- finding escape sequences is the point
  /\u001b(?:\[[0-9;?]{0,32}[ABCDEFGHJKSTfhlmnsu]|\][^\u0007\u001b]{0,2048}(?:\u0007|\u001b\\)|[()*+][0-9A-Za-z])/g;

/** `text` without its common terminal sequences, so a key coloured red (`ESC[31mAKIA...`) starts a word again. */
export function stripDisplayCodes(text: string): string {
  return text.includes('\u001b') ? text.replace(displayCode, '') : text;
}
