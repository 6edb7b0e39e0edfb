// Whether the desktop window uses this computer's own core or a team server (README "Team server on PostgreSQL"),
// decided from the environment (VERACITY_SERVER_URL with VERACITY_UI_TOKEN) or the user's settings file
// (team-server.json in the data dir, readable by its user only). Pure functions, unit-tested without Electron; main.ts
// only reads the file and acts on the choice.

import { z } from 'zod';

export const SERVER_URL_ENV = 'VERACITY_SERVER_URL';
export const UI_TOKEN_ENV = 'VERACITY_UI_TOKEN';
export const TEAM_SETTINGS_FILE = 'team-server.json';

/** A team server's UI secret, as its API nodes require it (src/team-core.ts uiTokenFromEnv). */
const UI_TOKEN_SHAPE = /^[A-Za-z0-9_-]{32,256}$/;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Addresses that mean "every interface" and name no server. */
const UNSPECIFIED_HOSTS = new Set(['0.0.0.0', '[::]']);

/**
 * An origin the window may be loaded from: https on a real host, or plain http only on loopback (a team node on this
 * computer, or a tunnel to one), never with credentials. Used for the local core's address too.
 */
export function isServableOrigin(url: URL): boolean {
  if (url.username !== '' || url.password !== '') return false;
  const host = url.hostname.toLowerCase();
  if (host === '' || UNSPECIFIED_HOSTS.has(host)) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(host);
}

export type UrlCheck = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * A team server's address as a person types it: `https://veracity.claims.example` (a trailing slash allowed), or
 * `http://127.0.0.1:8080` on loopback. Nothing else: no user or password, no path, query or fragment (a token pasted
 * into the address would end up in logs), no whitespace, control characters or backslashes (parser differentials).
 */
export function parseTeamServerUrl(raw: unknown): UrlCheck {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'no address was given' };
  const text = raw.trim();
  if (text.length > 2048) return { ok: false, reason: 'the address is too long' };
  if (/[\u0000-\u0020\u007f\\]/.test(text)) return { ok: false, reason: 'the address contains spaces, control characters or backslashes' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'the address is not a URL (write it as https://host or https://host:port)' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `${url.protocol} is not https: or http:` };
  // '@' anywhere before the path is a user name, even an empty one (`https://@host`), which URL reports as none.
  if (url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/]*@/i.test(text)) {
    return { ok: false, reason: 'the address must not carry a user name or password' };
  }
  // Judged on the text as typed as well: URL resolves `/..` and `/./` to `/`, which is not what was written.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || !/^[a-z]+:\/\/[^/?#]*\/?$/i.test(text)) {
    return { ok: false, reason: 'give the server only, without a path, query or #fragment (the token goes in VERACITY_UI_TOKEN)' };
  }
  if (!isServableOrigin(url)) {
    return { ok: false, reason: url.protocol === 'http:' ? 'plain http is allowed only for this computer (127.0.0.1, [::1], localhost); use https' : 'the address names no server' };
  }
  return { ok: true, origin: url.origin };
}

export function isValidUiToken(token: unknown): token is string {
  return typeof token === 'string' && UI_TOKEN_SHAPE.test(token);
}

export type ServerChoice =
  | { mode: 'local' }
  | { mode: 'team'; baseUrl: string; uiToken: string; source: 'environment' | 'settings' }
  | { mode: 'invalid'; reason: string };

/** The settings file's shape (STYLE 10: zod at the boundary); the address and the token are then checked above. */
const TeamSettings = z.object({ serverUrl: z.string(), uiToken: z.string() }).strict();

/** What main.ts read of the settings file: its text and POSIX mode bits, or null when there is none. */
export interface SettingsFile {
  text: string;
  /** st_mode of the file; null where modes mean nothing (Windows). */
  mode: number | null;
  path: string;
}

function teamChoice(url: unknown, token: unknown, source: 'environment' | 'settings', where: string): ServerChoice {
  const checked = parseTeamServerUrl(url);
  if (!checked.ok) return { mode: 'invalid', reason: `The team server address in ${where} is not usable: ${checked.reason}.` };
  if (!isValidUiToken(token)) {
    return { mode: 'invalid', reason: `${where} names a team server but no valid UI token (at least 32 characters of A-Z, a-z, 0-9, - and _): ask its operator for VERACITY_UI_TOKEN.` };
  }
  return { mode: 'team', baseUrl: checked.origin, uiToken: token, source };
}

/**
 * The environment first (VERACITY_SERVER_URL, with its token in VERACITY_UI_TOKEN: a pair, never a URL from one place
 * and a secret from another), then the settings file `{"serverUrl": "...", "uiToken": "..."}`, else this computer.
 * A broken setting is an error to show, never a silent fall-back to the other kind of server: a specialist who asked
 * for the team server must not end up analysing on their own machine unaware, nor the other way round.
 * VERACITY_UI_TOKEN alone (the variable a team node itself reads) chooses nothing.
 */
export function chooseServer(env: Record<string, string | undefined>, settings: SettingsFile | null): ServerChoice {
  const envUrl = env[SERVER_URL_ENV]?.trim();
  if (envUrl) return teamChoice(envUrl, env[UI_TOKEN_ENV]?.trim(), 'environment', SERVER_URL_ENV);
  if (!settings) return { mode: 'local' };
  if (settings.mode !== null && (settings.mode & 0o077) !== 0) {
    return { mode: 'invalid', reason: `${settings.path} holds a secret but other users may read it: make it readable by you only (chmod 600 "${settings.path}").` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(settings.text);
  } catch {
    return { mode: 'invalid', reason: `${settings.path} is not valid JSON: write {"serverUrl": "https://...", "uiToken": "..."}, or remove the file to use this computer.` };
  }
  const shaped = TeamSettings.safeParse(parsed);
  if (!shaped.success) {
    return { mode: 'invalid', reason: `${settings.path} must hold one object {"serverUrl": "https://...", "uiToken": "..."} and nothing else.` };
  }
  return teamChoice(shaped.data.serverUrl, shaped.data.uiToken, 'settings', settings.path);
}

/** The settings file's content for a server (what `npm start -- --connect URL` writes, mode 0600). */
export function teamSettingsText(baseUrl: string, uiToken: string): string {
  return `${JSON.stringify({ serverUrl: baseUrl, uiToken }, null, 2)}\n`;
}

export type ConnectCommand = { action: 'connect'; baseUrl: string; uiToken: string } | { action: 'disconnect' } | { action: 'error'; message: string } | null;

/**
 * `npm start -- --connect URL` (the token from VERACITY_UI_TOKEN, never the command line, which other local users can
 * read) and `npm start -- --disconnect`: what to write to the settings file, or why not. null: neither was asked.
 */
export function connectCommand(argv: string[], env: Record<string, string | undefined>): ConnectCommand {
  if (argv.includes('--disconnect')) return { action: 'disconnect' };
  const index = argv.findIndex((a) => a === '--connect' || a.startsWith('--connect='));
  if (index < 0) return null;
  const raw = argv[index].startsWith('--connect=') ? argv[index].slice('--connect='.length) : argv[index + 1];
  const checked = parseTeamServerUrl(raw);
  if (!checked.ok) return { action: 'error', message: `--connect: ${checked.reason}.` };
  const token = env[UI_TOKEN_ENV]?.trim();
  if (!isValidUiToken(token)) {
    return { action: 'error', message: `--connect: set ${UI_TOKEN_ENV} to the team server's UI token (ask its operator); it is never taken from the command line.` };
  }
  return { action: 'connect', baseUrl: checked.origin, uiToken: token };
}

/** Browser mode (`npm start` without Electron) on a team server: the address to open, with the token in the fragment. */
export function teamBrowserBanner(choice: { baseUrl: string; uiToken: string; source: string }): string {
  return [
    '',
    `  Veracity is set to use the team server at ${choice.baseUrl} (from the ${choice.source}); no local engine is started.`,
    '  Open this address in a browser; it carries the team server\'s UI token (files you add go to that server):',
    '',
    `      ${choice.baseUrl}/#token=${choice.uiToken}`,
    '',
  ].join('\n');
}
