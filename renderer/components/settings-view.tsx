// Settings: the applications and their API keys, for local tools that call the v1 API: create (the key is shown
// once, with a copy button), list by name and last characters, revoke; the Content Credentials trust anchors (add
// PEM, remove); and the certificate that signs case reports.
import { useEffect, useState } from 'react';
import type { ApiKeyInfo, ApplicationInfo, CreatedApiKey, TrustAnchorList } from '../../src/api/app-schemas.js';
import type { PipelineKind, ReportSigningCertificate } from '../../src/api/schemas.js';
import type { ApiClient } from '../lib/api-client.js';
import { errorWords } from '../lib/words.js';

interface Props {
  client: ApiClient;
  applications: ApplicationInfo[];
  onChanged: () => Promise<void>;
}

/** A key in a list: its last characters only (the key itself is shown once, when it is created). */
export function keyEnding(key: ApiKeyInfo): string {
  return `…${key.hint}`;
}

/** A key just created: shown here until dismissed or until Settings is left, then never again. */
export interface RevealedKey {
  applicationId: string;
  key: CreatedApiKey;
}

export function SettingsView({ client, applications, onChanged }: Props): React.JSX.Element {
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [newKind, setNewKind] = useState<PipelineKind>('images');
  const [revealed, setRevealed] = useState<RevealedKey | null>(null);

  const act = async <T,>(action: string, call: () => Promise<T>, done: string): Promise<T | undefined> => {
    setError(null);
    setStatus(null);
    try {
      const result = await call();
      await onChanged();
      setStatus(done);
      return result;
    } catch (e) {
      setError(errorWords(e, { action }));
      return undefined;
    }
  };

  return (
    <section aria-labelledby="settings-title" className="settings">
      <h2 id="settings-title">Applications and API keys</h2>
      <p className="hint">
        Local tools call the v1 API at <code>{window.location.origin}/v1</code> with <code>Authorization: Bearer &lt;key&gt;</code>. Each application analyses one kind of file. Keys are secrets: anyone with one can submit files and read results. Veracity keeps only a digest of each key, so a key is shown once, when it is created.
      </p>
      <Outcome status={status} error={error} />
      {applications.map((application) => (
        <ApplicationPanel
          key={application.id}
          client={client}
          application={application}
          act={act}
          revealed={revealed?.applicationId === application.id ? revealed.key : null}
          onCreated={(key) => setRevealed({ applicationId: application.id, key })}
          onDismiss={() => setRevealed(null)}
        />
      ))}
      <form
        className="panel"
        onSubmit={(e) => {
          e.preventDefault();
          const name = newName.trim();
          if (!name) return;
          void act('Creating the application', () => client.createApplication(name, newKind), `Application “${name}” created with a key. Copy the key now: it will not be shown again.`).then((created) => {
            if (!created) return;
            setNewName('');
            setRevealed({ applicationId: created.id, key: created.createdKey });
          });
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
      <TrustAnchorsPanel client={client} />
      <ReportSigningPanel client={client} />
    </section>
  );
}

/**
 * Who Content Credentials signers are trusted by: CA certificates (every signer they issue) and signers' own
 * certificates (allowed signers), each with its subject and expiry; PEM pasted or read from a file is added, one is
 * removed by its fingerprint. Listed only where the bundle is configured outside the window.
 */
function TrustAnchorsPanel({ client }: { client: ApiClient }): React.JSX.Element {
  const [list, setList] = useState<TrustAnchorList | null>(null);
  const [pem, setPem] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const run = async (action: string, call: () => Promise<TrustAnchorList>, done: string) => {
    setError(null);
    setStatus(null);
    try {
      setList(await call());
      setStatus(done);
      return true;
    } catch (e) {
      setError(errorWords(e, { action }));
      return false;
    }
  };
  useEffect(() => {
    void run('Reading the trust anchors', () => client.listTrustAnchors(), '');
  }, [client]);
  const now = Date.now();
  return (
    <section className="panel" aria-labelledby="trust-anchors-title" data-testid="trust-anchors">
      <h3 id="trust-anchors-title">Content Credentials trust anchors</h3>
      <p className="hint">
        A signed file’s signer is trusted when its certificate chains to a certificate authority listed here, or is itself listed (an allowed signer). With none listed, a valid signature is reported as valid and its signer as not established.
      </p>
      <Outcome status={status} error={error} />
      {list && list.anchors.length === 0 && <p data-testid="no-anchors">No trust anchors: no signer is established.</p>}
      {list && list.anchors.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Kind</th>
                <th scope="col">Expires</th>
                {list.editable && <th scope="col">Remove</th>}
              </tr>
            </thead>
            <tbody>
              {list.anchors.map((a) => (
                <tr key={a.fingerprintSha256} data-testid="anchor-row">
                  <td>
                    {a.subject}
                    <br />
                    <code className="fingerprint" title="SHA-256 fingerprint">
                      {a.fingerprintSha256}
                    </code>
                  </td>
                  <td>{a.role === 'authority' ? 'Certificate authority' : 'Allowed signer'}</td>
                  <td>
                    {new Date(a.notAfter).toLocaleDateString()}
                    {Date.parse(a.notAfter) < now && ' (expired)'}
                  </td>
                  {list.editable && (
                    <td>
                      <button
                        type="button"
                        aria-label={`Remove ${a.subject}`}
                        onClick={() => void run('Removing the trust anchor', () => client.removeTrustAnchor(a.fingerprintSha256), `Removed ${a.subject}.`)}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list && !list.editable && <p className="hint">These anchors are configured outside this window (VERACITY_TRUST_ANCHORS or the team server) and are changed there.</p>}
      {list?.editable && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!pem.trim()) return;
            void run('Adding trust anchors', () => client.addTrustAnchors(pem), 'Trust anchors added.').then((ok) => ok && setPem(''));
          }}
        >
          <label className="stacked">
            Certificates to trust (PEM)
            <textarea value={pem} onChange={(e) => setPem(e.target.value)} rows={5} spellCheck={false} placeholder="-----BEGIN CERTIFICATE-----" />
          </label>
          <div className="row">
            <label>
              Or read a file{' '}
              <input
                type="file"
                accept=".pem,.crt,.cer,application/x-pem-file"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) void file.text().then(setPem);
                }}
              />
            </label>
            <button type="submit">Add trust anchors</button>
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * The certificate of the installation's own key, which signs every exported case report (a PDF signature): its
 * fingerprint is what a reader compares with the signer their PDF reader shows, since no trust store knows it.
 */
function ReportSigningPanel({ client }: { client: ApiClient }): React.JSX.Element {
  const [certificate, setCertificate] = useState<ReportSigningCertificate | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    client.reportSigningCertificate().then(setCertificate, (e: unknown) =>
      setError(errorWords(e, { action: 'Reading the report signing certificate' })),
    );
  }, [client]);
  return (
    <section className="panel" aria-labelledby="report-signing-title" data-testid="report-signing">
      <h3 id="report-signing-title">Report signing</h3>
      <p className="hint">
        Every case report PDF is signed with this installation’s own key, so any change after export shows in a PDF reader (Acrobat’s signature panel, <code>pdfsig</code>). The certificate is self-signed: a reader confirms a report came from here by comparing the signer’s SHA-256 fingerprint with this one. The key never leaves the installation that signs the reports (this computer, or the team server you are connected to).
      </p>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
      {certificate && (
        <dl className="certificate">
          <dt>Signer</dt>
          <dd data-testid="signing-subject">{certificate.subject}</dd>
          <dt>SHA-256 fingerprint</dt>
          <dd>
            <code data-testid="signing-fingerprint">{certificate.fingerprintSha256}</code>
          </dd>
          <dt>Valid</dt>
          <dd data-testid="signing-validity">
            {new Date(certificate.notBefore).toLocaleDateString()} to {new Date(certificate.notAfter).toLocaleDateString()}
          </dd>
        </dl>
      )}
    </section>
  );
}

/** What the last action of a panel came to: its words of success (polite, a live region) or of failure (an alert). */
function Outcome({ status, error }: { status: string | null; error: string | null }): React.JSX.Element {
  return (
    <>
      <div role="status" aria-live="polite" className="status-line">
        {status}
      </div>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** The one showing of a new key, with a copy button; the text says it will not be shown again. */
export function NewKeyNotice({ createdKey, onDismiss }: { createdKey: CreatedApiKey; onDismiss: () => void }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  const [copyFailed, setCopyFailed] = useState(false);
  return (
    <div className="new-key" role="region" aria-label={`New key ${createdKey.name}`} data-testid="new-key">
      <p>
        <strong>New key “{createdKey.name}”.</strong> Copy it now and keep it somewhere safe: this is the only time Veracity shows it. Lost it? Create another and revoke this one.
      </p>
      <code className="key-value" data-testid="new-key-value">
        {createdKey.apiKey}
      </code>
      {copyFailed && <p className="hint">Copying was not allowed here: select the key above and copy it by hand.</p>}
      <div className="row">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(createdKey.apiKey).then(
              () => setCopied(true),
              () => setCopyFailed(true),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

type Act = <T>(action: string, call: () => Promise<T>, done: string) => Promise<T | undefined>;

interface PanelProps {
  client: ApiClient;
  application: ApplicationInfo;
  act: Act;
  revealed: CreatedApiKey | null;
  onCreated: (key: CreatedApiKey) => void;
  onDismiss: () => void;
}

function ApplicationPanel({ client, application, act, revealed, onCreated, onDismiss }: PanelProps): React.JSX.Element {
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
            <th scope="col">Ends with</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {application.keys.map((key) => (
            <KeyRow key={key.id} client={client} apiKey={key} act={act} />
          ))}
        </tbody>
      </table>
      {application.keys.length === 0 && <p className="hint">No API keys yet. A local tool needs one: create it here and copy it when it is shown.</p>}
      {revealed && <NewKeyNotice createdKey={revealed} onDismiss={onDismiss} />}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const expiresInDays = days.trim() ? Number(days) : undefined;
          const body = { ...(keyName.trim() ? { name: keyName.trim() } : {}), ...(expiresInDays ? { expiresInDays } : {}) };
          void act(`Creating a key for ${application.name}`, () => client.createKey(application.id, body), `New key created for ${application.name}. Copy it now: it will not be shown again.`).then((created) => {
            if (!created) return;
            setKeyName('');
            setDays('');
            onCreated(created);
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
  const [confirming, setConfirming] = useState(false);
  const revoked = apiKey.revokedAt !== null;
  const expired = apiKey.expiresAt !== null && new Date(apiKey.expiresAt) <= new Date();
  return (
    <tr data-testid="key-row" data-revoked={revoked}>
      <td>{apiKey.name}</td>
      <td>{new Date(apiKey.createdAt).toLocaleDateString()}</td>
      <td>{apiKey.expiresAt ? new Date(apiKey.expiresAt).toLocaleDateString() : 'never'}</td>
      <td>{revoked ? 'revoked' : expired ? 'expired' : 'active'}</td>
      <td>
        <code className="key-value" data-testid="key-value" aria-label={`Key ending ${apiKey.hint}`}>
          {keyEnding(apiKey)}
        </code>
      </td>
      <td>
        <div className="row">
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
