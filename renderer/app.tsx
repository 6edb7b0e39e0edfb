// The window: finds its UI token, loads the applications with its per-launch credential for each, and hosts the three screens
// (Assess, History, Settings) around one working case.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ApplicationInfo } from '../src/api/app-schemas.js';
import type { PipelineKind } from '../src/api/schemas.js';
import { ApiClient, ApiFailure } from './lib/api-client.js';
import { CaseSession, type AppKey } from './lib/case-session.js';
import { activeKeys } from './lib/active-keys.js';
import { serverLabel, type ServerLabel } from './lib/server-label.js';
import { findCredentials, type ShellBridge } from './lib/ui-credentials.js';
import { errorWords } from './lib/words.js';
import { AssessView } from './components/assess-view.js';
import { Glossary } from './components/glossary.js';
import { HistoryView } from './components/history-view.js';
import { SettingsView } from './components/settings-view.js';
import { useTheme, type ThemeChoice } from './components/use-theme.js';

declare global {
  interface Window {
    veracity?: ShellBridge;
  }
}

type Screen = 'assess' | 'history' | 'settings';

type Boot =
  | { state: 'loading' }
  | { state: 'no-token' }
  | { state: 'failed'; message: string }
  | { state: 'ready'; client: ApiClient; server: ServerLabel };

export function App(): React.JSX.Element {
  const [boot, setBoot] = useState<Boot>({ state: 'loading' });
  const [applications, setApplications] = useState<ApplicationInfo[]>([]);
  const [screen, setScreen] = useState<Screen>('assess');
  const [theme, setTheme] = useTheme();

  useEffect(() => {
    void (async () => {
      const credentials = await findCredentials(window.location, window.sessionStorage, (url) => window.history.replaceState(null, '', url), window.veracity);
      if (!credentials) {
        setBoot({ state: 'no-token' });
        return;
      }
      const client = new ApiClient(credentials.baseUrl, credentials.uiToken);
      try {
        const [listed, info] = await Promise.all([client.listApplications(), client.serverInfo()]);
        setApplications(listed.applications);
        setBoot({ state: 'ready', client, server: serverLabel(info, credentials.baseUrl) });
      } catch (error) {
        const message = errorWords(error, { action: 'Opening Veracity' });
        setBoot({ state: error instanceof ApiFailure && error.status === 401 ? 'no-token' : 'failed', message } as Boot);
      }
    })();
  }, []);

  const client = boot.state === 'ready' ? boot.client : null;
  const keys = useMemo(() => activeKeys(applications), [applications]);
  const keysRef = useKeysRef(keys);
  // In a browser on this computer (npm start's browser mode) the window's token is made at each start of the core: a
  // refusal of it means Veracity was restarted. The desktop app is handed its token by the shell; a team server keeps its own.
  const tokenPerLaunch = boot.state === 'ready' && boot.server.kind === 'desktop' && !window.veracity;
  const session = useMemo(() => (client ? new CaseSession({ client, keys: () => keysRef.current, tokenPerLaunch }) : null), [client, keysRef, tokenPerLaunch]);

  const reloadApplications = useCallback(async () => {
    if (client) setApplications((await client.listApplications()).applications);
  }, [client]);

  if (boot.state === 'loading') return <p className="boot">Opening Veracity…</p>;
  if (boot.state === 'no-token') {
    return (
      <main className="boot" role="alert">
        <h1>Veracity</h1>
        <p>
          This window has no access token. Open the address that <code>npm start</code> printed (it ends with <code>#token=…</code>), or start the desktop app
          again. On a team server, use the address with the token its operator gave you.
        </p>
      </main>
    );
  }
  if (boot.state === 'failed' || !client || !session) {
    return (
      <main className="boot" role="alert">
        <h1>Veracity</h1>
        <p>{boot.state === 'failed' ? boot.message : 'Veracity could not start.'}</p>
      </main>
    );
  }

  return (
    <div className="app">
      <header className="top">
        <h1 className="brand">Veracity</h1>
        {boot.state === 'ready' && (
          <p className="server" data-testid="server-label" data-kind={boot.server.kind} title={boot.server.detail}>
            <span className="visually-hidden">Connected to: </span>
            {boot.server.text}
            <span className="visually-hidden">. {boot.server.detail}</span>
          </p>
        )}
        <nav aria-label="Screens" className="tabs">
          {(['assess', 'history', 'settings'] as const).map((s) => (
            <button key={s} type="button" className="tab" aria-current={screen === s ? 'page' : undefined} onClick={() => setScreen(s)}>
              {s === 'assess' ? 'Assess' : s === 'history' ? 'History' : 'Settings'}
            </button>
          ))}
        </nav>
        <Glossary />
        <label className="theme">
          Theme{' '}
          <select value={theme} onChange={(e) => setTheme(e.target.value as ThemeChoice)}>
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </header>
      <main className="screen">
        {screen === 'assess' && <AssessView client={client} session={session} keys={keys} />}
        {screen === 'history' && (
          <HistoryView
            client={client}
            applications={applications}
            keys={keys}
            onOpen={(jobs) => {
              session.open(jobs);
              setScreen('assess');
            }}
            onOpenCase={(caseId, fileId) => {
              void session.openCase(caseId, fileId ?? null);
              setScreen('assess');
            }}
          />
        )}
        {screen === 'settings' && <SettingsView client={client} applications={applications} onChanged={reloadApplications} />}
      </main>
    </div>
  );
}

function useKeysRef(keys: Partial<Record<PipelineKind, AppKey>>): { current: Partial<Record<PipelineKind, AppKey>> } {
  const [ref] = useState(() => ({ current: keys }));
  ref.current = keys;
  return ref;
}
