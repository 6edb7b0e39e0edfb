// Where the window finds the UI token of the /app routes: from Electron's preload, or once from the address's
// #token=… (browser mode), after which it is removed from the address bar and kept only for this tab's session.

export interface ShellBridge {
  getConfig: () => Promise<{ baseUrl: string; uiToken: string } | null>;
  restartCore?: () => Promise<void>;
}

export interface Credentials {
  baseUrl: string;
  uiToken: string;
}

export const TOKEN_STORAGE_KEY = 'veracity.uiToken';

export interface LocationLike {
  hash: string;
  origin: string;
  pathname: string;
  search: string;
}

export interface StorageLike {
  getItem: (key: string) => string | null;
  setItem: (key: string, value: string) => void;
}

/** The token in `#token=…`, if the hash carries one of a plausible shape. */
export function tokenFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token');
  return token && /^[A-Za-z0-9_-]{16,256}$/.test(token) ? token : null;
}

export async function findCredentials(
  location: LocationLike,
  storage: StorageLike,
  replaceUrl: (url: string) => void,
  bridge: ShellBridge | undefined,
): Promise<Credentials | null> {
  if (bridge) {
    const config = await bridge.getConfig();
    if (config) return config;
  }
  const fromHash = tokenFromHash(location.hash);
  if (fromHash) {
    storage.setItem(TOKEN_STORAGE_KEY, fromHash);
    // The token must not stay in the address bar, the history or a bookmark (checklist 86).
    replaceUrl(`${location.pathname}${location.search}`);
    return { baseUrl: location.origin, uiToken: fromHash };
  }
  const stored = storage.getItem(TOKEN_STORAGE_KEY);
  return stored ? { baseUrl: location.origin, uiToken: stored } : null;
}
