// The Electron entry: one instance, the core in its own process on 127.0.0.1 (a utility process when packaged), one hardened window that
// loads the renderer from the core, a crash screen with restart, clean shutdown, logs in the data dir. Where the user
// chose a team server (VERACITY_SERVER_URL + VERACITY_UI_TOKEN, or team-server.json: main/team-server.ts), no local
// core starts: the window loads that server's origin, and the security rules allow exactly that origin.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { app, BrowserWindow, ipcMain, nativeTheme, session, shell, utilityProcess } from 'electron';
import { crashPageUrl } from './crash-page.js';
import { CORE_STDIO, coreArgs, coreChildOf, type CoreChild } from './core-process.js';
import { CoreSupervisor } from './core-supervisor.js';
import { IPC_CONFIG, IPC_RESTART, type ShellConfig } from './ipc-channels.js';
import { createFileLogger } from './logger.js';
import { defaultDataDir, logDir, readTeamSettings, teamSettingsFile } from './paths.js';
import { applyContentsSecurity, applySessionSecurity, isAppUrl, isTrustedSender, type SecurityHooks } from './security.js';
import { chooseServer, type ServerChoice } from './team-server.js';
import { mainWindowOptions } from './window-options.js';

const dataDir = defaultDataDir();
const log = createFileLogger(logDir(dataDir));
const coreLog = createFileLogger(logDir(dataDir), 'core.log');
const devTools = !app.isPackaged && process.env.VERACITY_DEVTOOLS === '1';

/** Read once at start: changing servers takes a restart of the app, never a page of the window. */
const server: ServerChoice = (() => {
  try {
    return chooseServer(process.env, readTeamSettings(teamSettingsFile(dataDir)));
  } catch (err) {
    return { mode: 'invalid', reason: `The team server setting could not be read: ${(err as Error).message}` };
  }
})();
const team = server.mode === 'team' ? server : null;

let mainWindow: BrowserWindow | null = null;
let quitting = false;

const supervisor = new CoreSupervisor({
  spawn: spawnCore,
  onLine: (stream, line) => coreLog.core(stream, line),
  onState: (state) => {
    if (state.state === 'running') {
      log.info(`core listening at ${state.core.baseUrl}`);
      if (!state.core.uiToken) {
        showCrash('The window files are missing (dist/renderer). Run `npm run build` and start Veracity again.', []);
        return;
      }
      if (mainWindow && !mainWindow.isDestroyed()) void mainWindow.loadURL(`${state.core.baseUrl}/`);
    } else if (state.state === 'crashed' && !quitting) {
      showCrash(state.reason, state.lastLines);
    }
  },
});

const hooks: SecurityHooks = {
  appOrigin: () => (team ? team.baseUrl : (supervisor.running?.baseUrl ?? null)),
  openExternal: (url) => {
    log.info(`open external ${url}`);
    void shell.openExternal(url);
  },
  log: (message) => log.info(message),
};

function spawnCore(): CoreChild {
  const entry = path.join(app.getAppPath(), 'src', 'bin', 'veracity.mjs');
  const modelsDir = app.isPackaged ? path.join(process.resourcesPath, 'models') : undefined;
  // No token on the command line (other local users can read it with ps): the core makes one and sends it (CoreReady).
  const args = coreArgs({ dataDir, modelsDir });
  const devNode = !app.isPackaged ? process.env.VERACITY_NODE : undefined;
  if (devNode) {
    // `npm start` from a checkout: the native modules (better-sqlite3, onnxruntime-node, sharp) were built for the
    // Node that ran npm install, not for Electron's ABI (electron-builder rebuilds them only when packaging). So the
    // core runs under that Node, still in its own process, and the window is unchanged.
    return coreChildOf(
      spawn(devNode, [entry, ...args], { cwd: app.getAppPath(), stdio: CORE_STDIO, env: { ...process.env, VERACITY_DATA_DIR: dataDir } }),
    );
  }
  const child = utilityProcess.fork(entry, args, {
    stdio: 'pipe',
    serviceName: 'Veracity core',
    cwd: app.getAppPath(),
    env: { ...process.env, VERACITY_DATA_DIR: dataDir },
  });
  return {
    stdout: child.stdout,
    stderr: child.stderr,
    kill: () => child.kill(),
    onExit: (listener) => {
      child.once('exit', (code) => listener(code));
    },
    onMessage: (listener) => {
      child.on('message', listener);
    },
  };
}

function showCrash(reason: string, lastLines: string[]): void {
  log.error(`core stopped: ${reason}`);
  if (!mainWindow || mainWindow.isDestroyed()) return;
  void mainWindow.loadURL(crashPageUrl({ reason, logFile: coreLog.file, lastLines }));
  mainWindow.show();
}

function showServerProblem(reason: string): void {
  log.error(`team server: ${reason}`);
  if (!mainWindow || mainWindow.isDestroyed()) return;
  void mainWindow.loadURL(
    crashPageUrl({
      title: team ? 'The team server cannot be reached' : 'The team server setting is not usable',
      note: team
        ? `Veracity is set to use the team server at ${team.baseUrl}; nothing is analysed on this computer meanwhile. Check your network or ask the server's operator, then try again.`
        : 'Fix the setting (or remove it to use this computer) and start Veracity again.',
      action: team ? 'Try again' : 'Quit Veracity',
      reason,
      logFile: log.file,
      lastLines: [],
    }),
  );
  mainWindow.show();
}

function loadTeamServer(): void {
  if (team && mainWindow && !mainWindow.isDestroyed()) void mainWindow.loadURL(`${team.baseUrl}/`);
}

function createWindow(): BrowserWindow {
  const preloadPath = path.join(__dirname, 'preload.cjs');
  const win = new BrowserWindow(mainWindowOptions({ preloadPath, devTools, dark: nativeTheme.shouldUseDarkColors }));
  win.once('ready-to-show', () => win.show());
  win.webContents.on('render-process-gone', (_event, details) => {
    log.error(`renderer gone: ${details.reason}`);
    const core = supervisor.running;
    if (team && !quitting && details.reason !== 'clean-exit') loadTeamServer();
    else if (!quitting && details.reason !== 'clean-exit' && core) void win.loadURL(`${core.baseUrl}/`);
  });
  win.webContents.on('did-fail-load', (_event, errorCode, errorDescription, validatedUrl, isMainFrame) => {
    // -3 is an aborted load (a navigation replaced by another), not a failure.
    if (!team || !isMainFrame || errorCode === -3 || !isAppUrl(validatedUrl, team.baseUrl)) return;
    showServerProblem(`${team.baseUrl} did not answer (${errorDescription}).`);
  });
  win.on('closed', () => {
    mainWindow = null;
  });
  return win;
}

function registerIpc(): void {
  ipcMain.handle(IPC_CONFIG, (event): ShellConfig | null => {
    // The team server's token goes only to a page of that server's origin, as the local core's goes only to its own.
    if (team) return isTrustedSender(event.senderFrame?.url, team.baseUrl) ? { baseUrl: team.baseUrl, uiToken: team.uiToken } : null;
    const core = supervisor.running;
    if (!core?.uiToken || !isTrustedSender(event.senderFrame?.url, core.baseUrl)) return null;
    return { baseUrl: core.baseUrl, uiToken: core.uiToken };
  });
  ipcMain.handle(IPC_RESTART, async (event) => {
    if (!isTrustedSender(event.senderFrame?.url, hooks.appOrigin(), true)) return;
    if (server.mode === 'invalid') {
      // The setting is read at start: the button quits, and the user starts Veracity again once it is fixed.
      app.quit();
      return;
    }
    if (team) {
      // Nothing local to restart: the button loads the team server again.
      log.info('team server: trying again');
      loadTeamServer();
      return;
    }
    log.info('restart requested from the window');
    await supervisor.restart();
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('web-contents-created', (_event, contents) => applyContentsSecurity(contents, hooks));
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (quitting || !supervisor.running) return;
    // Let the core finish its current SQLite write and close cleanly before the process goes.
    event.preventDefault();
    quitting = true;
    void supervisor.stop().finally(() => app.quit());
  });
  process.on('uncaughtException', (error) => log.error('uncaught exception in main', error));

  void app.whenReady().then(async () => {
    log.info(`starting Veracity ${app.getVersion()} with data dir ${dataDir}`);
    applySessionSecurity(session.defaultSession, hooks);
    registerIpc();
    mainWindow = createWindow();
    if (server.mode === 'invalid') {
      showServerProblem(server.reason);
      return;
    }
    if (team) {
      log.info(`using the team server at ${team.baseUrl} (from the ${team.source}); no local core`);
      loadTeamServer();
      return;
    }
    await supervisor.start();
  });
}
