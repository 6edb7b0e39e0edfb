// `veracity keys create|list|revoke` for both stores (the desktop's data dir, a team server's PostgreSQL): the flags,
// the checks and what is printed, written once over the key service. Which application `--kind` names differs, and
// is the caller's: the desktop makes a new one, a team server issues a key for its existing one of that kind.
import { NotFound } from './api/domain-errors.js';
import { KeyName } from './api/app-schemas.js';
import { KEY_EXPIRES_IN_DAYS_MAX, KEY_NAME_MAX } from './api/limits.js';
import type { IssuedKey, KeyService } from './auth/api-keys.js';
import type { Application } from './db/applications-repository.js';

export const KEYS_OPTIONS = {
  kind: { type: 'string' },
  application: { type: 'string' },
  name: { type: 'string' },
  'expires-in-days': { type: 'string' },
} as const;

export interface KeysValues {
  kind?: string;
  application?: string;
  name?: string;
  'expires-in-days'?: string;
}

/** How `keys create --kind` finds the application of its key, with its new key. */
export type CreateForKind = (kind: 'images' | 'pdfs', name: string | undefined, expiresInDays: number | undefined) => Promise<{ app: Application; key: IssuedKey }>;

/** Runs one `keys` subcommand over the key service; returns the exit code, throws a sentence for the user. */
export async function runKeysCommand(sub: string | undefined, values: KeysValues, positionals: string[], keyService: KeyService, createForKind: CreateForKind): Promise<number> {
  if (sub === 'create') {
    const expiresInDays = daysOf(values['expires-in-days']);
    const name = nameOf(values.name);
    let application: Application;
    let key: IssuedKey;
    if (values.application !== undefined) {
      if (values.kind !== undefined) throw new Error('Give --kind (a new application) or --application (an existing one), not both.');
      application = await named(values.application, 'application', () => keyService.getApplication(values.application!));
      key = await keyService.issueKeyFor(application.id, name, expiresInDays);
    } else {
      if (values.kind !== 'images' && values.kind !== 'pdfs') throw new Error('--kind must be "images" or "pdfs" (or give --application ID).');
      ({ app: application, key } = await createForKind(values.kind, name, expiresInDays));
    }
    process.stdout.write(
      `${JSON.stringify({ applicationId: application.id, name: application.name, kind: application.kind, keyId: key.id, expiresAt: key.expiresAt, apiKey: key.token })}\n`,
    );
    process.stderr.write('This is the only time this key is shown: Veracity keeps only its digest. Store it now.\n');
    return 0;
  }
  if (sub === 'list') {
    const out = (await keyService.applicationsWithKeys()).map(({ application: a, keys: list }) => ({
      applicationId: a.id,
      name: a.name,
      kind: a.kind,
      createdAt: a.createdAt,
      keys: list.map(({ id, ...k }) => ({ keyId: id, ...k })),
    }));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  if (sub === 'revoke') {
    const id = positionals[0];
    if (!id) throw new Error('keys revoke needs an application id or a key id.');
    const revoked = await named(id, 'application or key', () => keyService.revokeKeyOrApplication(id));
    process.stdout.write(`${JSON.stringify({ revoked })}\n`);
    return 0;
  }
  throw new Error(`Unknown keys subcommand "${sub ?? ''}". Use create, list or revoke.`);
}

/**
 * `--expires-in-days`: written in plain decimal digits, 1 to KEY_EXPIRES_IN_DAYS_MAX. Number() alone also took `0x10`
 * (16), `1e1` and ` 7`.
 */
function daysOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const days = /^[0-9]{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1 && days <= KEY_EXPIRES_IN_DAYS_MAX)) throw new Error(`--expires-in-days must be a whole number of days from 1 to ${KEY_EXPIRES_IN_DAYS_MAX}.`);
  return days;
}

/** `--name`: the Settings screen's rule (KeyName), trimmed as it trims. */
function nameOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const parsed = KeyName.safeParse(text);
  if (!parsed.success) throw new Error(`--name must be 1 to ${KEY_NAME_MAX} characters, without control characters.`);
  return parsed.data;
}

/** The service's NotFound, said with the id the user typed. */
async function named<T>(id: string, what: string, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (err) {
    if (err instanceof NotFound) throw new Error(`No ${what} with id ${id}.`);
    throw err;
  }
}
