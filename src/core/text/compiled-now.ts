/**
 * A subject long enough that V8 compiles an expression to machine code for its first run: 1,000 characters (V8's
 * `kTierUpForSubjectLengthValue`), blanks, so that no catalogue expression does much work on it.
 */
const longSubject = ' '.repeat(1000);

/**
 * `expression`, compiled to machine code now rather than at its second run; returned with `lastIndex` 0. V8 runs a
 * new expression in its interpreter first, compiling it to bytecode, and compiles it to machine code at its second
 * run, except on a subject of 1,000 characters or more, which skips the interpreter. For the big expressions of the
 * catalogue the bytecode is the dearer compilation of the two (`local.foreign_host.v1`'s URL lookbehind, an
 * alternation after an alternation: 5-7 ms, against 0.5 ms for machine code), and a fresh process (every
 * `recourse classify`) pays both for each of the hundreds of expressions it meets. A run on a long blank subject
 * compiles machine code straight away, and the later runs on text of either width use it. Only speed depends on
 * this: an engine that compiles otherwise spends one scan of 1,000 blanks here.
 */
export function compiledNow<T extends RegExp>(expression: T): T {
  expression.exec(longSubject);
  expression.lastIndex = 0;
  return expression;
}
