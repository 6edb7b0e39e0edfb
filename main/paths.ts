// Where the shell keeps its data and logs: the data dir comes from the core's own resolver (src/config/data-dir.ts),
// so Electron, the browser mode of `npm start` and `veracity serve` share one database and one set of API keys.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TEAM_SETTINGS_FILE, type SettingsFile } from './team-server.js';

export { defaultDataDir, resolveDataDir } from '../src/config/data-dir.js';

export function logDir(dataDir: string): string {
  return path.join(dataDir, 'logs');
}

/** The user's choice of a team server (main/team-server.ts), kept next to their data: absent means this computer. */
export function teamSettingsFile(dataDir: string): string {
  return path.join(dataDir, TEAM_SETTINGS_FILE);
}

/** The settings file's text and mode, or null when there is none (any other read error is thrown: it must be seen). */
export function readTeamSettings(file: string): SettingsFile | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return { text, mode: process.platform === 'win32' ? null : fs.statSync(file).mode, path: file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Writes the settings file readable by its user only (0600, in a 0700 data dir), atomically. */
export function writeTeamSettings(file: string, text: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
  try {
    if (process.platform !== 'win32') fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
