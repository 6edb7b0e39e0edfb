// The desktop's choice between this computer's core and a team server (main/team-server.ts), and the shell's security
// rules once a team server is chosen: exactly that origin is the app, nothing else.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTeamSettings, writeTeamSettings } from '../../../main/paths.js';
import {
  contentSecurityPolicy,
  decideNavigation,
  decidePermission,
  isAppUrl,
  isTrustedSender,
  normalizeOrigin,
} from '../../../main/security.js';
import {
  chooseServer,
  connectCommand,
  isValidUiToken,
  parseTeamServerUrl,
  teamBrowserBanner,
  teamSettingsText,
  type SettingsFile,
} from '../../../main/team-server.js';

const TOKEN = 'a'.repeat(20) + '0123456789_-ABCDEFGH';
const TEAM = 'https://veracity.claims.example';
const settings = (value: unknown, mode: number | null = 0o100600): SettingsFile => ({
  text: typeof value === 'string' ? value : JSON.stringify(value),
  mode,
  path: '/home/u/.local/share/veracity/team-server.json',
});

describe('team server address', () => {
  it.each([
    ['https://veracity.claims.example', 'https://veracity.claims.example'],
    ['https://veracity.claims.example/', 'https://veracity.claims.example'],
    ['HTTPS://Veracity.Claims.Example:8443', 'https://veracity.claims.example:8443'],
    ['https://veracity.claims.example:443/', 'https://veracity.claims.example'],
    ['https://10.0.0.5:8443', 'https://10.0.0.5:8443'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://localhost:8080/', 'http://localhost:8080'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['  https://veracity.claims.example\n', 'https://veracity.claims.example'], // as pasted or read from a file
  ])('accepts %s as %s', (raw, origin) => {
    expect(parseTeamServerUrl(raw)).toEqual({ ok: true, origin });
  });

  it.each([
    ['http://veracity.claims.example', /only for this computer/],
    ['http://10.0.0.5:8080', /only for this computer/],
    ['http://127.0.0.2:8080', /only for this computer/],
    ['http://0.0.0.0:8080', /only for this computer/],
    ['https://0.0.0.0', /names no server/],
    ['https://[::]:8443', /names no server/],
    ['https://user:pw@veracity.claims.example', /user name or password/],
    ['https://user@veracity.claims.example', /user name or password/],
    ['https://@veracity.claims.example', /user name or password/],
    ['https://veracity.claims.example@evil.example', /user name or password/],
    ['https://veracity.claims.example/app', /without a path/],
    ['https://veracity.claims.example/?x=1', /without a path/],
    ['https://veracity.claims.example/?', /without a path/],
    ['https://veracity.claims.example/#token=abc', /without a path/],
    ['https://veracity.claims.example/..', /without a path/],
    ['https://veracity.claims.example/./', /without a path/],
    ['https://veracity.claims.example//', /without a path/],
    ['https://veracity.claims.example\\@evil.example', /backslashes/],
    ['https://veracity.claims.example /x', /spaces/],
    ['https://veracity.claims.example\u0000', /control/],
    ['ftp://veracity.claims.example', /not https/],
    ['file:///etc/passwd', /not https/],
    ['javascript:alert(1)', /not https/],
    ['veracity.claims.example', /not a URL/],
    ['', /no address/],
    [42, /no address/],
    [`https://${'a'.repeat(2100)}.example`, /too long/],
  ])('refuses %j', (raw, reason) => {
    const checked = parseTeamServerUrl(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });

  it('takes UI tokens of the team server shape only', () => {
    expect(isValidUiToken(TOKEN)).toBe(true);
    expect(isValidUiToken('f'.repeat(64))).toBe(true);
    expect(isValidUiToken('short-token-0123456789')).toBe(false);
    expect(isValidUiToken(`${'a'.repeat(40)}=`)).toBe(false);
    expect(isValidUiToken(`${'a'.repeat(40)} `)).toBe(false);
    expect(isValidUiToken(undefined)).toBe(false);
  });
});

describe('choosing the server', () => {
  it('uses this computer when nothing names a team server (a UI token alone, as a team node has, chooses nothing)', () => {
    expect(chooseServer({}, null)).toEqual({ mode: 'local' });
    expect(chooseServer({ VERACITY_UI_TOKEN: TOKEN, VERACITY_SERVER_URL: '  ' }, null)).toEqual({ mode: 'local' });
  });

  it('takes the environment pair first, over the settings file', () => {
    const env = { VERACITY_SERVER_URL: 'https://team.example/', VERACITY_UI_TOKEN: TOKEN };
    expect(chooseServer(env, settings({ serverUrl: TEAM, uiToken: 'b'.repeat(40) }))).toEqual({
      mode: 'team',
      baseUrl: 'https://team.example',
      uiToken: TOKEN,
      source: 'environment',
    });
  });

  it('never pairs an environment URL with the settings file token', () => {
    const choice = chooseServer({ VERACITY_SERVER_URL: 'https://other.example' }, settings({ serverUrl: TEAM, uiToken: TOKEN }));
    expect(choice.mode).toBe('invalid');
    if (choice.mode === 'invalid') expect(choice.reason).toMatch(/no valid UI token/);
  });

  it('reads the settings file', () => {
    expect(chooseServer({}, settings({ serverUrl: TEAM, uiToken: TOKEN }))).toEqual({ mode: 'team', baseUrl: TEAM, uiToken: TOKEN, source: 'settings' });
    expect(chooseServer({}, settings({ serverUrl: TEAM, uiToken: TOKEN }, null)).mode).toBe('team'); // Windows: no modes
  });

  it.each([
    ['a file others may read', settings({ serverUrl: TEAM, uiToken: TOKEN }, 0o100644), /chmod 600/],
    ['a group-readable file', settings({ serverUrl: TEAM, uiToken: TOKEN }, 0o100640), /chmod 600/],
    ['broken JSON', settings('{"serverUrl": '), /not valid JSON/],
    ['an array', settings([TEAM, TOKEN]), /one object/],
    ['null', settings('null'), /one object/],
    ['no token', settings({ serverUrl: TEAM }), /one object/],
    ['an empty token', settings({ serverUrl: TEAM, uiToken: '' }), /no valid UI token/],
    ['a short token', settings({ serverUrl: TEAM, uiToken: 'abc' }), /no valid UI token/],
    ['another field', settings({ serverUrl: TEAM, uiToken: TOKEN, extra: 1 }), /nothing else/],
    ['a number for the address', settings({ serverUrl: 443, uiToken: TOKEN }), /one object/],
    ['a bad address', settings({ serverUrl: 'http://team.example', uiToken: TOKEN }), /only for this computer/],
    ['a token in the address', settings({ serverUrl: `${TEAM}/#token=${TOKEN}`, uiToken: TOKEN }), /without a path/],
  ])('refuses, never falling back to this computer: %s', (_label, file, reason) => {
    const choice = chooseServer({}, file);
    expect(choice.mode).toBe('invalid');
    if (choice.mode === 'invalid') expect(choice.reason).toMatch(reason);
  });

  it('refuses a bad environment address rather than using the settings file or this computer', () => {
    const choice = chooseServer({ VERACITY_SERVER_URL: 'http://team.example', VERACITY_UI_TOKEN: TOKEN }, settings({ serverUrl: TEAM, uiToken: TOKEN }));
    expect(choice).toEqual({ mode: 'invalid', reason: expect.stringMatching(/VERACITY_SERVER_URL.*only for this computer/) });
  });

  it('writes and reads back the settings file, readable by its user only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-team-settings-'));
    try {
      const file = path.join(dir, 'sub', 'team-server.json');
      expect(readTeamSettings(file)).toBeNull();
      writeTeamSettings(file, teamSettingsText(TEAM, TOKEN));
      const read = readTeamSettings(file)!;
      if (process.platform !== 'win32') expect(read.mode! & 0o777).toBe(0o600);
      expect(chooseServer({}, read)).toEqual({ mode: 'team', baseUrl: TEAM, uiToken: TOKEN, source: 'settings' });
      expect(fs.readdirSync(path.dirname(file))).toEqual(['team-server.json']); // no temp file left
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start -- --connect / --disconnect', () => {
  it('takes the address from the command line and the token from the environment only', () => {
    expect(connectCommand(['--connect', 'https://team.example/'], { VERACITY_UI_TOKEN: TOKEN })).toEqual({ action: 'connect', baseUrl: 'https://team.example', uiToken: TOKEN });
    expect(connectCommand([`--connect=${TEAM}`], { VERACITY_UI_TOKEN: TOKEN })).toEqual({ action: 'connect', baseUrl: TEAM, uiToken: TOKEN });
    expect(connectCommand(['--connect', TEAM, TOKEN], {})).toEqual({ action: 'error', message: expect.stringMatching(/never taken from the command line/) });
    expect(connectCommand(['--connect', 'http://team.example'], { VERACITY_UI_TOKEN: TOKEN })).toEqual({ action: 'error', message: expect.stringMatching(/only for this computer/) });
    expect(connectCommand(['--connect'], { VERACITY_UI_TOKEN: TOKEN })).toEqual({ action: 'error', message: expect.stringMatching(/no address/) });
    expect(connectCommand(['--disconnect'], {})).toEqual({ action: 'disconnect' });
    expect(connectCommand(['--browser'], { VERACITY_UI_TOKEN: TOKEN })).toBeNull();
  });

  it('prints the team address with the token in the fragment', () => {
    expect(teamBrowserBanner({ baseUrl: TEAM, uiToken: TOKEN, source: 'settings' })).toContain(`${TEAM}/#token=${TOKEN}`);
  });
});

describe('the shell on a team server: exactly that origin', () => {
  it('builds its CSP for the team origin', () => {
    expect(normalizeOrigin(`${TEAM}/index.html#x`)).toBe(TEAM);
    const csp = contentSecurityPolicy(TEAM);
    expect(csp).toContain(`connect-src ${TEAM};`);
    expect(csp).toContain(`script-src ${TEAM};`);
    expect(csp).not.toMatch(/127\.0\.0\.1|\*/);
  });

  it('treats only that origin as the app', () => {
    expect(isAppUrl(`${TEAM}/`, TEAM)).toBe(true);
    expect(isAppUrl(`${TEAM}:443/cases`, TEAM)).toBe(true);
    for (const other of [
      'http://veracity.claims.example/',
      'https://veracity.claims.example:8443/',
      'https://evil.veracity.claims.example/',
      'https://veracity.claims.example.evil.example/',
      'https://user:pw@veracity.claims.example/',
      'http://127.0.0.1:8080/',
    ]) {
      expect(isAppUrl(other, TEAM), other).toBe(false);
    }
  });

  it('navigates, grants and answers IPC for that origin only', () => {
    expect(decideNavigation(`${TEAM}/`, TEAM)).toEqual({ action: 'allow' });
    expect(decideNavigation('http://127.0.0.1:43123/', TEAM)).toEqual({ action: 'deny' });
    expect(decideNavigation('https://example.org/help', TEAM)).toEqual({ action: 'open-external', url: 'https://example.org/help' });
    expect(decidePermission('clipboard-sanitized-write', `${TEAM}/`, TEAM)).toBe(true);
    expect(decidePermission('media', `${TEAM}/`, TEAM)).toBe(false);
    expect(decidePermission('clipboard-sanitized-write', 'https://example.org/', TEAM)).toBe(false);
    expect(isTrustedSender(`${TEAM}/`, TEAM)).toBe(true);
    expect(isTrustedSender('https://example.org/', TEAM)).toBe(false);
    expect(isTrustedSender('data:text/html,x', TEAM)).toBe(false);
  });

  it('still refuses origins the shell never hosts', () => {
    expect(() => normalizeOrigin('http://team.example')).toThrow();
    expect(() => normalizeOrigin('http://0.0.0.0:1')).toThrow();
    expect(() => normalizeOrigin('https://u:p@team.example')).toThrow();
    expect(() => normalizeOrigin('file:///etc/passwd')).toThrow();
  });
});
