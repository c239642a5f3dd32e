/** The public API of the `recourse` package: the pure core, the durable engine and the store adapters. */
export * from './core/index.js';
export * from './engine/index.js';
export * from './store/index.js';
export * from './app/index.js';
