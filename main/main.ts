// The Electron entry: one instance, the core in its own process on 127.0.0.1 (a utility process when packaged), one hardened window that
// loads the renderer from the core, a crash screen with restart, clean shutdown, logs in the data dir.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { app, BrowserWindow, ipcMain, nativeTheme, session, shell, utilityProcess } from 'electron';
import { crashPageUrl } from './crash-page.js';
import { CORE_STDIO, coreArgs, coreChildOf, type CoreChild } from './core-process.js';
import { CoreSupervisor } from './core-supervisor.js';
import { IPC_CONFIG, IPC_RESTART, type ShellConfig } from './ipc-channels.js';
import { createFileLogger } from './logger.js';
import { defaultDataDir, logDir } from './paths.js';
import { applyContentsSecurity, applySessionSecurity, isTrustedSender, type SecurityHooks } from './security.js';
import { mainWindowOptions } from './window-options.js';

const dataDir = defaultDataDir();
const log = createFileLogger(logDir(dataDir));
const coreLog = createFileLogger(logDir(dataDir), 'core.log');
const devTools = !app.isPackaged && process.env.VERACITY_DEVTOOLS === '1';

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
  appOrigin: () => supervisor.running?.baseUrl ?? null,
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

function createWindow(): BrowserWindow {
  const preloadPath = path.join(__dirname, 'preload.cjs');
  const win = new BrowserWindow(mainWindowOptions({ preloadPath, devTools, dark: nativeTheme.shouldUseDarkColors }));
  win.once('ready-to-show', () => win.show());
  win.webContents.on('render-process-gone', (_event, details) => {
    log.error(`renderer gone: ${details.reason}`);
    const core = supervisor.running;
    if (!quitting && details.reason !== 'clean-exit' && core) void win.loadURL(`${core.baseUrl}/`);
  });
  win.on('closed', () => {
    mainWindow = null;
  });
  return win;
}

function registerIpc(): void {
  ipcMain.handle(IPC_CONFIG, (event): ShellConfig | null => {
    const core = supervisor.running;
    if (!core?.uiToken || !isTrustedSender(event.senderFrame?.url, core.baseUrl)) return null;
    return { baseUrl: core.baseUrl, uiToken: core.uiToken };
  });
  ipcMain.handle(IPC_RESTART, async (event) => {
    if (!isTrustedSender(event.senderFrame?.url, supervisor.running?.baseUrl ?? null, true)) return;
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
    await supervisor.start();
  });
}
