// The data dir when none is given: one resolver for the core and the shell, so `veracity serve`, `veracity keys`,
// `npm start` and the desktop app open the same database for the same environment (XDG rules on Linux).
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { resolveDataDir } from '../../../src/config/data-dir.js';
import { defaultDataDir as shellDataDir } from '../../../main/paths.js';

const linux = (env: Record<string, string>) => resolveDataDir({ platform: 'linux', env, home: '/home/a' });

describe('resolveDataDir', () => {
  it('follows each platform', () => {
    expect(linux({})).toBe('/home/a/.local/share/veracity');
    expect(linux({ XDG_DATA_HOME: '/x/data' })).toBe('/x/data/veracity');
    expect(resolveDataDir({ platform: 'darwin', env: {}, home: '/Users/a' })).toBe('/Users/a/Library/Application Support/Veracity');
    expect(resolveDataDir({ platform: 'win32', env: { APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, home: 'C:\\Users\\a' })).toBe('C:\\Users\\a\\AppData\\Roaming\\Veracity');
    expect(resolveDataDir({ platform: 'win32', env: {}, home: 'C:\\Users\\a' })).toBe('C:\\Users\\a\\AppData\\Roaming\\Veracity');
  });

  it('ignores an empty, blank or relative XDG_DATA_HOME (the XDG spec: a relative path is invalid)', () => {
    for (const XDG_DATA_HOME of ['', '   ', 'rel', './data', ' /x/data']) expect(linux({ XDG_DATA_HOME })).toBe('/home/a/.local/share/veracity');
    expect(resolveDataDir({ platform: 'win32', env: { APPDATA: 'Roaming' }, home: 'C:\\Users\\a' })).toBe('C:\\Users\\a\\AppData\\Roaming\\Veracity');
  });

  it('honours VERACITY_DATA_DIR verbatim, relative ones resolved like --data-dir, and ignores a blank one', () => {
    expect(linux({ VERACITY_DATA_DIR: '/srv/v', XDG_DATA_HOME: '/x' })).toBe('/srv/v');
    expect(linux({ VERACITY_DATA_DIR: 'here' })).toBe(path.resolve('here'));
    expect(linux({ VERACITY_DATA_DIR: '/srv/v ' })).toBe('/srv/v ');
    expect(linux({ VERACITY_DATA_DIR: ' \t' })).toBe('/home/a/.local/share/veracity');
  });
});

describe('the core and the shell', () => {
  it('choose the same data dir for the same environment', () => {
    const envs: Record<string, string>[] = [
      {},
      { XDG_DATA_HOME: '/x/data' },
      { XDG_DATA_HOME: 'relative/data' },
      { XDG_DATA_HOME: '' },
      { VERACITY_DATA_DIR: '/srv/v' },
      { VERACITY_DATA_DIR: '  ' },
      { VERACITY_DATA_DIR: 'rel' },
      { APPDATA: 'Roaming' },
    ];
    for (const env of envs) {
      const core = loadConfig({}, env).dataDir;
      expect(core, JSON.stringify(env)).toBe(shellDataDir(env));
      expect(path.isAbsolute(core), JSON.stringify(env)).toBe(true);
    }
    if (process.platform === 'linux') expect(loadConfig({}, { XDG_DATA_HOME: 'relative/data' }).dataDir).toBe(path.join(os.homedir(), '.local', 'share', 'veracity'));
  });
});
