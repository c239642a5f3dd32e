import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Source-scanning helpers for the vocabulary tests (provider-neutral orchestration, no copied tables). */

export const repoRoot = new URL('../../', import.meta.url).pathname;

/** Every `.ts` file under the given folders (relative to the repository), recursively; missing folders are skipped. */
export function tsFilesUnder(folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(relative(repoRoot, path));
    }
  };
  for (const folder of folders) {
    const dir = join(repoRoot, folder);
    if (existsSync(dir)) walk(dir);
  }
  return files;
}

/**
 * The code of a TypeScript file with every comment (line, block and JSDoc) blanked out. Only the parser's
 * tokens are kept, each at its original offset, so line numbers stay right and a `//` inside a string or a
 * regular expression is never mistaken for a comment.
 */
export function codeWithoutComments(fileName: string, text: string): string {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = text.replace(/[^\n]/g, ' ').split('');
  const keep = (node: ts.Node) => {
    if (ts.isJSDoc(node)) return;
    const children = node.getChildren(source);
    if (children.length === 0) {
      for (let i = node.getStart(source); i < node.end; i++) out[i] = text[i]!;
      return;
    }
    for (const child of children) keep(child);
  };
  keep(source);
  return out.join('');
}

/** One forbidden word or literal found in code. */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly found: string;
  readonly kind: 'name' | 'signature';
}

/**
 * Splits code into lower-case words: runs of letters and digits, cut again at camelCase boundaries, so
 * `isCursorAcp`, `cursor_acp` and `'cursor-acp'` all yield the word `cursor`.
 */
export function wordsOf(code: string): Array<{ word: string; index: number }> {
  const words: Array<{ word: string; index: number }> = [];
  for (const run of code.matchAll(/[A-Za-z0-9]+/g)) {
    let offset = run.index;
    for (const part of run[0].split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)) {
      words.push({ word: part.toLowerCase(), index: offset });
      offset += part.length;
    }
  }
  return words;
}

const lineAt = (code: string, index: number) => code.slice(0, index).split('\n').length;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Forbidden names (whole words, see `wordsOf`) and signature literals (case-insensitive, not part of a longer
 * identifier) in one file's code, comments excluded.
 */
export function scanCode(
  file: string,
  text: string,
  vocabulary: { readonly names: ReadonlySet<string>; readonly signatures: ReadonlySet<string> },
): Finding[] {
  const code = codeWithoutComments(file, text);
  const findings: Finding[] = [];
  for (const { word, index } of wordsOf(code)) {
    if (vocabulary.names.has(word))
      findings.push({ file, line: lineAt(code, index), found: word, kind: 'name' });
  }
  const lower = code.toLowerCase();
  for (const literal of vocabulary.signatures) {
    const re = new RegExp(`(?<![a-z0-9_])${escape(literal)}(?![a-z0-9_])`, 'g');
    for (const m of lower.matchAll(re)) {
      findings.push({ file, line: lineAt(code, m.index), found: literal, kind: 'signature' });
    }
  }
  return findings;
}

export function readRepoFile(file: string): string {
  return readFileSync(join(repoRoot, file), 'utf8');
}
