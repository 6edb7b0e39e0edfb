// Says that the core is up, once it listens: the human lines on stdout (`veracity serve` in a terminal) and the
// CoreReady message (src/api/core-ready.ts) to a parent process, which reads that and never parses the text.
import { appUrlOf, type CoreReady } from './api/core-ready.js';

interface ParentPort {
  postMessage(message: unknown): void;
}

export function announceReady(ready: CoreReady, out: NodeJS.WritableStream = process.stdout): void {
  out.write(`Veracity API listening at ${ready.baseUrl}\n`);
  const appUrl = appUrlOf(ready);
  if (appUrl) out.write(`Veracity app at ${appUrl}\n`);
  // Electron's utility process has a parentPort; a Node child started with an 'ipc' stdio entry has process.send.
  const parentPort = (process as { parentPort?: ParentPort }).parentPort;
  if (parentPort) parentPort.postMessage(ready);
  else if (process.send && process.connected) process.send(ready, undefined, undefined, () => {}); // a parent gone is not an error
}
