// The wiring of security.ts into Electron's session and web contents, driven through stand-ins with the same
// methods and events (Electron's binary cannot run here): every handler is installed and acts on the decisions.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Session, WebContents } from 'electron';
import { applyContentsSecurity, applySessionSecurity, type SecurityHooks } from '../../../main/security.js';

const APP = 'http://127.0.0.1:40001';

function hooks(origin: string | null = APP): SecurityHooks & { opened: string[]; logged: string[] } {
  const opened: string[] = [];
  const logged: string[] = [];
  return { appOrigin: () => origin, openExternal: (u) => opened.push(u), log: (m) => logged.push(m), opened, logged };
}

function event(extra: object = {}): { prevented: boolean; preventDefault: () => void } & Record<string, unknown> {
  const e = { prevented: false, preventDefault: () => (e.prevented = true), ...extra };
  return e;
}

class FakeContents extends EventEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  getURL(): string {
    return `${APP}/`;
  }
}

type RequestHandler = (contents: { getURL: () => string }, permission: string, callback: (ok: boolean) => void) => void;
type CheckHandler = (contents: unknown, permission: string, origin: string) => boolean;
type HeadersHandler = (details: { url: string; responseHeaders?: Record<string, string[]> }, callback: (r: { responseHeaders?: Record<string, string[]> }) => void) => void;

class FakeSession extends EventEmitter {
  request: RequestHandler | null = null;
  check: CheckHandler | null = null;
  headers: HeadersHandler | null = null;
  webRequest = { onHeadersReceived: (h: HeadersHandler) => (this.headers = h) };
  setPermissionRequestHandler(h: RequestHandler): void {
    this.request = h;
  }
  setPermissionCheckHandler(h: CheckHandler): void {
    this.check = h;
  }
}

describe('applyContentsSecurity', () => {
  const setup = (origin: string | null = APP) => {
    const contents = new FakeContents();
    const h = hooks(origin);
    applyContentsSecurity(contents as unknown as WebContents, h);
    return { contents, h };
  };

  it('keeps navigation on the app and sends web links to the browser', () => {
    const { contents, h } = setup();
    const reload = event();
    contents.emit('will-navigate', reload, `${APP}/`);
    expect(reload.prevented).toBe(false);
    const away = event();
    contents.emit('will-navigate', away, 'https://example.org/help');
    expect(away.prevented).toBe(true);
    expect(h.opened).toEqual(['https://example.org/help']);
    const file = event();
    contents.emit('will-redirect', file, 'file:///etc/passwd');
    expect(file.prevented).toBe(true);
    expect(h.opened).toHaveLength(1);
  });

  it('refuses all navigation while the core is down (crash screen)', () => {
    const { contents } = setup(null);
    const e = event();
    contents.emit('will-navigate', e, `${APP}/`);
    expect(e.prevented).toBe(true);
  });

  it('denies new windows, subframe navigation and webviews', () => {
    const { contents, h } = setup();
    expect(contents.windowOpenHandler?.({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: `${APP}/#/x` })).toEqual({ action: 'deny' });
    expect(h.opened).toEqual(['https://example.org/']);
    const sub = event({ isMainFrame: false });
    contents.emit('will-frame-navigate', sub);
    expect(sub.prevented).toBe(true);
    const main = event({ isMainFrame: true });
    contents.emit('will-frame-navigate', main);
    expect(main.prevented).toBe(false);
    const webview = event();
    contents.emit('will-attach-webview', webview, {}, {});
    expect(webview.prevented).toBe(true);
  });
});

describe('applySessionSecurity', () => {
  const setup = () => {
    const session = new FakeSession();
    const h = hooks();
    applySessionSecurity(session as unknown as Session, h);
    return { session, h };
  };

  it('denies permission requests and checks except clipboard writes from the app', () => {
    const { session } = setup();
    const answers: boolean[] = [];
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-sanitized-write']) session.request?.({ getURL: () => `${APP}/` }, p, (ok) => answers.push(ok));
    expect(answers).toEqual([false, false, false, true]);
    expect(session.check?.(null, 'clipboard-sanitized-write', APP)).toBe(true);
    expect(session.check?.(null, 'clipboard-sanitized-write', 'https://evil.example')).toBe(false);
  });

  it('adds the CSP to the app responses only', () => {
    const { session } = setup();
    let headers: Record<string, string[]> | undefined;
    session.headers?.({ url: `${APP}/index.html`, responseHeaders: { 'content-type': ['text/html'] } }, (r) => (headers = r.responseHeaders));
    expect(headers?.['Content-Security-Policy']?.[0]).toMatch(/^default-src 'none'; script-src http:\/\/127\.0\.0\.1:40001/);
    expect(headers?.['content-type']).toEqual(['text/html']);
    session.headers?.({ url: 'https://example.org/', responseHeaders: {} }, (r) => (headers = r.responseHeaders));
    expect(headers).toEqual({});
  });

  it('allows only downloads of the app’s own blob: reports', () => {
    const { session, h } = setup();
    const item = (url: string) => ({ getURL: () => url });
    const ok = event();
    session.emit('will-download', ok, item(`blob:${APP}/5b3c`));
    expect(ok.prevented).toBe(false);
    for (const url of ['https://evil.example/x.exe', 'blob:https://evil.example/1', `${APP}/v1/jobs`]) {
      const bad = event();
      session.emit('will-download', bad, item(url));
      expect(bad.prevented).toBe(true);
    }
    expect(h.logged.filter((l) => l.startsWith('download refused'))).toHaveLength(3);
  });
});

describe('wired for a team server (main/team-server.ts): its origin only, the local core none of the app', () => {
  const TEAM = 'https://veracity.claims.example';

  it('navigates, grants, adds the CSP and downloads for the team origin, and nothing else', () => {
    const session = new FakeSession();
    const contents = new FakeContents();
    const h = hooks(TEAM);
    applySessionSecurity(session as unknown as Session, h);
    applyContentsSecurity(contents as unknown as WebContents, h);

    const stay = event();
    contents.emit('will-navigate', stay, `${TEAM}/`);
    expect(stay.prevented).toBe(false);
    for (const url of [`${APP}/`, 'http://veracity.claims.example/', 'https://veracity.claims.example:8443/']) {
      const away = event();
      contents.emit('will-navigate', away, url);
      expect(away.prevented, url).toBe(true);
    }

    const answers: boolean[] = [];
    session.request?.({ getURL: () => `${TEAM}/` }, 'clipboard-sanitized-write', (ok) => answers.push(ok));
    session.request?.({ getURL: () => `${APP}/` }, 'clipboard-sanitized-write', (ok) => answers.push(ok));
    expect(answers).toEqual([true, false]);

    let headers: Record<string, string[]> | undefined;
    session.headers?.({ url: `${TEAM}/index.html`, responseHeaders: {} }, (r) => (headers = r.responseHeaders));
    expect(headers?.['Content-Security-Policy']?.[0]).toContain(`connect-src ${TEAM};`);
    session.headers?.({ url: `${APP}/index.html`, responseHeaders: {} }, (r) => (headers = r.responseHeaders));
    expect(headers).toEqual({});

    const report = event();
    session.emit('will-download', report, { getURL: () => `blob:${TEAM}/5b3c` });
    expect(report.prevented).toBe(false);
    const local = event();
    session.emit('will-download', local, { getURL: () => `blob:${APP}/5b3c` });
    expect(local.prevented).toBe(true);
  });
});
