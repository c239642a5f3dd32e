/**
 * The gates of the shipped catalogue's patterns, prepared when the package is built rather than in every process.
 * Reading a pattern for the trigrams its matches need (`requiredGrams`) and laying its gates out
 * (`compileGateList`) runs once per pattern, cold, in each fresh process: 100-150 ms of CPU for the catalogue's
 * 131 patterns and 1,298 split branches, a visible share of a `recourse classify` run. `npm run build` replaces this
 * module in `dist` with those results for every rule pattern of the catalogue
 * (`scripts/build-prepared-gates.mjs`), computed by the same code from the same sources; `PrunedPattern` takes a
 * pattern's gates from here when its flags and source are found, and reads the pattern as before otherwise (another
 * catalogue, a rule changed since the build). In the source the table is empty: the answers never depend on it.
 */

/** One pattern's split branches (null: not split) and its gates as the arrays of a `GateList`. */
export interface PreparedGates {
  readonly branches: readonly string[] | null;
  readonly words: readonly number[];
  readonly starts: readonly number[];
  readonly covers: readonly number[];
  readonly coverStarts: readonly number[];
  readonly firstCover: readonly number[];
}

/** Prepared gates by `${flags}/${source}` of the whole pattern. */
export const preparedGates: ReadonlyMap<string, PreparedGates> = new Map();
