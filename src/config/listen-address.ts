// Where `veracity serve` listens and which host names it answers to, for both the desktop core and a team server's
// API node: loopback by default; anything else only with --allow-network and the exact names clients use
// (--allowed-host, repeatable, or VERACITY_ALLOWED_HOSTS, comma-separated, read only with --allow-network).
// The config checks the names (src/api/host-names.ts) and refuses a non-loopback host without them.
import { LOOPBACK_LISTEN } from './config.js';

export const LISTEN_OPTIONS = {
  host: { type: 'string' },
  'allow-network': { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
} as const;

/** The config's `host` and `allowedHosts` from the parsed flags; throws a sentence for a refused combination. */
export function listenAddress(
  values: { host?: string; 'allow-network'?: boolean; 'allowed-host'?: string[] },
  env: NodeJS.ProcessEnv = process.env,
): { host: string; allowedHosts: string[] } {
  const host = values.host ?? '127.0.0.1';
  const network = values['allow-network'] === true;
  if (!LOOPBACK_LISTEN.has(host) && !network) {
    throw new Error(`--host must be a loopback address (127.0.0.1 or ::1) unless --allow-network is given with --allowed-host: by default Veracity never listens on the network.`);
  }
  if (!network && values['allowed-host'] !== undefined) throw new Error('--allowed-host needs --allow-network.');
  const allowedHosts = network ? (values['allowed-host'] ?? env.VERACITY_ALLOWED_HOSTS?.split(',').map((h) => h.trim()).filter(Boolean) ?? []) : [];
  if (network && allowedHosts.length === 0) {
    throw new Error('--allow-network needs at least one --allowed-host NAME[:PORT] (or VERACITY_ALLOWED_HOSTS): the host names clients use to reach this server.');
  }
  return { host: host === 'localhost' ? '127.0.0.1' : host, allowedHosts };
}
