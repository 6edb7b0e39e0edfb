// API keys in the window: the Settings screen lists a key by name and last characters only, shows a new key once
// with a copy button, and the window sends its own per-launch credential, never an API key, whatever keys exist.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ApplicationInfo } from '../../../src/api/app-schemas.js';
import { activeKeys } from '../../../renderer/lib/active-keys.js';
import { ApiClient, ApiFailure, type FetchLike } from '../../../renderer/lib/api-client.js';
import { NewKeyNotice, SettingsView } from '../../../renderer/components/settings-view.js';

const NOW = '2026-11-21T13:00:00.000Z';
const APP = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const KEY_ID = '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW9mLXRoZS1rZXktd3hZeg';

function application(overrides: Partial<ApplicationInfo> = {}): ApplicationInfo {
  return {
    id: APP,
    name: 'Images',
    kind: 'images',
    createdAt: NOW,
    keys: [{ id: KEY_ID, name: 'Claims tool', createdAt: NOW, expiresAt: null, revokedAt: null, hint: 'wxYz' }],
    windowKey: 'WINDOW-CREDENTIAL-OF-THIS-LAUNCH',
    ...overrides,
  };
}

describe('Settings lists keys by identity only', () => {
  it('shows a key as its name and last four characters, with no way to show or copy it', () => {
    (globalThis as { window?: unknown }).window = { location: { origin: 'http://127.0.0.1:5' } };
    try {
      const html = renderToStaticMarkup(
        createElement(SettingsView, { client: new ApiClient('', 'ui', async () => new Response('{}')), applications: [application()], onChanged: async () => {} }),
      );
      expect(html).toContain('Claims tool');
      expect(html).toContain('…wxYz');
      expect(html).not.toContain('WINDOW-CREDENTIAL-OF-THIS-LAUNCH');
      expect(html).not.toMatch(/>(Show|Copy)</);
      expect(html).toContain('shown once');
    } finally {
      delete (globalThis as { window?: unknown }).window;
    }
  });

  it('shows a new key in full once, with a copy button and the warning that it will not be shown again', () => {
    const html = renderToStaticMarkup(
      createElement(NewKeyNotice, { createdKey: { id: KEY_ID, name: 'Script key', createdAt: NOW, expiresAt: null, revokedAt: null, hint: 'wxYz', apiKey: JWT }, onDismiss: () => {} }),
    );
    expect(html).toContain(JWT);
    expect(html).toContain('>Copy<');
    expect(html).toContain('only time Veracity shows it');
  });
});

describe('ApiClient and new keys', () => {
  it('returns the key sent once on creation, and refuses a creation answer without it', async () => {
    const created = { id: KEY_ID, name: 'k', createdAt: NOW, expiresAt: null, revokedAt: null, hint: 'wxYz', apiKey: JWT };
    const seen: string[] = [];
    const fetchImpl: FetchLike = async (url) => {
      seen.push(url);
      return new Response(JSON.stringify(created), { status: 201, headers: { 'content-type': 'application/json' } });
    };
    expect((await new ApiClient('http://127.0.0.1:5', 'ui', fetchImpl).createKey(APP, { name: 'k' })).apiKey).toBe(JWT);
    expect(seen).toEqual([`http://127.0.0.1:5/app/applications/${APP}/keys`]);
    const { apiKey: _dropped, ...listed } = created;
    const bare = new ApiClient('', 'ui', async () => new Response(JSON.stringify(listed), { status: 201 }));
    expect(((await bare.createKey(APP, {}).catch((e: unknown) => e)) as ApiFailure).kind).toBe('invalid-response');
  });
});

describe('activeKeys', () => {
  it("uses each kind's first application's window credential, whatever its API keys (revoked, expired or none)", () => {
    const apps = [
      application({ id: 'a1', keys: [{ id: 'k1', name: 'old', createdAt: NOW, expiresAt: null, revokedAt: NOW, hint: 'AAAA' }], windowKey: 'W1' }),
      application({ id: 'a2', name: 'More images', windowKey: 'W2' }),
      application({ id: 'a3', name: 'PDFs', kind: 'pdfs', keys: [], windowKey: 'W3' }),
    ];
    expect(activeKeys(apps)).toEqual({ images: { applicationId: 'a1', apiKey: 'W1' }, pdfs: { applicationId: 'a3', apiKey: 'W3' } });
  });
});
