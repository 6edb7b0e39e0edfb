// Where Veracity keeps its data when no --data-dir is given, decided by this one resolver for the core (`veracity
// serve`, `veracity keys`) and the shell (Electron, `npm start`), so every way of starting shares one database.
import os from 'node:os';
import path from 'node:path';

export interface DataDirInputs {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

/** An environment value, or null when it is unset, empty or only white space (taken verbatim otherwise). */
function given(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}

/**
 * `VERACITY_DATA_DIR` when given (a relative one is resolved against the working directory, as --data-dir is);
 * else the platform's folder for application data: `$XDG_DATA_HOME/veracity` on Linux, where a relative
 * XDG_DATA_HOME is invalid and ignored (XDG Base Directory spec), `~/Library/Application Support/Veracity` on macOS,
 * `%APPDATA%\Veracity` on Windows (a relative APPDATA is ignored likewise).
 */
export function resolveDataDir({ platform, env, home }: DataDirInputs): string {
  const override = given(env.VERACITY_DATA_DIR);
  if (override !== null) return path.resolve(override);
  if (platform === 'win32') {
    const appData = given(env.APPDATA);
    return path.win32.join(appData !== null && path.win32.isAbsolute(appData) ? appData : path.win32.join(home, 'AppData', 'Roaming'), 'Veracity');
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'Veracity');
  const xdg = given(env.XDG_DATA_HOME);
  return path.posix.join(xdg !== null && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'share'), 'veracity');
}

/** The data dir of this process (its platform, environment and home directory). */
export function defaultDataDir(env: Record<string, string | undefined> = process.env): string {
  return resolveDataDir({ platform: process.platform, env, home: os.homedir() });
}
