// DNS-rebinding and cross-origin defence (DECISIONS 28): only loopback names with our own port in Host, and no
// Origin but our own. Runs first, before auth, rate limiting or any body is read. A team server that listens on the
// network (`veracity serve --allow-network --allowed-host NAME`) also answers to the exact authorities it was given,
// and to their http/https origins, nothing else.
// Also splits an absolute-form request target, so that every hook decides on the same origin-form path, and finds a
// header the guard or authentication reads sent twice (which the guard refuses first, RFC 9112 3.2).

import { parseHost } from '../api/host-names.js';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A Host is allowed when it names a loopback host and the port this server listens on (80 implied when absent), or
 * is exactly one of the operator's allowed authorities (canonical form: an entry without a port matches a Host
 * without one, as a TLS proxy on 443 forwards it).
 */
export function isAllowedHost(host: string | undefined, port: number, allowedHosts: readonly string[] = NONE): boolean {
  // A client sends the same Host on every request: the last one allowed, for this port and list, is allowed again
  // without parsing it (the answer depends on nothing else; a refused Host is parsed every time).
  const last = lastAllowed;
  if (last !== null && last.host === host && last.port === port && last.allowedHosts === allowedHosts) return true;
  const parsed = parseHost(host);
  if (!parsed) return false;
  let ok: boolean;
  if (LOOPBACK_NAMES.has(parsed.name)) ok = (parsed.port ?? 80) === port;
  else ok = allowedHosts.length > 0 && allowedHosts.includes(parsed.port === null ? parsed.name : `${parsed.name}:${parsed.port}`);
  if (ok) lastAllowed = { host: host!, port, allowedHosts };
  return ok;
}
const NONE: readonly string[] = Object.freeze([]);
let lastAllowed: { host: string; port: number; allowedHosts: readonly string[] } | null = null;

export function ownOrigins(port: number, allowedHosts: readonly string[] = []): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...allowedHosts.flatMap((h) => [`https://${h}`, `http://${h}`])];
}

/** Requests without Origin (curl, local tools) pass; a present Origin must be exactly one of ours. */
export function isAllowedOrigin(origin: string | undefined, port: number, extra: readonly string[] = [], allowedHosts: readonly string[] = []): boolean {
  if (origin === undefined) return true;
  return ownOrigins(port, allowedHosts).includes(origin) || extra.includes(origin);
}

/** The headers the guard and authentication read, as an error's path names them. */
const SINGLE_HEADERS = ['Host', 'Origin', 'Authorization'] as const;

/**
 * The first header that the guard or authentication reads and that the request sends on more than one line, or null.
 * Node keeps only the first Host and Authorization line and joins Origin lines, so `req.headers` cannot tell: the raw
 * lines are counted (RFC 9112 3.2: a request with more than one Host line is answered 400). Names are compared by
 * length first, so most header lines are skipped without a lower-case copy.
 */
export function repeatedHeader(rawHeaders: readonly string[]): (typeof SINGLE_HEADERS)[number] | null {
  let seen = 0; // bit k: SINGLE_HEADERS[k] was sent
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const n = rawHeaders[i].length;
    if (n !== 4 && n !== 6 && n !== 13) continue;
    const name = rawHeaders[i].toLowerCase();
    let k: 0 | 1 | 2;
    if (name === 'host') k = 0;
    else if (name === 'origin') k = 1;
    else if (name === 'authorization') k = 2;
    else continue;
    if (seen & (1 << k)) return SINGLE_HEADERS[k];
    seen |= 1 << k;
  }
  return null;
}

const ABSOLUTE_FORM = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/is;

/**
 * Splits a request target into the origin-form path every hook and the router see and, for an absolute-form target
 * (`GET http://127.0.0.1:PORT/v1/jobs HTTP/1.1`, RFC 9112 3.2.2), the authority it names, which the guard checks like
 * Host. A scheme other than http names no authority of ours: it gets an authority no Host check accepts.
 */
export function splitRequestTarget(target: string): { path: string; authority: string | null } {
  // Origin-form (the usual case, checked on every request): no scheme, no authority.
  const m = target.charCodeAt(0) === 47 ? null : ABSOLUTE_FORM.exec(target);
  if (!m) return { path: target, authority: null };
  const rest = m[3];
  const path = rest.startsWith('/') ? rest : `/${rest}`;
  return { path, authority: m[1].toLowerCase() === 'http' ? m[2] : '' };
}
