// The attack run's key finding (issue #10, item 10), replayed: someone who gets a copy of the database (a backup,
// a file left readable by an older version) reads it and tries every key-looking string in it against the API,
// then rebuilds each stored key's header and claims from its row and tries every signature-looking string with them.
// The data dir is an upgraded one: keys the previous version stored in plain text, keys made since (CLI, Settings,
// a new application), one revoked, and the window's credentials in use. Nothing found in the file authenticates.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOrCreateSecret } from '../../src/auth/api-keys.js';
import { migrate } from '../../src/db/connection.js';
import { AUTH_FAILURES_MAX } from '../../src/server/app.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { keysOf, removeTempDirs, serve, tempDir, writeReport, type Served } from './harness.js';

const counts: Record<string, number> = {};
const notes: string[] = [];
afterAll(() => {
  writeReport({ suite: 'attack-run-keys', counts, lost: 0, notes });
  removeTempDirs();
});

const UI_TOKEN = `attack-ui-${crypto.randomBytes(12).toString('hex')}`;
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** The previous version's data dir: schema 1, its keys in the token column, some only in WAL frames (killed, not closed). */
async function previousVersionDataDir(dataDir: string): Promise<{ token: string; app: string; revoked: boolean }[]> {
  const secret = loadOrCreateSecret(dataDir);
  const staging = tempDir('veracity-attack-v1-');
  const db = new Database(path.join(staging, 'veracity.db'));
  db.pragma('journal_mode = WAL');
  migrate(db, MIGRATIONS.filter((m) => m.id === 1));
  const apps = { images: crypto.randomUUID(), pdfs: crypto.randomUUID() };
  const created = new Date(Date.now() - 7 * 86_400_000);
  for (const [kind, id] of Object.entries(apps)) db.prepare('INSERT INTO applications (id, name, kind, created_at) VALUES (?, ?, ?, ?)').run(id, kind === 'images' ? 'Images' : 'PDFs', kind, created.toISOString());
  const keys: { token: string; app: string; revoked: boolean }[] = [];
  for (let i = 0; i < 12; i++) {
    const id = crypto.randomUUID();
    const app = i % 2 ? apps.pdfs : apps.images;
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer('veracity').setAudience('veracity-api').setSubject(app).setJti(id).setIssuedAt(Math.floor(created.getTime() / 1000)).sign(secret);
    const revoked = i === 5;
    db.prepare('INSERT INTO api_keys (id, application_id, name, token, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL, ?)').run(id, app, `old key ${i}`, token, created.toISOString(), revoked ? new Date().toISOString() : null);
    keys.push({ token, app, revoked });
    if (i === 5) db.pragma('wal_checkpoint(PASSIVE)');
  }
  fs.copyFileSync(path.join(staging, 'veracity.db'), path.join(dataDir, 'veracity.db'));
  fs.copyFileSync(path.join(staging, 'veracity.db-wal'), path.join(dataDir, 'veracity.db-wal'));
  db.close();
  return keys;
}

/** Every file an attacker could copy from the data dir, except the installation secret and the uploaded files. */
function stolenBytes(dataDir: string): Buffer {
  const out: Buffer[] = [];
  for (const entry of fs.readdirSync(dataDir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dataDir, full);
    if (!entry.isFile() || rel === 'secret.key' || rel.startsWith(`files${path.sep}`)) continue;
    out.push(fs.readFileSync(full));
  }
  return Buffer.concat(out);
}

/**
 * Key-looking strings: every run of bearer-token characters of 16 or more, and every JWT-shaped piece inside one,
 * also cut to an HS256 signature's 43 characters (in a SQLite record the next column's text follows the key at once).
 */
function candidates(bytes: Buffer): Set<string> {
  const text = bytes.toString('latin1');
  const found = new Set<string>();
  for (const run of text.match(/[A-Za-z0-9_.~+/=-]{16,}/g) ?? []) {
    found.add(run);
    for (const jwt of run.match(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g) ?? []) {
      found.add(jwt);
      const [h, p, sig] = jwt.split('.');
      if (sig.length > 43) found.add(`${h}.${p}.${sig.slice(0, 43)}`);
    }
  }
  return found;
}

/**
 * GET `target` with `token` from a loopback address of its own every AUTH_FAILURES_MAX - 1 tries: the server counts
 * refused credentials per client and, past the limit, answers 429 without verifying, so a single address would stop
 * testing the candidates after a few dozen. The attacker here has as many addresses as it needs (127.0.0.0/8).
 */
let tries = 0;
function tryToken(srv: Served, target: string, token: string): Promise<number> {
  const n = Math.floor(tries++ / (AUTH_FAILURES_MAX - 1));
  const localAddress = `127.${100 + ((n >> 16) & 0x7f)}.${(n >> 8) & 0xff}.${(n & 0xff) + 1}`;
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: srv.port, path: target, localAddress, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
      .on('error', reject);
  });
}

/** The status, which must be one of `allowed`: a 429 would mean the candidate was not verified at all. */
function verified(status: number, allowed: number[]): number {
  expect(allowed).toContain(status);
  return status;
}

/** Whether the API accepts `token` as a credential (anything but 401: a key of another application gets 403). */
async function authenticates(srv: Served, token: string, applicationId: string): Promise<boolean> {
  const status = verified(await tryToken(srv, `/v1/jobs?applicationId=${applicationId}&pageSize=1`, token), [200, 401, 403]);
  counts.apiTries = (counts.apiTries ?? 0) + 1;
  return status !== 401;
}

async function appRouteAccepts(srv: Served, token: string): Promise<boolean> {
  const status = verified(await tryToken(srv, '/app/applications', token), [200, 401]);
  counts.appTries = (counts.appTries ?? 0) + 1;
  return status !== 401;
}

/** What the stolen database tells about each key: enough to rebuild its header and claims exactly. */
function keyRows(bytesDir: string): { id: string; app: string; createdAt: string; expiresAt: string | null; digest: string; hint: string }[] {
  const copy = tempDir('veracity-stolen-');
  for (const f of ['veracity.db', 'veracity.db-wal']) if (fs.existsSync(path.join(bytesDir, f))) fs.copyFileSync(path.join(bytesDir, f), path.join(copy, f));
  const db = new Database(path.join(copy, 'veracity.db'));
  try {
    return db.prepare('SELECT id, application_id AS app, created_at AS createdAt, expires_at AS expiresAt, token_sha256 AS digest, token_hint AS hint FROM api_keys').all() as ReturnType<typeof keyRows>;
  } finally {
    db.close();
  }
}

const rebuiltHead = (row: { id: string; app: string; createdAt: string; expiresAt: string | null }) =>
  `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'veracity', aud: 'veracity-api', sub: row.app, jti: row.id, iat: Math.floor(Date.parse(row.createdAt) / 1000), ...(row.expiresAt ? { exp: Math.floor(Date.parse(row.expiresAt) / 1000) } : {}) })}`;

describe('attack run: API keys from a copy of the database', () => {
  it('finds no string in the data dir that authenticates, even with each key rebuilt from its row', { timeout: 240_000 }, async () => {
    const dataDir = tempDir('veracity-attack-');
    const oldKeys = await previousVersionDataDir(dataDir);
    const env = { REL_CONFIG: JSON.stringify({ uiToken: UI_TOKEN, rateLimitMax: 1_000_000 }) };
    let srv = await serve({ dataDir, modelsDir: tempDir('veracity-nomodel-'), env });
    const ui = { authorization: `Bearer ${UI_TOKEN}`, 'content-type': 'application/json' };
    try {
      // Keys made since the upgrade, the ways a user makes them; one of them revoked.
      const cli = keysOf(dataDir);
      const viaSettings = (await (await fetch(`${srv.base}/app/applications/${cli.imagesAppId}/keys`, { method: 'POST', headers: ui, body: JSON.stringify({ name: 'Scanner', expiresInDays: 30 }) })).json()) as { id: string; apiKey: string };
      const newApp = (await (await fetch(`${srv.base}/app/applications`, { method: 'POST', headers: ui, body: JSON.stringify({ name: 'Batch', kind: 'pdfs' }) })).json()) as { id: string; createdKey: { id: string; apiKey: string } };
      const revokedNew = (await (await fetch(`${srv.base}/app/applications/${cli.pdfsAppId}/keys`, { method: 'POST', headers: ui, body: '{}' })).json()) as { id: string; apiKey: string };
      expect((await fetch(`${srv.base}/app/keys/${revokedNew.id}/revoke`, { method: 'POST', headers: { authorization: ui.authorization } })).status).toBe(200);
      // The window at work with its own credentials.
      const listing = (await (await fetch(`${srv.base}/app/applications`, { headers: { authorization: ui.authorization } })).json()) as { applications: { id: string; windowKey: string }[] };
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await makeJpeg(64, 64))]), 'window.jpg');
      const windowKeys = listing.applications.map((a) => ({ app: a.id, token: a.windowKey }));
      expect([200, 202]).toContain((await fetch(`${srv.base}/v1/assess?wait=false`, { method: 'POST', headers: { authorization: `Bearer ${windowKeys.find((k) => k.app === cli.imagesAppId)!.token}` }, body: form })).status);

      const held = [
        ...oldKeys.filter((k) => !k.revoked).map((k) => ({ token: k.token, app: k.app })),
        { token: cli.images, app: cli.imagesAppId },
        { token: cli.pdfs, app: cli.pdfsAppId },
        { token: viaSettings.apiKey, app: cli.imagesAppId },
        { token: newApp.createdKey.apiKey, app: newApp.id },
        ...windowKeys,
      ];
      // Controls: every credential we hold works, and the extractor finds a key wherever one is written.
      for (const k of held) expect(await authenticates(srv, k.token, k.app)).toBe(true);
      expect(candidates(Buffer.from(`x\u0001${cli.images}\u0002y`)).has(cli.images)).toBe(true);
      expect(candidates(Buffer.from(`\u0003${cli.images}2026-11-21T13:00:00.000Z`)).has(cli.images)).toBe(true); // as a schema-1 row held it
      const stored = keyRows(dataDir);
      const known = stored.find((r) => r.id === JSON.parse(Buffer.from(cli.images.split('.')[1], 'base64url').toString()).jti)!;
      expect(rebuiltHead(known)).toBe(cli.images.split('.').slice(0, 2).join('.')); // the rebuild is exact: only the signature is missing

      const attack = async (phase: string, bytes: Buffer, rows: ReturnType<typeof keyRows>, target: Served) => {
        const found = candidates(bytes);
        counts[`${phase}Candidates`] = found.size;
        counts[`${phase}JwtShaped`] = [...found].filter((c) => /^eyJ/.test(c)).length;
        const accepted: string[] = [];
        for (const c of found) {
          if (await authenticates(target, c, cli.imagesAppId)) accepted.push(`${c} (/v1)`);
          if (await appRouteAccepts(target, c)) accepted.push(`${c} (/app)`);
        }
        // Offline: each row's rebuilt header and claims with every 43-character signature-looking string that ends
        // with the row's stored last four characters, checked against the stored digest; a match would then be tried
        // on the API.
        const text = bytes.toString('latin1');
        let offline = 0;
        for (const row of rows) {
          for (let at = text.indexOf(row.hint); at >= 0; at = text.indexOf(row.hint, at + 1)) {
            const sig = text.slice(at + 4 - 43, at + 4);
            if (!/^[A-Za-z0-9_-]{43}$/.test(sig)) continue;
            offline++;
            const guess = `${rebuiltHead(row)}.${sig}`;
            if (crypto.createHash('sha256').update(guess).digest('hex') === row.digest && (await authenticates(target, guess, row.app))) accepted.push(`${guess} (rebuilt)`);
          }
        }
        counts[`${phase}OfflineGuesses`] = offline;
        for (const k of held) if (bytes.includes(k.token.split('.')[2])) accepted.push(`signature of a held key in the files (${phase})`);
        if (accepted.length) notes.push(`${phase}: ${accepted.length} credentials found in the data dir`);
        return accepted;
      };

      // While the core runs (database, WAL, shared memory as they are), then at rest after a clean stop.
      expect(await attack('running', stolenBytes(dataDir), stored, srv)).toEqual([]);
      await srv.stop();
      const atRest = stolenBytes(dataDir);
      const rowsAtRest = keyRows(dataDir);
      srv = await serve({ dataDir, modelsDir: tempDir('veracity-nomodel-'), env });
      expect(await attack('atRest', atRest, rowsAtRest, srv)).toEqual([]);
      // Still a fair fight: the API keys we hold work after the restart; the window's credentials of the first
      // launch do not (per launch, in memory only).
      for (const k of held.slice(0, -windowKeys.length)) expect(await authenticates(srv, k.token, k.app)).toBe(true);
      for (const k of windowKeys) expect(await authenticates(srv, k.token, k.app)).toBe(false);
      counts.heldKeys = held.length;
      counts.storedKeyRows = rowsAtRest.length;
    } finally {
      await srv.stop();
    }
  });
});
