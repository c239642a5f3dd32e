/** The public API of the `recourse` package. */
export * from './core/index.js';
