// How `veracity serve` and the team server's commands wait for their stop (Ctrl+C: SIGINT; a service manager: SIGTERM;
// the terminal closed or the SSH session dropped: SIGHUP, which otherwise killed the process mid-file, spending the
// attempt of every file in analysis). Ctrl+C reaches every process of the terminal's group, and `npm start`, `npm run start:core` and main/launcher.ts relay it to the core as well, so the
// same stop arrives twice a few milliseconds apart. With once-only handlers the relayed copy killed the process in
// the middle of its clean stop (files in analysis were failed instead of handed back).
import os from 'node:os';

/** The signals that stop the server cleanly; the analysis workers ignore them (src/bin/analysis-worker.mjs). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A repeat of the stop signal within this long is the same stop, relayed. */
const SIGNAL_RELAY_MS = 2000;

/**
 * Resolves with the first SIGINT, SIGTERM or SIGHUP, saying on stderr that the process is stopping (stdout's first line is
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
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  });
}
