// A team server reachable from other machines (issue 15, item 4): `veracity serve` stays loopback-only unless it is
// given --allow-network and the exact host names clients use; then those names (and their origins) are answered, and
// every other Host or Origin is still refused before any key is read.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalAuthority } from '../../src/api/host-names.js';
import { loadConfig } from '../../src/config/config.js';
import { isAllowedHost, isAllowedOrigin } from '../../src/server/loopback-guard.js';
import { REPO, tempDir } from './helpers.js';

const run = promisify(execFile);
const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');
const cleanEnv = { ...process.env, VERACITY_DATA_DIR: '', VERACITY_ALLOWED_HOSTS: '' };
const veracity = (args: string[], env: NodeJS.ProcessEnv = {}) => run(process.execPath, [BIN, ...args], { env: { ...cleanEnv, ...env } });

describe('allowed host names', () => {
  it('are canonical authorities: lower case, optional port, nothing else', () => {
    expect(canonicalAuthority('Veracity.Example.ORG')).toBe('veracity.example.org');
    expect(canonicalAuthority('10.0.0.5:8080')).toBe('10.0.0.5:8080');
    expect(canonicalAuthority('[FD00::5]:443')).toBe('[fd00::5]:443');
    for (const bad of ['', 'http://x.org', 'x.org/path', 'x.org:0', 'x.org:70000', 'a b', '-x.org', 'x..org', 'user@x.org']) expect(canonicalAuthority(bad)).toBeNull();
    expect(() => loadConfig({ dataDir: tempDir(), allowedHosts: ['https://x.org'] }, {})).toThrow(/allowedHosts/);
    expect(loadConfig({ dataDir: tempDir(), allowedHosts: [' Team.Example '] }, {}).allowedHosts).toEqual(['team.example']);
  });

  it('widen Host and Origin only to exactly the names given; loopback keeps its port rule', () => {
    const allowed = ['team.example', 'team.example:8443'];
    expect(isAllowedHost('team.example', 7000, allowed)).toBe(true);
    expect(isAllowedHost('TEAM.example:8443', 7000, allowed)).toBe(true);
    expect(isAllowedHost('team.example:9999', 7000, allowed)).toBe(false);
    expect(isAllowedHost('evil.example', 7000, allowed)).toBe(false);
    expect(isAllowedHost('team.example.evil.example', 7000, allowed)).toBe(false);
    expect(isAllowedHost('team.example', 7000)).toBe(false); // the desktop: loopback only
    expect(isAllowedHost('127.0.0.1:7000', 7000, allowed)).toBe(true);
    expect(isAllowedHost('127.0.0.1:7000', 7001, allowed)).toBe(false); // the Host just allowed, for another port
    expect(isAllowedHost('team.example', 7000, allowed)).toBe(true);
    expect(isAllowedHost('team.example', 7000, ['other.example'])).toBe(false); // ... for another list
    expect(isAllowedHost('127.0.0.1:7001', 7000, allowed)).toBe(false);
    expect(isAllowedOrigin('https://team.example', 7000, [], allowed)).toBe(true);
    expect(isAllowedOrigin('https://team.example:8443', 7000, [], allowed)).toBe(true);
    expect(isAllowedOrigin('https://team.example.evil.example', 7000, [], allowed)).toBe(false);
    expect(isAllowedOrigin('https://team.example', 7000)).toBe(false);
  });

  it('a non-loopback listening address without allowed host names is a configuration error, whoever builds the config', () => {
    expect(() => loadConfig({ dataDir: tempDir(), host: '0.0.0.0' }, {})).toThrow(/host.*not a loopback address/s);
    expect(loadConfig({ dataDir: tempDir(), host: '0.0.0.0', allowedHosts: ['team.example'] }, {}).host).toBe('0.0.0.0');
  });
});

describe('veracity serve on the network', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.exitCode === null) {
        c.kill('SIGTERM');
        await new Promise((r) => c.once('exit', r));
      }
    }
  });

  it('is refused without --allow-network, without an allowed host, or with --allowed-host alone', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    await expect(veracity(['serve', '--host', '0.0.0.0', '--data-dir', dataDir])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--allow-network') });
    await expect(veracity(['serve', '--host', '0.0.0.0', '--allow-network', '--data-dir', dataDir])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--allowed-host') });
    await expect(veracity(['serve', '--allowed-host', 'team.example', '--data-dir', dataDir])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('needs --allow-network') });
    await expect(veracity(['serve', '--host', '0.0.0.0', '--allow-network', '--allowed-host', 'https://team.example', '--data-dir', dataDir])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('not a host name') });
    // The environment's list never opens a loopback desktop server to other names.
    await expect(veracity(['serve', '--host', '0.0.0.0', '--data-dir', dataDir], { VERACITY_ALLOWED_HOSTS: 'team.example' })).rejects.toMatchObject({ code: 1 });
  });

  it('listens on all interfaces, answers its allowed names, and still refuses every other Host and Origin', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--port', '0', '--allow-network', '--data-dir', tempDir()], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, VERACITY_ALLOWED_HOSTS: 'team.example, review.team.example:8443' },
    });
    children.push(child);
    const first = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const port = Number(/:(\d+)$/.exec(first)![1]);
    expect(first).toBe(`Veracity API listening at http://0.0.0.0:${port}`);

    const ask = (headers: Record<string, string>) =>
      new Promise<{ status: number; code: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/v1/jobs', headers }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, code: (JSON.parse(text) as { code: string }).code }));
        });
        req.once('error', reject);
        req.end();
      });
    // An allowed name reaches authentication (401: no key), whatever its case; so does the loopback name and port.
    expect(await ask({ host: 'team.example' })).toEqual({ status: 401, code: 'unauthorized' });
    expect(await ask({ host: 'Review.Team.Example:8443', origin: 'https://review.team.example:8443' })).toEqual({ status: 401, code: 'unauthorized' });
    expect(await ask({ host: `127.0.0.1:${port}` })).toEqual({ status: 401, code: 'unauthorized' });
    // Anything else is refused before the key is looked at.
    expect(await ask({ host: 'evil.example' })).toEqual({ status: 403, code: 'forbidden' });
    expect(await ask({ host: 'review.team.example' })).toEqual({ status: 403, code: 'forbidden' }); // allowed only with :8443
    expect(await ask({ host: 'team.example', origin: 'https://evil.example' })).toEqual({ status: 403, code: 'forbidden' });
  });
});
