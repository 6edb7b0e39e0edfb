// `npm start`: opens the Electron app where Electron's binary is installed, otherwise serves the same renderer from
// the core on 127.0.0.1 and prints its address with a per-launch token (as Jupyter does). Decisions are plain functions.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { appUrlOf, parseCoreReady } from '../src/api/core-ready.js';
import { STOP_SIGNALS } from '../src/stop-signal.js';
import { CORE_STDIO, coreArgs, onLines } from './core-process.js';
import { createFileLogger } from './logger.js';
import { defaultDataDir, logDir, readTeamSettings, teamSettingsFile, writeTeamSettings } from './paths.js';
import { chooseServer, connectCommand, teamBrowserBanner, teamSettingsText } from './team-server.js';

export type LaunchMode = { mode: 'electron'; electronPath: string } | { mode: 'browser'; reason: string };

/**
 * The Electron binary when it is really there. `require('electron')` returns a path from node_modules/electron/path.txt
 * and throws when the package was installed without its binary (ELECTRON_SKIP_BINARY_DOWNLOAD).
 */
export function resolveElectronBinary(requireElectron: () => unknown, exists: (p: string) => boolean = fs.existsSync): string | null {
  let resolved: unknown;
  try {
    resolved = requireElectron();
  } catch {
    return null;
  }
  return typeof resolved === 'string' && resolved.length > 0 && exists(resolved) ? resolved : null;
}

export function chooseLaunchMode(argv: string[], env: Record<string, string | undefined>, electronPath: string | null): LaunchMode {
  if (argv.includes('--browser') || env.VERACITY_BROWSER === '1') return { mode: 'browser', reason: 'browser mode was asked for' };
  if (electronPath === null) return { mode: 'browser', reason: "Electron's binary is not installed on this machine" };
  return { mode: 'electron', electronPath };
}

/**
 * Electron's own download runs at first `npm start`, not at install (its postinstall is denied in package.json
 * `allowScripts`, so `npm install` never fails offline). Tried when Electron's package is there without its binary,
 * unless browser mode was asked for or a try failed in the last day (the marker file's age).
 */
export function shouldTryElectronDownload(
  argv: string[],
  env: Record<string, string | undefined>,
  installScriptExists: boolean,
  lastFailureMs: number | null,
  nowMs: number,
): boolean {
  if (!installScriptExists || argv.includes('--browser') || env.VERACITY_BROWSER === '1') return false;
  if (env.ELECTRON_SKIP_BINARY_DOWNLOAD || env.CI) return false;
  return lastFailureMs === null || nowMs - lastFailureMs > 86_400_000;
}

function tryElectronDownload(root: string): boolean {
  const installScript = path.join(root, 'node_modules', 'electron', 'install.js');
  const marker = path.join(root, 'node_modules', '.veracity-electron-download-failed');
  const lastFailure = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : null;
  if (!shouldTryElectronDownload(process.argv.slice(2), process.env, fs.existsSync(installScript), lastFailure, Date.now())) return false;
  console.log("Fetching Electron's binary (first start)…");
  const result = spawnSync(process.execPath, [installScript], { cwd: path.dirname(installScript), stdio: 'ignore', timeout: 180_000 });
  if (result.status === 0) return true;
  fs.writeFileSync(marker, `${new Date().toISOString()}\n`);
  return false;
}

/** Newest modification time of the files under `dir` (0 when it does not exist). */
export function newestMtime(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** A build output is stale when it is missing or older than any of its sources. */
export function isStale(output: string, sources: string[]): boolean {
  if (!fs.existsSync(output)) return true;
  const built = fs.statSync(output).mtimeMs;
  return sources.some((source) => newestMtime(source) > built);
}

/** `--port N` on the command line or VERACITY_PORT; 0 (any free port) otherwise. */
export function chooseServePort(argv: string[], env: Record<string, string | undefined>): number {
  const index = argv.indexOf('--port');
  const raw = index >= 0 ? argv[index + 1] : env.VERACITY_PORT;
  if (raw === undefined || raw === '') return 0;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`Invalid port: ${raw}`);
  return port;
}

/** A pino-style JSON log line (the core's request log), as opposed to a line meant for a person. */
export function isStructuredLogLine(line: string): boolean {
  return line.startsWith('{') && line.endsWith('}');
}

export function browserBanner(appUrl: string, dataDir: string): string {
  return [
    '',
    '  Veracity is running in browser mode (no Electron on this machine).',
    '  Open this address in a browser on this computer; it carries this launch\'s access token:',
    '',
    `      ${appUrl}`,
    '',
    `  Data and logs: ${dataDir}`,
    '  Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

function runBuild(root: string, script: string): void {
  const result = spawnSync(process.execPath, script.split(' '), { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`Build step failed: node ${script}`);
}

function forwardSignals(child: ChildProcess): void {
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      child.kill(signal);
    });
  }
}

/** `--connect URL` / `--disconnect`: the team server setting (main/team-server.ts); null when neither was asked. */
function runConnectCommand(argv: string[]): number | null {
  const command = connectCommand(argv, process.env);
  if (command === null) return null;
  const file = teamSettingsFile(defaultDataDir());
  if (command.action === 'error') {
    console.error(command.message);
    return 2;
  }
  if (command.action === 'disconnect') {
    fs.rmSync(file, { force: true });
    console.log(`Veracity will analyse on this computer again (removed ${file}).`);
    return 0;
  }
  writeTeamSettings(file, teamSettingsText(command.baseUrl, command.uiToken));
  console.log(`Veracity will use the team server at ${command.baseUrl} (saved in ${file}, readable by you only).`);
  console.log('Run `npm start -- --disconnect` to analyse on this computer again.');
  return 0;
}

export async function main(root: string, argv: string[]): Promise<number> {
  const connected = runConnectCommand(argv);
  if (connected !== null) return connected;
  const requireFromRoot = createRequire(path.join(root, 'package.json'));
  let electronPath = resolveElectronBinary(() => requireFromRoot('electron'));
  if (electronPath === null && tryElectronDownload(root)) {
    delete requireFromRoot.cache[requireFromRoot.resolve('electron')];
    electronPath = resolveElectronBinary(() => requireFromRoot('electron'));
  }
  const launch = chooseLaunchMode(argv, process.env, electronPath);
  if (launch.mode === 'browser') {
    // A team server chosen: nothing local to build or start; the address to open is the team server's.
    const server = chooseServer(process.env, readTeamSettings(teamSettingsFile(defaultDataDir())));
    if (server.mode === 'invalid') {
      console.error(server.reason);
      return 2;
    }
    if (server.mode === 'team') {
      console.log(teamBrowserBanner(server));
      return 0;
    }
  }
  const rendererIndex = path.join(root, 'dist', 'renderer', 'index.html');
  if (isStale(rendererIndex, [path.join(root, 'renderer'), path.join(root, 'src', 'api')])) {
    console.log('Building the window (vite build)…');
    runBuild(root, 'node_modules/vite/bin/vite.js build --logLevel warn');
  }
  if (launch.mode === 'electron') {
    if (isStale(path.join(root, 'dist', 'main', 'main.cjs'), [path.join(root, 'main')])) runBuild(root, 'main/build.mjs');
    // The core runs under this Node (whose ABI the native modules were built for), not inside Electron: main.ts.
    const env: NodeJS.ProcessEnv = { ...process.env, VERACITY_NODE: process.execPath };
    delete env.ELECTRON_RUN_AS_NODE;
    const child = spawn(launch.electronPath, [root], { cwd: root, stdio: 'inherit', env });
    forwardSignals(child);
    return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
  }

  const dataDir = defaultDataDir();
  const port = chooseServePort(argv, process.env);
  console.log(`Starting Veracity (${launch.reason}).`);
  const child = spawn(process.execPath, [path.join(root, 'src', 'bin', 'veracity.mjs'), ...coreArgs({ dataDir, port })], {
    cwd: root,
    stdio: CORE_STDIO,
  });
  forwardSignals(child);
  // The core's structured (JSON) log lines go to the data dir; the terminal shows only what a person reads.
  const coreLog = createFileLogger(logDir(dataDir), 'core.log');
  onLines(child.stdout, (line) => {
    if (isStructuredLogLine(line)) {
      coreLog.core('stdout', line);
      return;
    }
    console.log(line);
  });
  child.on('message', (message) => {
    const ready = parseCoreReady(message);
    const appUrl = ready && appUrlOf(ready);
    if (appUrl) console.log(browserBanner(appUrl, dataDir));
  });
  onLines(child.stderr, (line) => {
    coreLog.core('stderr', line);
    if (!isStructuredLogLine(line)) console.error(line);
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1))));
}
