// The shell's log file in the data dir (logs/main.log): one line per event, rotated once at a size cap, with
// control characters escaped so a hostile file name cannot forge log lines.
import fs from 'node:fs';
import path from 'node:path';

export interface Logger {
  info: (message: string) => void;
  error: (message: string, error?: unknown) => void;
  /** Raw lines from the core's stdout/stderr, prefixed with their stream. */
  core: (stream: 'stdout' | 'stderr', line: string) => void;
  readonly file: string;
}

const MAX_BYTES = 5 * 1024 * 1024;

/** Escapes CR, LF and other control characters (log injection, checklist 72). */
export function escapeLogText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Credentials never reach a log (checklist 86): the UI token of an app address and any JWT (API keys). */
export function redactSecrets(text: string): string {
  return text
    .replace(/#token=[A-Za-z0-9_-]+/g, '#token=[redacted]')
    .replace(/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g, '[jwt redacted]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]');
}

export function formatLogLine(level: string, message: string, now: Date): string {
  return `${now.toISOString()} ${level} ${escapeLogText(redactSecrets(message))}\n`;
}

/** Logs name files and cases: readable by their user only (0700 folder, 0600 files), whatever the umask. */
function ownerOnly(target: string, mode: number): void {
  if (process.platform === 'win32') return;
  try {
    fs.chmodSync(target, mode);
  } catch {
    // Missing (not written yet) or not ours: the next write creates it with the mode.
  }
}

export function createFileLogger(dir: string, name = 'main.log', clock: () => Date = () => new Date()): Logger {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  ownerOnly(dir, 0o700);
  const file = path.join(dir, name);
  ownerOnly(file, 0o600); // a log written by an older version, created 0644
  ownerOnly(`${file}.1`, 0o600);
  const write = (level: string, message: string): void => {
    try {
      const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
      if (size > MAX_BYTES) fs.renameSync(file, `${file}.1`);
      fs.appendFileSync(file, formatLogLine(level, message, clock()), { mode: 0o600 });
    } catch {
      // A log that cannot be written must never take the app down with it.
    }
  };
  return {
    file,
    info: (message) => write('INFO', message),
    error: (message, error) => {
      const detail = error instanceof Error ? `: ${error.stack ?? error.message}` : error === undefined ? '' : `: ${String(error)}`;
      write('ERROR', message + detail);
    },
    core: (stream, line) => write(stream === 'stderr' ? 'CORE-ERR' : 'CORE', line),
  };
}
