// Host names as the Host header and an operator's allowed-hosts list spell them: one parser, read by the config
// (which checks the list at boot) and by the server's Host/Origin guard.

/** Splits a Host header into name and port; null if malformed. */
export function parseHost(host: string | undefined): { name: string; port: number | null } | null {
  if (!host) return null;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host.trim());
  if (!m) return null;
  return { name: m[1].toLowerCase(), port: m[2] === undefined ? null : Number(m[2]) };
}

/**
 * The canonical form of an authority a server operator allows (`veracity.example.org`, `10.0.0.5:8080`,
 * `[fd00::5]:8080`): lower-case name, port only when given. Null when it is not a host name with an optional port.
 */
export function canonicalAuthority(authority: string): string | null {
  const parsed = parseHost(authority);
  if (!parsed || parsed.name === '' || (parsed.port !== null && (parsed.port < 1 || parsed.port > 65535))) return null;
  if (!parsed.name.startsWith('[') && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(parsed.name)) return null;
  return parsed.port === null ? parsed.name : `${parsed.name}:${parsed.port}`;
}
