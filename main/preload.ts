// The preload of the app window (sandboxed, context-isolated): it exposes only what the page needs, as named
// functions over fixed IPC channels (checklist 79): the core's address and UI token, and the crash screen's restart.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CONFIG, IPC_RESTART, type ShellConfig } from './ipc-channels.js';

contextBridge.exposeInMainWorld('veracity', {
  getConfig: (): Promise<ShellConfig | null> => ipcRenderer.invoke(IPC_CONFIG) as Promise<ShellConfig | null>,
  restartCore: (): Promise<void> => ipcRenderer.invoke(IPC_RESTART) as Promise<void>,
});
