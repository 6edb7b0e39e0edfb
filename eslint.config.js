// Lint: TypeScript rules plus the dependency direction of STYLE.md, enforced mechanically, one rule per folder:
// src never imports electron/react/DOM code, main imports src only (never renderer), renderer imports src/api only.
import tseslint from 'typescript-eslint';

const noImport = (group, message) => ['error', { patterns: [{ group, message }] }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'models/training/**', 'test/artifacts/**', 'playwright-report/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': noImport(['electron', 'react', 'react-dom', 'react/*', 'react-dom/*', '**/main/**', '**/renderer/**'], 'src/ is the headless core: no Electron, React, renderer or main imports.'),
    },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: { '@typescript-eslint/ban-ts-comment': ['error', { 'ts-nocheck': true, 'ts-ignore': true }] },
  },
  {
    files: ['main/**/*.ts'],
    rules: { 'no-restricted-imports': noImport(['**/renderer/**', 'react', 'react-dom'], 'main/ hosts the core and imports src/ only.') },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': noImport(
        ['electron', '**/src/server/**', '**/src/jobs/**', '**/src/db/**', '**/src/analysis/**', '**/src/auth/**', '**/src/config/**', '**/src/core*', '**/src/cli*', '**/main/**', 'node:*'],
        'renderer/ talks to the core over HTTP only: it may import src/api (schemas and types), nothing else of src/.',
      ),
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
