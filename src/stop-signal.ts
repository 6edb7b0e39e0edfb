// How `veracity serve` and the team server's commands wait for their stop: Ctrl+C reaches every process of the
// terminal's group, and `npm start`, `npm run start:core` and main/launcher.ts relay it to the core as well, so the
// same stop arrives twice a few milliseconds apart. With once-only handlers the relayed copy killed the process in
// the middle of its clean stop (files in analysis were failed instead of handed back).
import os from 'node:os';

/** A repeat of the stop signal within this long is the same stop, relayed. */
const SIGNAL_RELAY_MS = 2000;

/**
 * Resolves with the first SIGINT or SIGTERM, saying on stderr that the process is stopping (stdout's first line is
 * the ready line). A repeat within SIGNAL_RELAY_MS is that same stop; a later one (Ctrl+C pressed again) exits at once.
 */
export function stopSignal(name: string, resumes: string): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: number | null = null;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first === null) {
        first = Date.now();
        process.stderr.write(`${name}: ${signal} received, stopping; ${resumes}\n`);
        resolve(signal);
      } else if (Date.now() - first >= SIGNAL_RELAY_MS) {
        process.stderr.write(`${name}: ${signal} received again, stopping at once; ${resumes}\n`);
        process.exit(128 + os.constants.signals[signal]);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
