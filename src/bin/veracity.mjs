#!/usr/bin/env node
// The `veracity` binary: registers the TypeScript loader (tsx) from this package, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli.ts');
process.exitCode = await main(process.argv.slice(2));
