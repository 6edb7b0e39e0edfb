// The shell's security policy in one place (STYLE 9): web preferences, CSP, navigation/new-window/permission decisions
// and external-link validation, as plain functions unit-tested without Electron, plus the one function that wires them.
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { isServableOrigin } from './team-server.js';

/** webPreferences of every window (reliability checklist 76): the renderer gets no Node, no privileges, no webview. */
export function secureWebPreferences(
  preloadPath: string,
  options: { devTools?: boolean } = {},
): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInSubFrames: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
    // DevTools only for a developer who asks for them; never in a packaged build (checklist 84).
    devTools: options.devTools === true,
  };
}

/**
 * The Content-Security-Policy of the app's pages (checklist 77). Everything comes from the core's own origin (this
 * computer's core, or the one team server the user chose: main/team-server.ts);
 * thumbnails are blob: URLs made from fetched bytes; no inline script, no eval, no frames, no forms posting away.
 */
export function contentSecurityPolicy(appOrigin: string): string {
  const origin = normalizeOrigin(appOrigin);
  return [
    "default-src 'none'",
    `script-src ${origin}`,
    `connect-src ${origin}`,
    `img-src ${origin} blob: data:`,
    `style-src ${origin}`,
    `worker-src ${origin} blob:`,
    `font-src ${origin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
  ].join('; ');
}

/**
 * The origin of any URL on it; throws on an origin the shell never hosts. The local core is always
 * `http://127.0.0.1:PORT`; a team server is https, or plain http on loopback only, and never carries credentials.
 */
export function normalizeOrigin(url: string): string {
  const parsed = new URL(url);
  if (!isServableOrigin(parsed)) {
    throw new Error(`The app origin must be http://127.0.0.1:PORT or a team server's https:// origin, got ${parsed.origin}`);
  }
  return parsed.origin;
}

/** True when `url` is a page of the app itself: same scheme, host and port as the core, and no credentials in it. */
export function isAppUrl(url: string, appOrigin: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '' && parsed.origin === normalizeOrigin(appOrigin);
  } catch {
    return false;
  }
}

/**
 * A link the user may open in their own browser: http(s) only, parsed with URL (never startsWith), no credentials,
 * a real host, and never loopback (a page on 127.0.0.1 belongs to the app or to something we must not poke).
 * Returns the normalised URL or null.
 */
export function validateExternalUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2048) return null;
  // Control characters and whitespace inside a URL are how argument injection into OS URL handlers starts.
  if (/[\u0000-\u0020\u007f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '') return null;
  const host = url.hostname.toLowerCase();
  if (host === '' || (!host.includes('.') && !host.startsWith('['))) return null;
  if (isLoopbackHost(host)) return null;
  return url.toString();
}

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(host)) return true;
  if (host === '[::1]' || host === '0.0.0.0' || host === '[::]') return true;
  return false;
}

export type NavigationDecision = { action: 'allow' } | { action: 'deny' } | { action: 'open-external'; url: string };

/**
 * What to do when the page tries to navigate (`will-navigate`, `will-redirect`): staying on the app's origin is
 * allowed (a reload); a validated http(s) link goes to the user's browser; everything else (file:, data:, custom
 * schemes, other local ports) is refused.
 */
export function decideNavigation(url: string, appOrigin: string): NavigationDecision {
  if (isAppUrl(url, appOrigin)) return { action: 'allow' };
  const external = validateExternalUrl(url);
  if (external) return { action: 'open-external', url: external };
  return { action: 'deny' };
}

/** `setWindowOpenHandler`: the app never opens a second window of its own; external links go to the browser. */
export function decideWindowOpen(url: string): { action: 'deny'; openExternal: string | null } {
  return { action: 'deny', openExternal: validateExternalUrl(url) };
}

/**
 * Permission requests and checks (checklist 80): everything is denied except writing to the clipboard from the
 * app's own pages (the Settings screen's "Copy" button for API keys).
 */
export function decidePermission(permission: string, requestingUrl: string, appOrigin: string): boolean {
  if (!isAppUrl(requestingUrl, appOrigin)) return false;
  return permission === 'clipboard-sanitized-write';
}

/** IPC callers must be the app's own top frame (checklist 79); `senderUrl` is `event.senderFrame.url`. */
export function isTrustedSender(senderUrl: string | undefined, appOrigin: string | null, allowCrashPage = false): boolean {
  if (!senderUrl) return false;
  if (allowCrashPage && senderUrl.startsWith('data:text/html')) return true;
  return appOrigin !== null && isAppUrl(senderUrl, appOrigin);
}

export interface SecurityHooks {
  /** The current origin of the core, or null while it is not running (e.g. on the crash screen). */
  appOrigin: () => string | null;
  openExternal: (url: string) => void;
  log: (message: string) => void;
}

/** Wires the decisions above into a session and a window's web contents. */
export function applySessionSecurity(session: Session, hooks: SecurityHooks): void {
  session.setPermissionRequestHandler((webContents, permission, callback) => {
    const origin = hooks.appOrigin();
    const ok = origin !== null && decidePermission(permission, webContents.getURL(), origin);
    if (!ok) hooks.log(`permission denied: ${permission}`);
    callback(ok);
  });
  session.setPermissionCheckHandler((_webContents, permission, requestingOrigin) => {
    const origin = hooks.appOrigin();
    return origin !== null && decidePermission(permission, requestingOrigin, origin);
  });
  // The CSP is also sent by the core and set by a meta tag in the page; this header covers every response the
  // window receives, whoever serves it.
  session.webRequest.onHeadersReceived((details, callback) => {
    const origin = hooks.appOrigin();
    if (origin === null || !isAppUrl(details.url, origin)) {
      callback({ responseHeaders: details.responseHeaders });
      return;
    }
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [contentSecurityPolicy(origin)] },
    });
  });
  // Nothing is ever downloaded by the shell except the reports the user exports (blob: URLs of the app page).
  session.on('will-download', (event, item) => {
    const origin = hooks.appOrigin();
    const url = item.getURL();
    if (!url.startsWith('blob:') || origin === null || !isAppUrl(url.slice('blob:'.length), origin)) {
      hooks.log(`download refused: ${url.slice(0, 200)}`);
      event.preventDefault();
    }
  });
}

export function applyContentsSecurity(contents: WebContents, hooks: SecurityHooks): void {
  const onNavigate = (event: { preventDefault: () => void }, url: string): void => {
    const origin = hooks.appOrigin();
    const decision = origin === null ? { action: 'deny' as const } : decideNavigation(url, origin);
    if (decision.action === 'allow') return;
    event.preventDefault();
    if (decision.action === 'open-external') hooks.openExternal(decision.url);
    else hooks.log(`navigation denied: ${url.slice(0, 200)}`);
  };
  contents.on('will-navigate', onNavigate);
  contents.on('will-redirect', onNavigate);
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.openExternal) hooks.openExternal(decision.openExternal);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    hooks.log('webview refused');
    event.preventDefault();
  });
}
