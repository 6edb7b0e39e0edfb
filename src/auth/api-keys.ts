// API keys are JWTs (HS256, one fixed algorithm) signed by a per-installation secret kept in the data dir,
// checked for signature, algorithm, expiry and revocation (DECISIONS 25-26). Failures never say which check failed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import type { PipelineKind } from '../api/schemas.js';
import type { ApiKeyRecord, Application, ApplicationsRepository } from '../db/applications-repository.js';

const ALG = 'HS256';
const ISSUER = 'veracity';
const AUDIENCE = 'veracity-api';

/** Reads the installation secret, creating it (0600, atomically) on first use. */
export function loadOrCreateSecret(dataDir: string): Uint8Array {
  const file = path.join(dataDir, 'secret.key');
  try {
    const buf = fs.readFileSync(file);
    if (buf.length < 32) throw new Error(`Installation secret ${file} is too short; refusing to use it.`);
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
  keyId: string;
  kind: PipelineKind;
}

export function createKeyService(deps: { secret: Uint8Array; apps: ApplicationsRepository; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  // Imported once as a WebCrypto key: jose otherwise re-imports the secret on every call (profiled under load).
  const signingKey = crypto.webcrypto.subtle.importKey('raw', deps.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);

  async function issueKey(applicationId: string, name: string, expiresInDays?: number): Promise<ApiKeyRecord> {
    const id = crypto.randomUUID();
    const createdAt = now();
    const expiresAt = expiresInDays ? new Date(createdAt.getTime() + expiresInDays * 86_400_000) : null;
    let jwt = new SignJWT({})
      .setProtectedHeader({ alg: ALG, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(applicationId)
      .setJti(id)
      .setIssuedAt(Math.floor(createdAt.getTime() / 1000));
    if (expiresAt) jwt = jwt.setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
    const token = await jwt.sign(await signingKey);
    const rec = { id, applicationId, name, token, createdAt: createdAt.toISOString(), expiresAt: expiresAt?.toISOString() ?? null };
    deps.apps.insertKey(rec);
    return { ...rec, revokedAt: null };
  }

  async function createApplication(name: string, kind: PipelineKind): Promise<{ app: Application; key: ApiKeyRecord }> {
    const app: Application = { id: crypto.randomUUID(), name, kind, createdAt: now().toISOString() };
    deps.apps.insertApplication(app);
    const key = await issueKey(app.id, `${name} key`);
    return { app, key };
  }

  /** Verifies a bearer token; returns null for any failure (the caller answers 401 without detail). */
  async function verify(token: string): Promise<Principal | null> {
    if (token.length > 4096) return null;
    try {
      const { payload } = await jwtVerify(token, await signingKey, {
        algorithms: [ALG],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: now(),
        clockTolerance: 30,
        requiredClaims: ['sub', 'jti', 'iat'],
      });
      const key = deps.apps.getKey(String(payload.jti));
      if (!key || key.revokedAt !== null || key.applicationId !== payload.sub) return null;
      if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now().getTime()) return null;
      // Constant-time comparison with the stored token: a key re-signed with the same secret but other claims is not the issued key.
      const a = Buffer.from(key.token);
      const b = Buffer.from(token);
      if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) return null;
      const app = deps.apps.getApplication(key.applicationId);
      if (!app) return null;
      return { applicationId: app.id, keyId: key.id, kind: app.kind };
    } catch {
      return null;
    }
  }

  /** A fresh data dir gets one application of each kind (DECISIONS 25). */
  async function ensureDefaultApplications(): Promise<void> {
    if (deps.apps.countApplications() > 0) return;
    await createApplication('Images', 'images');
    await createApplication('PDFs', 'pdfs');
  }

  return { issueKey, createApplication, verify, ensureDefaultApplications };
}
export type KeyService = ReturnType<typeof createKeyService>;
