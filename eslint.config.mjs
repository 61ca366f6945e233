// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The dependency direction of the house (README, "How the code is laid out"), as import rules:
 * - src/core is the pure centre: it imports nothing of ours outside src/core;
 * - the inbound edges (src/edges/inbound: slash commands, pages, the webhook and interaction
 *   endpoints) reach the data only through the application services they are given, never the store;
 * - the outbound edges (src/edges/outbound: the store, Discord, Patreon, other sources, logs) are
 *   called by the application and never call back into it or into the inbound edges;
 * - the application (src/app) never imports the inbound edges;
 * - nothing in the product imports the stand-ins or the demo (packages/sandbox, demo/), and the
 *   sandbox package imports nothing of the product.
 */
const noSandbox = {
  group: ['@tierlink/sandbox', '@tierlink/sandbox/*', '**/packages/**', '**/demo/**'],
  message: 'The product never imports the stand-ins or the demo: they wire the product, not the other way round.',
};

export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'drizzle/**', 'screenshots/**'] },
  js.configs.recommended,
  {
    files: ['*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', process: 'readonly' } },
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', '*.js', 'test/support/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // An unawaited promise whose failure nobody handles ends the process (security issue: crash).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noSandbox] }] },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noSandbox,
            {
              group: [
                '**/app/**',
                '**/edges/**',
                '**/cli/**',
                '**/shared/**',
                '**/config',
                '**/main',
                'node:*',
                'express',
                'discord.js',
                '@discordjs/*',
                'drizzle-orm',
                'drizzle-orm/*',
                'pg',
                'pino',
              ],
              message: 'src/core is pure: it imports nothing of ours outside src/core, and no I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/edges/inbound/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noSandbox,
            {
              group: ['**/store', '**/store/**', 'drizzle-orm', 'drizzle-orm/*'],
              message: 'Inbound edges (commands, pages, endpoints) call services they are given; they never import the store.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/edges/outbound/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noSandbox,
            {
              group: ['**/app/**', '**/inbound/**', '**/main', '**/compose', '**/cli/**'],
              message: 'Outbound edges are called by the application; they never import it or the inbound edges.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noSandbox,
            {
              group: ['**/inbound/**', '**/main', '**/compose', '**/cli/**'],
              message: 'The application never imports the inbound edges (commands, pages, endpoints) or the composition root.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/sandbox/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/src/**', '../../../**'], message: 'The sandbox package imports nothing of the product.' }] },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'packages/sandbox/test/**/*.ts', 'bench/**/*.ts', 'demo/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': 'off',
    },
  },
  {
    // Ports are typed by what the application needs, declared by hand: a row type inferred from the
    // drizzle schema, once exported, widens what every reader sees whenever a column is added.
    // A private (non-exported) use inside a repository may stay.
    files: ['src/**/*.ts'],
    ignores: ['src/edges/outbound/store/schema/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(ExportNamedDeclaration > TSTypeAliasDeclaration, ExportNamedDeclaration > TSInterfaceDeclaration) TSTypeQuery[exprName.type="TSQualifiedName"][exprName.right.name=/^\\$infer(Select|Insert)$/]',
          message:
            'Export a declared interface for a row, not one inferred from the drizzle schema ($inferSelect/$inferInsert): a column added to the table must not widen what the application sees.',
        },
      ],
    },
  },
);
