// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import reactHooks from 'eslint-plugin-react-hooks';

/** Imports the pure core refuses: Node built-ins, drivers, servers, UI and adapters. */
const coreImportBans = [
  { group: ['node:*'], message: 'src/core is pure: no Node built-ins (adapters do I/O).' },
  {
    group: [
      'fs',
      'fs/*',
      'path',
      'os',
      'child_process',
      'crypto',
      'http',
      'https',
      'net',
      'events',
      'stream',
      'worker_threads',
      'timers',
      'timers/*',
    ],
    message: 'src/core is pure: no Node built-ins (adapters do I/O).',
  },
  {
    group: [
      'better-sqlite3',
      'pg',
      'kysely',
      'kysely/*',
      'fastify',
      'pino',
      'commander',
      'react',
      'react-dom',
    ],
    message: 'src/core is pure: drivers, servers and UI live in adapters.',
  },
  {
    group: ['**/engine/**', '**/store/**', '**/server/**', '**/cli/**', '**/acp/**'],
    message: 'src/core must not depend on adapters.',
  },
];

/** The pure core decides; adapters do I/O. These bans keep that promise checkable. */
const coreRestrictions = {
  'no-restricted-imports': ['error', { patterns: coreImportBans }],
  'no-restricted-globals': [
    'error',
    ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map(
      (name) => ({ name, message: 'src/core has no timers: return an effect and let the engine arm it.' }),
    ),
    { name: 'process', message: 'src/core reads no process state.' },
    { name: 'performance', message: 'src/core reads no clock: time is an argument.' },
    { name: 'fetch', message: 'src/core does no I/O.' },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: 'TSEnumDeclaration', message: 'Use `as const` vocabularies.' },
    {
      selector: "NewExpression[callee.name='Date']",
      message: 'src/core reads no clock: pass `now` (epoch ms) in.',
    },
    {
      selector: "CallExpression[callee.name='Date']",
      message: 'src/core reads no clock: pass `now` (epoch ms) in.',
    },
    {
      selector: "MemberExpression[object.name='Date'][property.name='now']",
      message: 'src/core reads no clock: pass `now` (epoch ms) in.',
    },
  ],
};

/**
 * The catalogue is data that the classifier compiles: it may not import the classifier back. The flat config
 * replaces a rule's options rather than merging them, so the catalogue's entry repeats the core's patterns.
 */
const catalogueRestrictions = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        ...coreImportBans,
        {
          group: ['**/classify', '**/classify/**'],
          message:
            'src/core/catalogue is data: it must not import src/core/classify (the classifier compiles it).',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['./tsconfig.json', './web/tsconfig.json', './test/ui/tsconfig.json'],
        }),
      ],
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use `as const` vocabularies.' },
      ],
    },
  },
  {
    // The example has its own tsconfig for its users; here it resolves `recourse` to this repository's source.
    files: ['examples/embed/src/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './tsconfig.examples.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.examples.json' })],
    },
  },
  {
    // The web UI runs in the browser; it may import only the pure core from src/ (schemas, schedules, words).
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/src/engine/**',
                '**/src/store/**',
                '**/src/server/**',
                '**/src/cli/**',
                '**/src/app/**',
              ],
              message:
                'The web UI imports only src/core (pure, browser-safe); it talks to the service over HTTP.',
            },
            { group: ['node:*'], message: 'The web UI runs in a browser.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: coreRestrictions,
  },
  {
    files: ['src/core/catalogue/**/*.ts'],
    rules: catalogueRestrictions,
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['bench/**/*.mjs', 'test/**/*.mjs', 'scripts/**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
);
