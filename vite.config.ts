// Vite builds the React renderer into dist/renderer (served by the core on 127.0.0.1 and loaded by Electron);
// the `test` section configures vitest for the unit and API suites.
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import react from '@vitejs/plugin-react';

/**
 * pdf.js's data files, served from the app's own origin (renderer/lib/pdf-thumbnail.ts): its standard fonts, for
 * PDFs that name Helvetica or Times without embedding them, and its image decoders (JPEG 2000, JBIG2, ICC colour),
 * copied from the installed pdfjs-dist into the build as dist/renderer/pdfjs/{standard_fonts,wasm}/.
 */
function pdfjsAssets(): Plugin {
  const root = path.resolve('node_modules/pdfjs-dist');
  const folders = ['standard_fonts', 'wasm'];
  return {
    name: 'veracity-pdfjs-assets',
    apply: 'build',
    generateBundle() {
      for (const folder of folders) {
        for (const name of fs.readdirSync(path.join(root, folder))) {
          const file = path.join(root, folder, name);
          if (fs.statSync(file).isFile()) this.emitFile({ type: 'asset', fileName: `pdfjs/${folder}/${name}`, source: fs.readFileSync(file) });
        }
      }
    },
  };
}

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), pdfjsAssets()],
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
