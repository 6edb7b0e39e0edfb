// What the header says about where the window sends files: this computer's own core, or a team server (named by its
// host, as the specialist typed or was given it), so nobody drops evidence on a shared server believing it stays local.
import type { ServerInfo } from '../../src/api/app-schemas.js';

export interface ServerLabel {
  /** Short text for the header. */
  text: string;
  /** The sentence behind it (tooltip and accessible description). */
  detail: string;
  kind: ServerInfo['kind'];
}

/** The host (and port, when not the scheme's default) of the base URL, or the URL itself if it does not parse. */
function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

export function serverLabel(info: ServerInfo, baseUrl: string): ServerLabel {
  if (info.kind === 'team') {
    const host = hostOf(baseUrl);
    return {
      kind: 'team',
      text: `Team server · ${host}`,
      detail: `Files you add are sent to the team server at ${host}, analysed there and kept in your team's shared case history.`,
    };
  }
  return { kind: 'desktop', text: 'This computer', detail: 'Files you add are analysed on this computer and stay in its local case history.' };
}
