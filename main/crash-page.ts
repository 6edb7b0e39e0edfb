// The screen the window shows when the core stops: what happened, where the log is, and a Restart button. It is a
// data: page with its own strict CSP; its one script is allowed by hash and can only call the preload's restartCore().
import { createHash } from 'node:crypto';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export const CRASH_SCRIPT =
  "document.getElementById('restart').addEventListener('click',function(){var b=this;b.disabled=true;b.textContent='Restarting…';window.veracity.restartCore();});";

export function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;
}

export function crashPageCsp(): string {
  return `default-src 'none'; script-src ${scriptHash(CRASH_SCRIPT)}; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`;
}

export interface CrashInfo {
  /** The heading; by default, that the engine stopped. */
  title?: string;
  /** The sentence under the reason; by default, that nothing accepted was lost. */
  note?: string;
  /** The button's label; by default, Restart Veracity. */
  action?: string;
  reason: string;
  logFile: string;
  lastLines: string[];
}

const LOCAL_NOTE =
  'Your cases and results are saved on this computer; nothing was lost that had already been accepted. Files that were still being analysed will be analysed again after the restart.';

export function crashPageHtml({ title = 'The Veracity engine stopped', note = LOCAL_NOTE, action = 'Restart Veracity', reason, logFile, lastLines }: CrashInfo): string {
  const tail = lastLines.slice(-12).map(escapeHtml).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(crashPageCsp())}">
<title>${escapeHtml(title)}</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,sans-serif}
body{max-width:44rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
h1{font-size:1.6rem}
pre{white-space:pre-wrap;word-break:break-word;background:rgba(127,127,127,.15);padding:.75rem;border-radius:.4rem;font-size:.85rem}
button{font-size:1.1rem;padding:.6rem 1.4rem;border-radius:.4rem;cursor:pointer}
button:focus-visible{outline:3px solid #3b82f6;outline-offset:2px}
</style></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(reason)}</p>
<p>${escapeHtml(note)}</p>
<p><button id="restart" type="button" autofocus>${escapeHtml(action)}</button></p>
<p>Details are in the log file <code>${escapeHtml(logFile)}</code>.</p>
${tail ? `<details><summary>Last lines from the engine</summary><pre>${tail}</pre></details>` : ''}
</main>
<script>${CRASH_SCRIPT}</script>
</body></html>`;
}

export function crashPageUrl(info: CrashInfo): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(crashPageHtml(info))}`;
}
