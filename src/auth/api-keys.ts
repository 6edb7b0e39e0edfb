// API keys are JWTs (HS256, one fixed algorithm) signed by a per-installation secret kept in the data dir,
// checked for signature, algorithm, expiry and revocation (DECISIONS 25-26). Failures never say which check failed.
// The database keeps a key's SHA-256 only, so a copy of veracity.db holds no usable key; a key is shown once, when
// it is made. The window has credentials of its own, signed with a key that exists only in this process's memory
// (a team server's nodes share one, derived from their common secret).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT, decodeJwt, jwtVerify } from 'jose';
import type { ApiKeyInfo, ApplicationInfo } from '../api/app-schemas.js';
import type { PipelineKind } from '../api/schemas.js';
import type { ApiKeyRecord, Application, ApplicationsRepository } from '../db/applications-repository.js';
import { createSqliteKeyStore } from '../db/sqlite-stores.js';
import type { KeyRows, KeyStore } from '../db/stores.js';
import { NotFound } from '../api/domain-errors.js';

const ALG = 'HS256';
const ISSUER = 'veracity';
const AUDIENCE = 'veracity-api';
/** The window's per-launch credentials: another audience, another signing key, never an API key. */
const WINDOW_AUDIENCE = 'veracity-window';

/**
 * The digest stored for a key. Plain SHA-256 is right here, not a slow password hash (bcrypt, scrypt, argon2):
 * a key is a signed JWT whose 256-bit HMAC signature is random to anyone without the installation secret, so
 * nobody can guess keys against the digest, and every request can afford to compute it.
 */
export function keyDigest(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** The last four characters, from the signature: they tell keys apart and reveal 24 of its 256 bits. */
export function keyHint(token: string): string {
  return token.slice(-4);
}

/** A secret restored from a copy with a looser mode is made its user's only again (best effort: not ours, no change). */
function narrowToOwner(file: string): void {
  if (process.platform === 'win32') return;
  try {
    fs.chmodSync(file, 0o600);
  } catch {
    // Reading it worked; a mode we may not change is no reason to stop.
  }
}

/** Reads the installation secret, creating it (0600, atomically) on first use. */
export function loadOrCreateSecret(dataDir: string): Uint8Array {
  const file = path.join(dataDir, 'secret.key');
  try {
    const buf = fs.readFileSync(file);
    if (buf.length < 32) throw new Error(`Installation secret ${file} is too short; refusing to use it.`);
    narrowToOwner(file);
    return new Uint8Array(buf);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(64);
  const tmp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, secret);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    // link() fails if another process created the secret meanwhile: then use theirs.
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return new Uint8Array(fs.readFileSync(file));
}

export interface Principal {
  applicationId: string;
  /** The API key's id, or `window:<applicationId>` for the window (the rate limit counts per keyId). */
  keyId: string;
  kind: PipelineKind;
}

/** A key as listed: its identity, never the key. */
export const keyInfo = (k: ApiKeyRecord): ApiKeyInfo => ({
  id: k.id,
  name: k.name,
  createdAt: k.createdAt,
  expiresAt: k.expiresAt,
  revokedAt: k.revokedAt,
  hint: k.hint,
});

/**
 * A bearer token that passed every check once (signature, claims, stored digest), kept so that the next request
 * with the same token skips the HMAC and the claim parsing (a quarter of the server's CPU under load, see
 * test/bench/README.md), and with it the state of its key as last read: the key's row is read again only when the
 * key store's revocation signal (KeyStore.keysRevision) says some key may have changed since, when there is no
 * signal, or at least every KEY_RECHECK_MS. Expiry is checked on every request from what is kept.
 */
interface Verified {
  principal: Principal;
  /** The stored digest it was checked against; null for the window's credential (not revocable). */
  digest: string | null;
  /** When it stops being valid (ms): the earlier of the key's stored expiry and its `exp` claim (plus tolerance). */
  untilMs: number;
  /** The key store's revision when the key's row was last read (null: no signal then), and when (ms). */
  revision: number | null;
  checkedAtMs: number;
}
/**
 * Every credential is a JWT with the same header and claims, told apart by audience and signing key: one algorithm,
 * our issuer, the application as subject, a unique id, the time it was made and, for an expiring key, its end.
 */
async function signCredential(key: CryptoKey, audience: string, c: { sub: string; jti: string; issuedAt: Date; expiresAt?: Date | null }): Promise<string> {
  let jwt = new SignJWT({})
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject(c.sub)
    .setJti(c.jti)
    .setIssuedAt(Math.floor(c.issuedAt.getTime() / 1000));
  if (c.expiresAt) jwt = jwt.setExpirationTime(Math.floor(c.expiresAt.getTime() / 1000));
  return jwt.sign(key);
}

/** The checks every credential must pass, whatever else its kind asks (the time, for API keys). */
const verifyCredential = (token: string, key: CryptoKey, audience: string, at?: { currentDate: Date; clockTolerance: number }) =>
  jwtVerify(token, key, { algorithms: [ALG], issuer: ISSUER, audience, requiredClaims: ['sub', 'jti', 'iat'], ...at });

/** Distinct verified tokens kept at once: far more than a desktop's tools use; the cache is emptied when full. */
const VERIFIED_MAX = 1024;
const CLOCK_TOLERANCE_S = 30;
/**
 * A kept key's row is read again at least this often whatever the revocation signal says: a bound on a signal that
 * failed unnoticed (a team node's listening connection cut without an error), at one row read per key and second.
 */
export const KEY_RECHECK_MS = 1000;

/** A key as made: the only moment its text exists outside the client that receives it. */
export interface IssuedKey extends ApiKeyRecord {
  token: string;
}

/** The keys come from a KeyStore; `apps` (the desktop's SQLite repository) is taken as the key store on its connection. */
export type KeyServiceDeps = {
  secret: Uint8Array;
  /** The window credentials' signing key where several processes must accept them (a team server); else per process. */
  windowSecret?: Uint8Array;
  now?: () => Date;
} & ({ store: KeyStore } | { apps: ApplicationsRepository });

export function createKeyService(deps: KeyServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const clock = deps.now;
  /** The time in ms, without a Date per request unless a clock is given. */
  const nowMs: () => number = clock ? () => clock().getTime() : Date.now;
  const store: KeyStore = 'store' in deps ? deps.store : createSqliteKeyStore(deps.apps);
  // Imported once as a WebCrypto key: jose otherwise re-imports the secret on every call (profiled under load).
  const signingKey = crypto.webcrypto.subtle.importKey('raw', deps.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  // The desktop: made at start, not extractable, never written anywhere: the window's credentials die with this
  // process, as the per-launch UI token that fetches them does. A team server gives a key derived from its shared
  // secret (windowSecretOf in src/team-core.ts), so that every API node accepts what any of them minted.
  const windowSigningKey = deps.windowSecret
    ? crypto.webcrypto.subtle.importKey('raw', deps.windowSecret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    : crypto.webcrypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign', 'verify']);
  const windowKeys = new Map<string, Promise<string>>();
  const verified = new Map<string, Verified>();

  function remember(token: string, v: Verified): void {
    if (verified.size >= VERIFIED_MAX) verified.clear();
    verified.set(token, v);
  }

  /** When a key stops being valid (ms): its stored expiry, and its `exp` claim with the clock tolerance. */
  function validUntil(key: ApiKeyRecord, expClaim: unknown): number {
    const stored = key.expiresAt === null ? Infinity : Date.parse(key.expiresAt);
    const claimed = typeof expClaim === 'number' ? expClaim * 1000 + CLOCK_TOLERANCE_S * 1000 : Infinity;
    return Math.min(stored, claimed);
  }

  /**
   * A kept token is still good only while its key is. Expiry is checked here on every request; revocation through
   * the key store's signal: when it is unchanged since the key's row was last read (and that was under
   * KEY_RECHECK_MS ago), no key changed, so neither did this one; otherwise (undefined) the row must be read again
   * (recheck). The signal is read before the row, so a revocation committed while the row is being read changes it
   * again for the next request. Hence a revocation (from the Settings screen, `veracity keys revoke` in another
   * process, another team node) or an expiry takes effect at the next request (test/api/kept-answers.test.ts).
   * Synchronous: a request with a kept key and no change waits for nothing.
   */
  function keptValid(v: Verified, at: number, revision: number | null): boolean | undefined {
    if (v.digest === null) return true; // the window's credential: not revocable, dies with this process
    if (at >= v.untilMs) return false;
    if (revision !== null && revision === v.revision && at - v.checkedAtMs < KEY_RECHECK_MS) return true;
    return undefined;
  }

  /** Reads a kept key's row again (see keptValid); `revision` was read before it. */
  async function recheck(v: Verified, at: number, revision: number | null): Promise<boolean> {
    const key = await store.getKey(v.principal.keyId);
    if (!key || key.revokedAt !== null || key.tokenSha256 !== v.digest) return false;
    v.untilMs = Math.min(v.untilMs, validUntil(key, undefined));
    v.revision = revision;
    v.checkedAtMs = at;
    return at < v.untilMs;
  }

  async function issueKey(applicationId: string, name: string, expiresInDays?: number): Promise<IssuedKey> {
    const id = crypto.randomUUID();
    const createdAt = now();
    const expiresAt = expiresInDays ? new Date(createdAt.getTime() + expiresInDays * 86_400_000) : null;
    const token = await signCredential(await signingKey, AUDIENCE, { sub: applicationId, jti: id, issuedAt: createdAt, expiresAt });
    const rec: Omit<ApiKeyRecord, 'revokedAt'> = {
      id,
      applicationId,
      name,
      tokenSha256: keyDigest(token),
      hint: keyHint(token),
      createdAt: createdAt.toISOString(),
      expiresAt: expiresAt?.toISOString() ?? null,
    };
    await store.insertKey(rec);
    return { ...rec, revokedAt: null, token };
  }

  /** A new application with its first key (the caller shows the key once). */
  async function createApplication(name: string, kind: PipelineKind, expiresInDays?: number): Promise<{ app: Application; key: IssuedKey }> {
    const app = await addApplication(store, name, kind);
    const key = await issueKey(app.id, `${name} key`, expiresInDays);
    return { app, key };
  }

  async function addApplication(rows: KeyRows, name: string, kind: PipelineKind): Promise<Application> {
    const app: Application = { id: crypto.randomUUID(), name, kind, createdAt: now().toISOString() };
    await rows.insertApplication(app);
    return app;
  }

  /**
   * The window's credential for one application during this launch: a JWT signed with the in-memory key, handed
   * only to holders of the UI token (GET /app/applications). Not stored; useless once this process ends.
   */
  function windowKey(applicationId: string): Promise<string> {
    let key = windowKeys.get(applicationId);
    if (!key) {
      key = (async () => signCredential(await windowSigningKey, WINDOW_AUDIENCE, { sub: applicationId, jti: crypto.randomUUID(), issuedAt: now() }))();
      windowKeys.set(applicationId, key);
    }
    return key;
  }

  async function verifyApiKey(token: string): Promise<Principal | null> {
    const { payload } = await verifyCredential(token, await signingKey, AUDIENCE, { currentDate: now(), clockTolerance: CLOCK_TOLERANCE_S });
    const revision = store.keysRevision(); // before the row: see keptValid
    const key = await store.getKey(String(payload.jti));
    if (!key || key.revokedAt !== null || key.applicationId !== payload.sub) return null;
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now().getTime()) return null;
    // Constant-time comparison with the stored digest: a key re-signed with the same secret but other claims is not
    // the issued key, and the comparison's time says nothing about how much of the digest matched.
    const stored = Buffer.from(key.tokenSha256, 'hex');
    const given = Buffer.from(keyDigest(token), 'hex');
    if (stored.length !== given.length || !crypto.timingSafeEqual(stored, given)) return null;
    const app = await store.getApplication(key.applicationId);
    if (!app) return null;
    const principal = { applicationId: app.id, keyId: key.id, kind: app.kind };
    remember(token, { principal, digest: key.tokenSha256, untilMs: validUntil(key, payload.exp), revision, checkedAtMs: nowMs() });
    return principal;
  }

  async function verifyWindowKey(token: string): Promise<Principal | null> {
    const { payload } = await verifyCredential(token, await windowSigningKey, WINDOW_AUDIENCE);
    const app = await store.getApplication(String(payload.sub));
    if (!app) return null;
    const principal = { applicationId: app.id, keyId: `window:${app.id}`, kind: app.kind };
    remember(token, { principal, digest: null, untilMs: Infinity, revision: null, checkedAtMs: 0 });
    return principal;
  }

  /** Verifies a bearer token; returns null for any failure (the caller answers 401 without detail). */
  /**
   * The principal of a token verified before, when nothing changed since (keptValid): without awaiting anything, so
   * the request path needs no promise for the common case. `undefined`: ask verify(), which decides every other case.
   */
  function verifyKept(token: string): Principal | undefined {
    const hit = verified.get(token);
    if (!hit) return undefined;
    const revision = hit.digest === null ? null : store.keysRevision();
    return keptValid(hit, nowMs(), revision) === true ? hit.principal : undefined;
  }

  /**
   * Whether this token passed verify() before and is still kept (valid or due for a recheck): a credential in use, as
   * opposed to one this process has never accepted. The server lets a client that spent its refusals go on using
   * the first kind only (src/server/app.ts).
   */
  function knows(token: string): boolean {
    return verified.has(token);
  }

  /**
   * Whether the token carries this installation's signature (an API key's or the window's), checked in memory: no
   * database read, no state. What a client that spent its refusals still gets checked (src/server/app.ts): a key
   * signed here can only have been issued here, so it is verified in full and counted in its own bucket (DECISIONS
   * 29), while a guess, which cannot carry the signature, costs an HMAC and is refused unread.
   */
  async function signedHere(token: string): Promise<boolean> {
    if (token.length > 4096) return false;
    try {
      const window = decodeJwt(token).aud === WINDOW_AUDIENCE;
      await verifyCredential(token, await (window ? windowSigningKey : signingKey), window ? WINDOW_AUDIENCE : AUDIENCE);
      return true;
    } catch {
      return false;
    }
  }

  async function verify(token: string): Promise<Principal | null> {
    if (token.length > 4096) return null;
    const hit = verified.get(token);
    if (hit) {
      const at = nowMs();
      const revision = hit.digest === null ? null : store.keysRevision();
      const kept = keptValid(hit, at, revision);
      if (kept === true || (kept === undefined && (await recheck(hit, at, revision)))) return hit.principal;
      verified.delete(token);
      return null;
    }
    try {
      // The unverified audience only picks which key must have signed the token; each path verifies it in full.
      return decodeJwt(token).aud === WINDOW_AUDIENCE ? await verifyWindowKey(token) : await verifyApiKey(token);
    } catch {
      return null;
    }
  }

  /**
   * A fresh data dir gets one application of each kind (DECISIONS 25), without keys: the window uses its own
   * credentials, and a key nobody was shown would be of no use. A local tool gets a key with `veracity keys create`
   * or from Settings, shown once.
   */
  async function ensureDefaultApplications(): Promise<void> {
    await store.withTransaction(async (tx) => {
      // Counted inside the transaction: two processes opening a fresh data dir at once make one pair, not two.
      if ((await tx.countApplications()) > 0) return;
      await addApplication(tx, 'Images', 'images');
      await addApplication(tx, 'PDFs', 'pdfs');
    });
  }

  const keysOf = async (applicationId: string): Promise<ApiKeyInfo[]> => (await store.listKeys(applicationId)).map(keyInfo);

  /** Every application with its keys, by identity only: what `veracity keys list` prints. */
  async function applicationsWithKeys(): Promise<{ application: Application; keys: ApiKeyInfo[] }[]> {
    return Promise.all((await store.listApplications()).map(async (a) => ({ application: a, keys: await keysOf(a.id) })));
  }

  /** Every application with its keys (identity only) and the window's credential for it (the Settings screen). */
  async function listApplications(): Promise<ApplicationInfo[]> {
    return Promise.all((await store.listApplications()).map(applicationInfo));
  }

  async function applicationInfo(a: Application): Promise<ApplicationInfo> {
    return { ...a, keys: await keysOf(a.id), windowKey: await windowKey(a.id) };
  }

  /** An existing application, or NotFound. */
  async function getApplication(applicationId: string): Promise<Application> {
    const application = await store.getApplication(applicationId);
    if (!application) throw new NotFound('application');
    return application;
  }

  /** A new key for an existing application, named after it unless a name is given. */
  async function issueKeyFor(applicationId: string, name: string | undefined, expiresInDays?: number): Promise<IssuedKey> {
    const application = await getApplication(applicationId);
    return issueKey(application.id, name ?? `${application.name} key`, expiresInDays);
  }

  /** Revokes a key (at once: the store's revision changes, see keptValid) and returns it as listed. */
  async function revokeKey(keyId: string): Promise<ApiKeyInfo> {
    if (!(await store.getKey(keyId))) throw new NotFound('key');
    await store.revokeKey(keyId, now().toISOString());
    const revoked = await store.getKey(keyId);
    if (!revoked) throw new NotFound('key');
    return keyInfo(revoked);
  }

  /**
   * Revokes the key with this id, or else every key of the application with this id (`veracity keys revoke`).
   * Returns how many keys this revoked: 0 where they already were.
   */
  async function revokeKeyOrApplication(id: string): Promise<number> {
    const at = now().toISOString();
    if (await store.getKey(id)) return store.revokeKey(id, at);
    if (await store.getApplication(id)) return store.revokeApplicationKeys(id, at);
    throw new NotFound('key');
  }

  return {
    issueKey,
    issueKeyFor,
    createApplication,
    getApplication,
    applicationInfo,
    applicationsWithKeys,
    listApplications,
    revokeKey,
    revokeKeyOrApplication,
    windowKey,
    verify,
    verifyKept,
    knows,
    signedHere,
    ensureDefaultApplications,
  };
}
export type KeyService = ReturnType<typeof createKeyService>;
