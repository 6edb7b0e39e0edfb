// The two IPC channels between the preload and the main process, and the shape the page receives; nothing else
// crosses the boundary.
export const IPC_CONFIG = 'veracity:get-config';
export const IPC_RESTART = 'veracity:restart-core';

/** What the page needs to talk to the core: its base URL and the per-launch UI token of the /app routes. */
export interface ShellConfig {
  baseUrl: string;
  uiToken: string;
}
