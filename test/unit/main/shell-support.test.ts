// The shell's supporting decisions: data and log paths per platform, the log file (rotation, log injection), the
// crash screen (escaping, CSP hash of its one script) and `npm start`'s choice between Electron and browser mode.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CRASH_SCRIPT, crashPageCsp, crashPageHtml, crashPageUrl } from '../../../main/crash-page.js';
import { browserBanner, chooseLaunchMode, shouldTryElectronDownload, chooseServePort, isStale, isStructuredLogLine, resolveElectronBinary } from '../../../main/launcher.js';
import { createFileLogger, escapeLogText } from '../../../main/logger.js';
import { logDir } from '../../../main/paths.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-shell-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('logDir', () => {
  it('is logs/ inside the data dir', () => {
    expect(logDir('/srv/v')).toBe(path.join('/srv/v', 'logs'));
  });
});

describe('log file', () => {
  it('writes one escaped line per event into the data dir', () => {
    const dir = tempDir();
    const log = createFileLogger(dir, 'main.log', () => new Date('2026-01-02T03:04:05.000Z'));
    log.info('opened "evil\nFAKE 2026 ERROR forged.jpg"');
    log.error('failed', new Error('boom'));
    log.core('stderr', 'core says hi');
    const lines = fs.readFileSync(log.file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('2026-01-02T03:04:05.000Z INFO opened "evil\\u000aFAKE 2026 ERROR forged.jpg"');
    expect(lines[1]).toMatch(/^2026-01-02T03:04:05.000Z ERROR failed: Error: boom/);
    expect(lines[2]).toBe('2026-01-02T03:04:05.000Z CORE-ERR core says hi');
    expect(escapeLogText('a\r\nb\u2028c')).toBe('a\\u000d\\u000ab\\u2028c');
  });

  it('never writes the UI token or an API key', () => {
    const dir = tempDir();
    const log = createFileLogger(dir);
    log.core('stdout', 'Veracity app at http://127.0.0.1:5/#token=abcdefghijklmnopqrstuvwxyz012345');
    log.info('header Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig-nature_1 seen');
    log.info('key eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
    const text = fs.readFileSync(log.file, 'utf8');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz012345');
    expect(text).not.toContain('eyJzdWIiOiJ4In0');
    expect(text).toContain('#token=[redacted]');
  });
});

describe('crash screen', () => {
  it('escapes the reason and the engine output', () => {
    const html = crashPageHtml({ reason: '<img src=x onerror=alert(1)>', logFile: '/d/logs/core.log', lastLines: ['<script>alert(2)</script>'] });
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>alert(2)');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Restart Veracity');
  });

  it('allows its one script by hash and nothing else', () => {
    const expected = createHash('sha256').update(CRASH_SCRIPT).digest('base64');
    expect(crashPageCsp()).toContain(`script-src 'sha256-${expected}'`);
    expect(crashPageCsp()).toMatch(/^default-src 'none'/);
    const html = crashPageHtml({ reason: 'x', logFile: 'l', lastLines: [] });
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toEqual([CRASH_SCRIPT]);
    expect(decodeURIComponent(crashPageUrl({ reason: 'x', logFile: 'l', lastLines: [] }).split(',').slice(1).join(','))).toBe(html);
  });
});

describe('npm start', () => {
  it('uses Electron only when its binary exists', () => {
    expect(resolveElectronBinary(() => { throw new Error('Electron failed to install correctly'); })).toBeNull();
    expect(resolveElectronBinary(() => '/nope/electron', () => false)).toBeNull();
    expect(resolveElectronBinary(() => '/opt/electron', () => true)).toBe('/opt/electron');
    expect(chooseLaunchMode([], {}, null)).toMatchObject({ mode: 'browser' });
    expect(chooseLaunchMode([], {}, '/opt/electron')).toEqual({ mode: 'electron', electronPath: '/opt/electron' });
    expect(chooseLaunchMode(['--browser'], {}, '/opt/electron')).toMatchObject({ mode: 'browser' });
  });

  it('reads the installed Electron package the way npm start does', async () => {
    const { createRequire } = await import('node:module');
    const req = createRequire(path.resolve('package.json'));
    // With ELECTRON_SKIP_BINARY_DOWNLOAD (as in CI) there is no path.txt and no binary: browser mode.
    const pathFile = path.resolve('node_modules/electron/path.txt');
    const installed = fs.existsSync(pathFile) && fs.existsSync(path.resolve('node_modules/electron/dist', fs.readFileSync(pathFile, 'utf8')));
    const resolved = resolveElectronBinary(() => req('electron'));
    expect(resolved !== null).toBe(installed);
    expect(chooseLaunchMode([], {}, resolved).mode).toBe(installed ? 'electron' : 'browser');
  });

  it('reads the port and prints the address with its token', () => {
    expect(chooseServePort([], {})).toBe(0);
    expect(chooseServePort(['--port', '8765'], {})).toBe(8765);
    expect(chooseServePort([], { VERACITY_PORT: '9000' })).toBe(9000);
    expect(() => chooseServePort(['--port', '70000'], {})).toThrow(/Invalid port/);
    expect(browserBanner('http://127.0.0.1:1/#token=abc', '/d')).toContain('http://127.0.0.1:1/#token=abc');
    expect(isStructuredLogLine('{"level":30,"msg":"Server listening"}')).toBe(true);
    expect(isStructuredLogLine('Veracity API listening at http://127.0.0.1:1')).toBe(false);
  });

  it('rebuilds when an output is missing or older than its sources', () => {
    const dir = tempDir();
    const src = path.join(dir, 'src');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'a.ts'), 'x');
    const out = path.join(dir, 'out.js');
    expect(isStale(out, [src])).toBe(true);
    fs.writeFileSync(out, 'y');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(src, 'a.ts'), past, past);
    expect(isStale(out, [src])).toBe(false);
    fs.writeFileSync(path.join(src, 'b.ts'), 'z');
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(src, 'b.ts'), future, future);
    expect(isStale(out, [src])).toBe(true);
  });
});

describe('Electron download at first start', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it('tries when the package has no binary, unless browser mode, CI or a recent failure says not to', () => {
    expect(shouldTryElectronDownload([], {}, true, null, now)).toBe(true);
    expect(shouldTryElectronDownload([], {}, false, null, now)).toBe(false);
    expect(shouldTryElectronDownload(['--browser'], {}, true, null, now)).toBe(false);
    expect(shouldTryElectronDownload([], { VERACITY_BROWSER: '1' }, true, null, now)).toBe(false);
    expect(shouldTryElectronDownload([], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, true, null, now)).toBe(false);
    expect(shouldTryElectronDownload([], { CI: 'true' }, true, null, now)).toBe(false);
    expect(shouldTryElectronDownload([], {}, true, now - 3_600_000, now)).toBe(false);
    expect(shouldTryElectronDownload([], {}, true, now - 2 * 86_400_000, now)).toBe(true);
  });
});
