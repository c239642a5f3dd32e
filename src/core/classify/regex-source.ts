/** Reading a regular expression's source without compiling it: shared by the pattern splitter and the scan reader. */

/**
 * The index of the `]` closing the class whose `[` is at `open` (or the source's length): a class ends at its first
 * unescaped `]` (`[]` is empty and `[^]` any character in this syntax).
 */
export function classEnd(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === '^') i++;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i;
}

/**
 * The branches of `source` at its top level (escapes and classes respected), or null when it has a capturing group,
 * named or not; with `balanced`, null too when a parenthesis does not close or closes nothing.
 */
export function topLevelBranches(source: string, balanced: boolean): string[] | null {
  const branches: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') {
      if (source[i + 1] !== '?') return null;
      if (source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!') return null;
      depth++;
    } else if (c === ')') {
      if (--depth < 0 && balanced) return null;
    } else if (c === '|' && depth === 0) {
      branches.push(source.slice(from, i));
      from = i + 1;
    }
  }
  if (balanced && depth !== 0) return null;
  branches.push(source.slice(from));
  return branches;
}
