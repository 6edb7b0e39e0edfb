// Options of the app's one window, kept apart from main.ts so the security audit (checklist 76) is a unit test.
import type { BrowserWindowConstructorOptions } from 'electron';
import { secureWebPreferences } from './security.js';

export interface WindowOptionsInput {
  preloadPath: string;
  devTools?: boolean;
  /** The OS theme decides the background painted before the page loads (no white flash in dark mode). */
  dark?: boolean;
}

export function mainWindowOptions({ preloadPath, devTools = false, dark = false }: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    title: 'Veracity',
    width: 1280,
    height: 860,
    minWidth: 480,
    minHeight: 400,
    show: false,
    backgroundColor: dark ? '#111418' : '#f7f7f8',
    autoHideMenuBar: true,
    webPreferences: secureWebPreferences(preloadPath, { devTools }),
  };
}
