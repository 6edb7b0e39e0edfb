// `npm start`: a plain-JS entry (Node runs it without a build) that loads the TypeScript launcher through tsx.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = await tsImport('./launcher.ts', import.meta.url);
try {
  process.exitCode = await launcher.main(root, process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
