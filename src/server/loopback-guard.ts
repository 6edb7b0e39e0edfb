// DNS-rebinding and cross-origin defence for a server on 127.0.0.1 (DECISIONS 28): only loopback names with our
// own port in Host, and no Origin but our own. Runs first, before auth, rate limiting or any body is read.
// Also splits an absolute-form request target, so that every hook decides on the same origin-form path.

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Splits a Host header into name and port; null if malformed. */
export function parseHost(host: string | undefined): { name: string; port: number | null } | null {
  if (!host) return null;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host.trim());
  if (!m) return null;
  return { name: m[1].toLowerCase(), port: m[2] === undefined ? null : Number(m[2]) };
}

/** A Host is allowed when it names a loopback host and the port this server listens on (80 implied when absent). */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  const parsed = parseHost(host);
  if (!parsed || !LOOPBACK_NAMES.has(parsed.name)) return false;
  return (parsed.port ?? 80) === port;
}

export function ownOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
}

/** Requests without Origin (curl, local tools) pass; a present Origin must be exactly one of ours. */
export function isAllowedOrigin(origin: string | undefined, port: number, extra: readonly string[] = []): boolean {
  if (origin === undefined) return true;
  return ownOrigins(port).includes(origin) || extra.includes(origin);
}

const ABSOLUTE_FORM = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/is;

/**
 * Splits a request target into the origin-form path every hook and the router see and, for an absolute-form target
 * (`GET http://127.0.0.1:PORT/v1/jobs HTTP/1.1`, RFC 9112 3.2.2), the authority it names, which the guard checks like
 * Host. A scheme other than http names no authority of ours: it gets an authority no Host check accepts.
 */
export function splitRequestTarget(target: string): { path: string; authority: string | null } {
  const m = ABSOLUTE_FORM.exec(target);
  if (!m) return { path: target, authority: null };
  const rest = m[3];
  const path = rest.startsWith('/') ? rest : `/${rest}`;
  return { path, authority: m[1].toLowerCase() === 'http' ? m[2] : '' };
}
