// The headless entry: `veracity serve` (API + built renderer on 127.0.0.1), `veracity keys ...`, `veracity assess FILE...`.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { coreReady } from './api/core-ready.js';
import { stopSignal } from './stop-signal.js';
import { installTrustAnchors, readTrustAnchors } from './analysis/index.js';
import { loadConfig, trustAnchorsFileOf, type CoreConfig } from './config/config.js';
import { createCore, listen, openDataDir } from './core.js';
import { announceReady } from './ready-signal.js';
import { rendererAvailable } from './server/renderer-files.js';
import { LISTEN_OPTIONS, listenAddress } from './config/listen-address.js';
import { KEYS_OPTIONS, runKeysCommand } from './keys-command.js';
import { TEAM_USAGE, keysTeam, serveTeam, teamMode, workerCommand } from './team-cli.js';
import { UI_TOKEN_ENV } from './team-core.js';

const USAGE = `Usage:
  veracity serve [--host 127.0.0.1] [--port N] [--data-dir DIR] [--models-dir DIR] [--trust-anchors PEM]
  veracity serve --host ADDRESS --allow-network --allowed-host NAME[:PORT] [--allowed-host ...] [...]
  veracity keys create --kind images|pdfs [--name NAME] [--expires-in-days N] [--data-dir DIR]
  veracity keys create --application APPLICATION_ID [--name NAME] [--expires-in-days N] [--data-dir DIR]
  veracity keys list [--data-dir DIR]
  veracity keys revoke APPLICATION_OR_KEY_ID [--data-dir DIR]
  veracity assess FILE... [--json] [--models-dir DIR] [--trust-anchors PEM]

\`keys create\` prints the new key once; Veracity keeps only its digest, so \`keys list\` shows ids, names, dates and
the key's last four characters, never the key. The data dir defaults to the platform's app-data folder;
VERACITY_DATA_DIR overrides it.

Content Credentials (C2PA) signers are trusted when they chain to a trust anchor: \`serve --trust-anchors PEM\`
checks the bundle and keeps it in the data dir (trust-anchors.pem) for every later start; VERACITY_TRUST_ANCHORS names
a bundle to read instead (a team server's nodes: one file they all mount). Without anchors, a valid signature is
reported as valid and its signer as not established.

\`serve\` listens on loopback only. A team server that other machines reach needs --allow-network and the exact
host names clients (or the TLS proxy in front) put in Host (--allowed-host, repeatable, or VERACITY_ALLOWED_HOSTS,
comma-separated); anything else is refused. Put TLS in front of it: keys travel in the Authorization header.

Team server (PostgreSQL):
${TEAM_USAGE}`;


/**
 * `--ui-token` is refused by name, not just unknown: a secret on the command line can be read by every local user (ps),
 * so `serve` takes none there, as the team server never did.
 */
const UI_TOKEN_REFUSED = `veracity serve takes no --ui-token: a token on the command line can be read by every local user (ps).
On this computer, serve makes a new UI token at each start and prints the window's address with it. A team server
(--database-url) reads its token from ${UI_TOKEN_ENV} (at least 32 characters of A-Z, a-z, 0-9, '-' and '_').`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Whatever this process creates in the data dir (database, WAL, secret, uploads) is its user's only, even
  // where a file is created without an explicit mode.
  if ((command === 'serve' || command === 'keys') && process.platform !== 'win32') process.umask(0o077);
  try {
    switch (command) {
      case 'serve':
        if (rest.some((a) => a === '--ui-token' || a.startsWith('--ui-token='))) {
          process.stderr.write(`${UI_TOKEN_REFUSED}\n`);
          return 2;
        }
        return teamMode(rest) ? await serveTeam(rest) : await serve(rest);
      case 'keys':
        return teamMode(rest) ? await keysTeam(rest) : await keys(rest);
      case 'worker':
        return await workerCommand(rest);
      case 'assess': {
        const { assessCommand } = await import('./analysis/assess-cli.js');
        return await assessCommand(rest);
      }
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
        return 2;
    }
  } catch (err) {
    process.stderr.write(`veracity: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...LISTEN_OPTIONS,
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'models-dir': { type: 'string' },
      'trust-anchors': { type: 'string' },
    },
    strict: true,
  });
  const config = loadConfig({
    ...listenAddress(values),
    port: values.port,
    dataDir: values['data-dir'] ? path.resolve(values['data-dir']) : undefined,
    modelsDir: values['models-dir'] ? path.resolve(values['models-dir']) : undefined,
  });
  await trustAnchorsAtBoot(config, values['trust-anchors']);
  const core = await createCore(config);
  let url: string;
  try {
    url = await listen(core);
  } catch (err) {
    await core.close();
    throw err;
  }
  announceReady(coreReady(url, rendererAvailable(config.rendererDir) ? core.uiToken : null));
  await stopSignal('veracity', 'files still being analysed are analysed again at the next start.');
  await core.close();
  process.stderr.write('veracity: stopped.\n');
  return 0;
}

/**
 * `--trust-anchors PEM`: checked, then kept in the data dir for every later start. Whatever bundle the analysis will
 * read is checked here too, so a broken one stops the core at start rather than failing every analysis; its anchors
 * are listed on stderr (stdout's first line is the ready line).
 */
async function trustAnchorsAtBoot(config: CoreConfig, source: string | undefined): Promise<void> {
  const file = trustAnchorsFileOf(config);
  if (source) {
    if (config.trustAnchorsFile) throw new Error('--trust-anchors and VERACITY_TRUST_ANCHORS both name a trust-anchor bundle; give one of them');
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    await installTrustAnchors(path.resolve(source), file);
  }
  const anchors = await readTrustAnchors(file);
  if (anchors.length) {
    const list = anchors.map((a) => `  ${a.subject} (expires ${a.notAfter.slice(0, 10)})`).join('\n');
    process.stderr.write(`C2PA trust anchors (${file}):\n${list}\n`);
  }
}

async function keys(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, options: { ...KEYS_OPTIONS, 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  const config = loadConfig({ dataDir: values['data-dir'] ? path.resolve(values['data-dir']) : undefined });
  const { db, keys: keyService } = await openDataDir(config.dataDir);
  try {
    // The desktop: `--kind` makes a new application of that kind, named after it unless --name is given.
    return await runKeysCommand(sub, values, positionals, keyService, (kind, name, days) => keyService.createApplication(name ?? (kind === 'images' ? 'Images' : 'PDFs'), kind, days));
  } finally {
    db.close();
  }
}
