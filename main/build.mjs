// Bundles the Electron main process and the preload into dist/main (CommonJS, as Electron loads them). The core is
// not bundled: it runs from src/ in a utility process, and native modules stay in node_modules (unpacked from the asar).
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NATIVE = ['electron', 'better-sqlite3', 'onnxruntime-node', 'sharp', '@napi-rs/canvas'];

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'info',
  external: NATIVE,
  absWorkingDir: root,
};

await build({ ...common, entryPoints: ['main/main.ts'], outfile: 'dist/main/main.cjs' });
// A sandboxed preload may only require('electron'): it must be one self-contained file.
await build({ ...common, entryPoints: ['main/preload.ts'], outfile: 'dist/main/preload.cjs', external: ['electron'] });
