// Lint rules of the repository: type-aware typescript-eslint rules and the layer
// boundaries of docs/architecture.md ("Folders"), enforced on every import.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

/** An import pattern for `no-restricted-imports`, with the reason a reader sees. */
const forbid = (group, message) => ({ group, message });

const HTTP = forbid(['**/http/**'], 'Only the HTTP layer and the process entry points may import src/http.');
const DOMAIN = forbid(['**/domain/**'], 'The database layer and the libraries never call up into src/domain.');
const DB = forbid(['**/db/**'], 'src/lib holds plain utilities with no database access.');
const WORKERS = forbid(['**/workers/**'], 'Workers are started by the process entry points only.');
const WEBHOOKS = forbid(
  ['**/webhooks/**'],
  'Only HTTP, the workers and the entry points call src/webhooks; the domain and mail record events through src/outbox.',
);
const MAIL = forbid(['**/mail/**'], 'src/webhooks and src/outbox never call src/mail.');
const OUTBOX = forbid(
  ['**/outbox/**'],
  'src/outbox is above the database: the domain writes it, webhooks and mail read it.',
);

/** SQL lives in src/db/repositories (docs/architecture.md, "Layers"). */
const NO_SQL = {
  name: 'kysely',
  importNames: ['sql'],
  message: 'Write SQL in a repository under src/db/repositories and call it from here.',
};

/** The layers, top to bottom: each may import only what is below it. */
const layers = [
  { files: ['src/domain/**/*.ts'], patterns: [HTTP, WORKERS, WEBHOOKS], paths: [NO_SQL] },
  // Webhooks hold their own rules (endpoints, the delivery log) and read the outbox.
  { files: ['src/webhooks/**/*.ts'], patterns: [HTTP, DOMAIN, WORKERS, MAIL] },
  { files: ['src/mail/**/*.ts'], patterns: [HTTP, DOMAIN, WORKERS, WEBHOOKS] },
  // Domain events: written by the domain, read by webhooks and mail; only the database below.
  { files: ['src/outbox/**/*.ts'], patterns: [HTTP, DOMAIN, WORKERS, WEBHOOKS, MAIL], paths: [NO_SQL] },
  {
    // What every background job is given: no job's own options (those live with the job).
    files: ['src/background-job.ts'],
    patterns: [HTTP, DOMAIN, WORKERS, WEBHOOKS, MAIL, OUTBOX],
  },
  {
    files: ['src/db/**/*.ts'],
    patterns: [
      HTTP,
      DOMAIN,
      WORKERS,
      forbid(
        ['**/webhooks/**', '**/mail/**', '**/outbox/**', '**/metrics/**'],
        'The database layer is the bottom layer.',
      ),
    ],
  },
  { files: ['src/workers/**/*.ts'], patterns: [HTTP] },
  {
    // Counted from every layer, so below them all but the database (its scrape-time gauges).
    files: ['src/metrics/**/*.ts'],
    patterns: [
      HTTP,
      DOMAIN,
      WORKERS,
      forbid(
        ['**/webhooks/**', '**/mail/**', '**/outbox/**'],
        'src/metrics is counted by webhooks and mail, never the reverse.',
      ),
    ],
    paths: [NO_SQL],
  },
  { files: ['src/lib/**/*.ts'], patterns: [HTTP, DOMAIN, DB, WORKERS] },
  {
    // Words and formats of what a buyer receives: pure, loaded by the render threads too.
    files: ['src/i18n/**/*.ts'],
    patterns: [HTTP, DOMAIN, DB, WORKERS, forbid(['**/mail/**', '**/webhooks/**'], 'src/i18n is below mail.')],
  },
  {
    // A buyer's documents (docs/tickets.md): called by mail and by the domain, never the reverse.
    files: ['src/documents/**/*.ts'],
    patterns: [HTTP, DOMAIN, WORKERS, forbid(['**/mail/**', '**/webhooks/**'], 'src/documents is below mail.')],
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '**/dist/**',
      'data/**',
      'openapi.json',
      'bench/results.*',
      '**/*.d.ts',
      'packages/sdk/src/generated/**',
      // What npm test compiles in place (scripts/test.mjs).
      '{src,test,bench,examples,scripts}/**/*.js',
      'packages/*/src/**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Fastify plugins, hooks and handlers are async by contract, whether or not they await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // A unit longer than this says why beside it (an eslint-disable comment with its reason).
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Tests and benchmarks read HTTP response bodies as untyped JSON and assert them field
    // by field; typing every body would add casts, not safety.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // node:test runs the promises that test() and describe() return.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
    },
  },
  {
    // The SDK runs in browsers too (docs/sdk.md), and the console only there (docs/console.md):
    // Web APIs only, no Node built-ins or globals.
    files: ['packages/sdk/src/**/*.ts', 'packages/console/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [forbid(['node:*', ...builtinModules], 'This code runs in browsers: use a Web API instead.')] },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate'].map(
          (name) => ({ name, message: 'This code runs in browsers: use a Web API instead.' }),
        ),
      ],
    },
  },
  ...layers.map(({ files, patterns, paths = [] }) => ({
    files,
    rules: { 'no-restricted-imports': ['error', { patterns, paths }] },
  })),
  {
    // The console's pages run in a browser.
    files: ['packages/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
