// Vite builds the React renderer into dist/renderer (served by the core on 127.0.0.1 and loaded by Electron);
// the `test` section configures vitest for the unit and API suites.
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    sourcemap: false,
  },
  test: {
    root: '.',
    include: ['test/unit/**/*.test.ts', 'test/api/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
