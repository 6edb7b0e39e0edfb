// Where the app keeps its data and logs, decided the same way by Electron and by the browser mode of `npm start`,
// so both modes share one database and one set of API keys.
import path from 'node:path';

export interface PathEnv {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

/**
 * The per-user data directory: `VERACITY_DATA_DIR` when set, else the platform's place for application data
 * (XDG_DATA_HOME on Linux, Application Support on macOS, APPDATA on Windows).
 */
export function defaultDataDir({ platform, env, home }: PathEnv): string {
  const override = env.VERACITY_DATA_DIR?.trim();
  if (override) return path.resolve(override);
  if (platform === 'win32') {
    const appData = env.APPDATA?.trim() || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, 'Veracity');
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'Veracity');
  const xdg = env.XDG_DATA_HOME?.trim();
  const base = xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'share');
  return path.posix.join(base, 'veracity');
}

export function logDir(dataDir: string): string {
  return path.join(dataDir, 'logs');
}
