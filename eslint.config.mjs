// ESLint: type-aware rules that catch real defects (docs/code-quality.md). Formatting is prettier's job,
// unused files and exports knip's; `npm test` runs all three and fails on any finding.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The layers where a function longer than this is split (test/ and scripts/ are free to be long). */
const MAX_FUNCTION_LINES = 120;
const LAYERS_WITH_SHORT_FUNCTIONS = ['activities/**/*.ts', 'services/**/*.ts', 'workflows/**/*.ts', 'api/**/*.ts'];

/**
 * Functions allowed past MAX_FUNCTION_LINES, each with its reason. A factory that only binds its
 * dependencies to short named functions reads as a list, not as one knotted function.
 */
const LONG_FUNCTION_EXCEPTIONS = {};

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', '.stack/', '.data/', 'coverage/', 'test/fixtures/layering/', '**/*.js', '**/*.cjs', '**/*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Defects: a promise nobody awaits or catches, a promise where a callback's result is ignored.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/require-await': 'off',
      // A caught value passed on as it came is fine (its type is unknown); a new rejection must be an Error.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    // Tests and scripts read JSON answers and documents as `any` on purpose: their assertions check the shapes.
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // A WebSocket's RawData and a child's output chunks are Buffers: their toString() is the text.
      '@typescript-eslint/no-base-to-string': 'off',
      // package.json and the dependency-cruiser configuration are read with require().
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Koa types `next()` as Promise<any>: a middleware's `return next()` is no unsafe value.
    files: ['api/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-return': 'off' },
  },
  {
    files: LAYERS_WITH_SHORT_FUNCTIONS,
    rules: {
      'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  ...Object.entries(LONG_FUNCTION_EXCEPTIONS).map(([file, { reason }]) => ({
    files: [file],
    rules: { 'max-lines-per-function': 'off' },
    // The reason is written here so the exception cannot be listed without one.
    settings: { longFunctionReason: reason },
  })),
);
