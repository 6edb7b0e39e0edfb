// Settings: the applications and their API keys, for local tools that call the v1 API (show, copy, create, revoke).
import { useState } from 'react';
import type { ApiKeyInfo, ApplicationInfo } from '../../src/api/admin-schemas.js';
import type { PipelineKind } from '../../src/api/schemas.js';
import { ApiFailure, type ApiClient } from '../lib/api-client.js';
import { failureWords } from '../lib/words.js';

interface Props {
  client: ApiClient;
  applications: ApplicationInfo[];
  onChanged: () => Promise<void>;
}

export function maskKey(key: string): string {
  return key.length <= 16 ? '••••••••' : `${key.slice(0, 6)}…${key.slice(-6)}`;
}

export function SettingsView({ client, applications, onChanged }: Props): React.JSX.Element {
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [newKind, setNewKind] = useState<PipelineKind>('images');

  const act = async (action: string, call: () => Promise<unknown>, done: string): Promise<void> => {
    setError(null);
    setStatus(null);
    try {
      await call();
      await onChanged();
      setStatus(done);
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action }) : String(e));
    }
  };

  return (
    <section aria-labelledby="settings-title" className="settings">
      <h2 id="settings-title">Applications and API keys</h2>
      <p className="hint">
        Local tools call the v1 API at <code>{window.location.origin}/v1</code> with <code>Authorization: Bearer &lt;key&gt;</code>. Each application analyses one kind of file. Keys are secrets: anyone with one can submit files and read results.
      </p>
      <div role="status" aria-live="polite" className="status-line">
        {status}
      </div>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
      {applications.map((application) => (
        <ApplicationPanel key={application.id} client={client} application={application} act={act} />
      ))}
      <form
        className="panel"
        onSubmit={(e) => {
          e.preventDefault();
          if (!newName.trim()) return;
          void act('Creating the application', () => client.createApplication(newName.trim(), newKind), `Application “${newName.trim()}” created.`).then(() => setNewName(''));
        }}
      >
        <h3>New application</h3>
        <div className="row">
          <label>
            Name <input value={newName} onChange={(e) => setNewName(e.target.value)} maxLength={100} required />
          </label>
          <label>
            Kind{' '}
            <select value={newKind} onChange={(e) => setNewKind(e.target.value as PipelineKind)}>
              <option value="images">Images</option>
              <option value="pdfs">PDFs</option>
            </select>
          </label>
          <button type="submit">Create application</button>
        </div>
      </form>
    </section>
  );
}

type Act = (action: string, call: () => Promise<unknown>, done: string) => Promise<void>;

function ApplicationPanel({ client, application, act }: { client: ApiClient; application: ApplicationInfo; act: Act }): React.JSX.Element {
  const [keyName, setKeyName] = useState('');
  const [days, setDays] = useState('');
  return (
    <section className="panel" aria-labelledby={`app-${application.id}`} data-testid="application-panel">
      <h3 id={`app-${application.id}`}>
        {application.name} <span className="hint">({application.kind === 'images' ? 'images' : 'PDFs'})</span>
      </h3>
      <p className="hint">
        Application id <code>{application.id}</code>
      </p>
      <table className="keys">
        <caption className="visually-hidden">API keys of {application.name}</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">Value</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {application.keys.map((key) => (
            <KeyRow key={key.id} client={client} apiKey={key} act={act} />
          ))}
        </tbody>
      </table>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const expiresInDays = days.trim() ? Number(days) : undefined;
          const body = { ...(keyName.trim() ? { name: keyName.trim() } : {}), ...(expiresInDays ? { expiresInDays } : {}) };
          void act(`Creating a key for ${application.name}`, () => client.createKey(application.id, body), `New key created for ${application.name}.`).then(() => {
            setKeyName('');
            setDays('');
          });
        }}
      >
        <label>
          New key name <input value={keyName} onChange={(e) => setKeyName(e.target.value)} maxLength={100} />
        </label>
        <label>
          Expires after (days) <input value={days} onChange={(e) => setDays(e.target.value)} inputMode="numeric" pattern="[0-9]*" size={5} />
        </label>
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}

function KeyRow({ client, apiKey, act }: { client: ApiClient; apiKey: ApiKeyInfo; act: Act }): React.JSX.Element {
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState(false);
  const revoked = apiKey.revokedAt !== null;
  const expired = apiKey.expiresAt !== null && new Date(apiKey.expiresAt) <= new Date();
  return (
    <tr data-testid="key-row" data-revoked={revoked}>
      <td>{apiKey.name}</td>
      <td>{new Date(apiKey.createdAt).toLocaleDateString()}</td>
      <td>{apiKey.expiresAt ? new Date(apiKey.expiresAt).toLocaleDateString() : 'never'}</td>
      <td>{revoked ? 'revoked' : expired ? 'expired' : 'active'}</td>
      <td>
        <code className="key-value" data-testid="key-value">
          {shown ? apiKey.apiKey : maskKey(apiKey.apiKey)}
        </code>
      </td>
      <td>
        <div className="row">
        <button type="button" onClick={() => setShown(!shown)} aria-pressed={shown}>
          {shown ? 'Hide' : 'Show'}
        </button>
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(apiKey.apiKey).then(
              () => setCopied(true),
              () => setShown(true),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        {!revoked &&
          (confirming ? (
            <>
              <button type="button" className="danger" onClick={() => void act('Revoking the key', () => client.revokeKey(apiKey.id), `Key “${apiKey.name}” revoked.`)}>
                Confirm revoke
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" onClick={() => setConfirming(true)}>
              Revoke…
            </button>
          ))}
        </div>
      </td>
    </tr>
  );
}
