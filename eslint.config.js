// Lint rules for the whole project. Besides typescript-eslint's recommended set, this enforces
// the layers of docs/architecture.md (`layers/import-order`: a src/ folder imports only its own
// folder and lower layers, table in scripts/eslint-layers.mjs) and style item 13: engine folders
// never import React, zustand or the UI; only src/store imports zustand. Run by `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { layersPlugin } from './scripts/eslint-layers.mjs';

const engineFolders = [
  'src/gpu/**', 'src/model/**', 'src/rl/**', 'src/agents/**', 'src/tools/**',
  'src/reference/**', 'src/envs/**', 'src/data/**', 'src/metrics/**', 'src/cli/**',
  'src/server/**', 'src/workers/**', 'src/train/**', 'src/export/**', 'src/ort/**',
  'src/util/**', 'src/run/**',
];

const uiOnly = ['react', 'react-dom', 'react-dom/*', 'zustand', 'zustand/*', 'recharts'];

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'public/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Upward imports fail; the allowed exceptions are listed, each with its reason, in
    // LAYER_EXCEPTIONS (scripts/eslint-layers.mjs).
    files: ['src/**/*.{ts,tsx}'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/import-order': 'error' },
  },
  {
    files: ['src/ui/**/*.{ts,tsx}', 'src/main.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    files: engineFolders,
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: uiOnly, message: 'Engine code is framework-free (style item 13): no React, zustand or recharts here.' },
          { group: ['**/ui/**', '**/store/**'], message: 'Engine code must not import the UI or the store.' },
        ],
      }],
    },
  },
  {
    files: ['src/ui/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['zustand', 'zustand/*'], message: 'Only src/store imports zustand; select from the store instead.' },
          { group: ['**/gpu/node-gpu', 'webgpu'], message: 'The Node WebGPU provider is for Node entry points only.' },
        ],
      }],
    },
  },
);
