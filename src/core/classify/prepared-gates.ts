/**
 * The gates of the shipped catalogue's patterns, prepared when the package is built rather than in every process.
 * Reading a pattern for the trigrams its matches need (`requiredGrams`) and laying its gates out
 * (`compileGateList`) runs once per pattern, cold, in each fresh process: 100-150 ms of CPU for the catalogue's
 * rule patterns and split branches, a visible share of a `recourse classify` run. The same holds for the scans
 * from the start of the text (src/core/classify/bounded-scan.ts): each of their hundred-odd alternatives read for
 * its trigrams, and the whole scan's source read too. `npm run build` replaces this module in `dist` with those
 * results for every rule pattern of the catalogue and every scan among their branches
 * (`scripts/build-prepared-gates.mjs`), computed by the same code from the same sources; `PrunedPattern` and
 * `ScanBranch` take their gates from here when their flags and source are found, and read the source as before
 * otherwise (another catalogue, a rule changed since the build). In the source the tables are empty: the answers
 * never depend on them.
 */

import type { ScanGates, ScanShape } from './bounded-scan.js';
import type { GateListArrays } from './required-grams.js';

/** One pattern's split branches (null: not split) and its gates as the arrays of a `GateList`. */
export interface PreparedGates extends GateListArrays {
  readonly branches: readonly string[] | null;
}

/**
 * One scan's shape (`scanShapeOf`: reading a source of 16-26 thousand characters three times over, cold) and its
 * gates.
 */
export interface PreparedScan extends ScanGates {
  readonly shape: ScanShape;
}

/** Prepared gates by `${flags}/${source}` of the whole pattern. */
export const preparedGates: ReadonlyMap<string, PreparedGates> = new Map();

/** Prepared scan gates by `${flags}/${source}` of the scan (a top-level branch of some pattern). */
export const preparedScans: ReadonlyMap<string, PreparedScan> = new Map();

/**
 * The gates of the `near` conditions' patterns (each run with the `g` flag: `LazyGate`), as a `Gate`'s words (null:
 * requires nothing), by `${flags}/${source}`.
 */
export const preparedNearGates: ReadonlyMap<string, readonly number[] | null> = new Map();
