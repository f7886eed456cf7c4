// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = {
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  setImmediate: 'readonly',
  fetch: 'readonly',
};

/** What src/store/ may not write: the forms a named fragment of src/db/dialect.ts replaces. */
const STORE_DIALECT_RULES = [
  {
    selector: 'Property[key.name=/^(sqlite|postgres)$/], Property[key.value=/^(sqlite|postgres)$/]',
    message: "An engine's own SQL text in a store file: name the difference in src/db/dialect.ts and compose it with the sql tag.",
  },
  {
    selector: 'MemberExpression[property.name="dialect"], ObjectPattern > Property[key.name="dialect"]',
    message: 'A store file does not test the engine: use a named fragment or capability of src/db/dialect.ts.',
  },
  {
    selector: 'Literal[value=/INDEXED\\s+BY/i], TemplateElement[value.raw=/INDEXED\\s+BY/i]',
    message: 'A hand-written INDEXED BY: use indexedBy() of src/db/dialect.ts (SQLite takes it, PostgreSQL does not).',
  },
];

export default tseslint.config(
  // The console's generated API types are openapi-typescript's output, checked current by a test.
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', 'console/src/generated/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // test/tsconfig.json holds src/ and bench/ too: one program for them all, and one for the console.
        project: ['./test/tsconfig.json', './test/types/tsconfig.json', './console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A promise nobody awaits or handles loses its error: the bugs these rules exist for.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A variable a closure reads before its one assignment stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Output lines are matched with their exact spacing.
      'no-regex-spaces': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // One dialect mechanism in the store: each difference between SQLite and PostgreSQL is a named
    // fragment of src/db/dialect.ts, composed with the `sql` tag; the other ways of spelling one are refused.
    files: ['src/store/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...STORE_DIALECT_RULES],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: nodeGlobals },
  },
);
