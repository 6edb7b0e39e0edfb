// The shell's security decisions (checklist 76-80): web preferences, CSP, navigation, new windows, permissions,
// IPC senders and external-link validation, tested as the plain functions main.ts wires into Electron.
import { describe, expect, it } from 'vitest';
import {
  contentSecurityPolicy,
  decideNavigation,
  decidePermission,
  decideWindowOpen,
  isAppUrl,
  isTrustedSender,
  normalizeOrigin,
  secureWebPreferences,
  validateExternalUrl,
} from '../../../main/security.js';
import { mainWindowOptions } from '../../../main/window-options.js';

const APP = 'http://127.0.0.1:43123';

describe('web preferences', () => {
  it('isolates, sandboxes and strips Node from every window (checklist 76)', () => {
    const prefs = mainWindowOptions({ preloadPath: '/x/preload.cjs' }).webPreferences;
    expect(prefs).toMatchObject({
      preload: '/x/preload.cjs',
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
      devTools: false,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
  });

  it('turns DevTools on only when asked', () => {
    expect(secureWebPreferences('/p', { devTools: true }).devTools).toBe(true);
    expect(secureWebPreferences('/p').devTools).toBe(false);
  });
});

describe('content security policy', () => {
  it('allows only the app origin, blob/data images, and nothing inline (checklist 77)', () => {
    const csp = contentSecurityPolicy(`${APP}/some/page?x=1`);
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual([APP]);
    expect(directives['connect-src']).toEqual([APP]);
    expect(directives['img-src']).toEqual([APP, 'blob:', 'data:']);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['base-uri']).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it('refuses to build a policy for anything but loopback http or an https origin (a team server: team-server.test.ts)', () => {
    expect(() => normalizeOrigin('http://example.org:1')).toThrow();
    expect(() => normalizeOrigin('http://10.0.0.5:1')).toThrow();
    expect(() => normalizeOrigin('http://0.0.0.0:1')).toThrow();
    expect(() => normalizeOrigin('ws://127.0.0.1:1')).toThrow();
    expect(normalizeOrigin('http://127.0.0.1:5/a#b')).toBe('http://127.0.0.1:5');
  });
});

describe('external URL validation', () => {
  it.each([
    ['https://example.org/model-card', 'https://example.org/model-card'],
    ['http://example.org', 'http://example.org/'],
    ['HTTPS://EXAMPLE.ORG/a?b=c#d', 'https://example.org/a?b=c#d'],
  ])('accepts %s', (raw, normalised) => {
    expect(validateExternalUrl(raw)).toBe(normalised);
  });

  it.each([
    'file:///etc/passwd',
    'smb://server/share',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'veracity://x',
    'ms-msdt:/id PCWDiagnostic',
    'https://user:pass@example.org/',
    'http://127.0.0.1:8080/',
    'http://127.1.2.3/',
    'http://localhost:3000/',
    'http://app.localhost/',
    'http://[::1]:80/',
    'http://0.0.0.0/',
    'https://intranet/',
    'https://example.org/\u0000x',
    'https://example.org/ -x',
    'https://exa mple.org',
    ' https://example.org',
    '//example.org',
    'example.org',
    '',
    'https://' + 'a'.repeat(3000) + '.org',
  ])('refuses %s', (raw) => {
    expect(validateExternalUrl(raw)).toBeNull();
  });

  it('refuses non-strings', () => {
    expect(validateExternalUrl(undefined)).toBeNull();
    expect(validateExternalUrl({ toString: () => 'https://example.org' })).toBeNull();
  });
});

describe('navigation and new windows (checklist 78)', () => {
  it('allows reloads of the app itself', () => {
    expect(isAppUrl(`${APP}/#/history`, APP)).toBe(true);
    expect(decideNavigation(`${APP}/`, APP)).toEqual({ action: 'allow' });
  });

  it('sends validated web links to the browser instead of navigating', () => {
    expect(decideNavigation('https://evil.example/', APP)).toEqual({ action: 'open-external', url: 'https://evil.example/' });
  });

  it('denies everything else, other local ports included', () => {
    for (const url of ['http://127.0.0.1:1/', 'http://localhost:43123/', 'file:///etc/passwd', 'data:text/html,x', 'about:blank', 'chrome://gpu']) {
      expect(decideNavigation(url, APP)).toEqual({ action: 'deny' });
    }
    expect(isAppUrl('not a url', APP)).toBe(false);
  });

  it('never opens a window of its own', () => {
    expect(decideWindowOpen(`${APP}/`)).toEqual({ action: 'deny', openExternal: null });
    expect(decideWindowOpen('https://example.org/')).toEqual({ action: 'deny', openExternal: 'https://example.org/' });
    expect(decideWindowOpen('file:///C:/Windows/System32/calc.exe')).toEqual({ action: 'deny', openExternal: null });
  });
});

describe('permissions (checklist 80) and IPC senders (checklist 79)', () => {
  it('denies every permission except clipboard writes from the app', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'hid', 'serial', 'usb', 'clipboard-read', 'openExternal', 'fullscreen']) {
      expect(decidePermission(p, `${APP}/`, APP)).toBe(false);
    }
    expect(decidePermission('clipboard-sanitized-write', `${APP}/`, APP)).toBe(true);
    expect(decidePermission('clipboard-sanitized-write', 'https://evil.example/', APP)).toBe(false);
  });

  it('answers IPC only to the app page, and restart also to the crash page', () => {
    expect(isTrustedSender(`${APP}/`, APP)).toBe(true);
    expect(isTrustedSender('https://evil.example/', APP)).toBe(false);
    expect(isTrustedSender(undefined, APP)).toBe(false);
    expect(isTrustedSender('data:text/html;charset=utf-8,x', null)).toBe(false);
    expect(isTrustedSender('data:text/html;charset=utf-8,x', null, true)).toBe(true);
    expect(isTrustedSender(`${APP}/`, null)).toBe(false);
  });
});
