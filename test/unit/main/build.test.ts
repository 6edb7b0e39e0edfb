// The Electron build compiles here even though Electron cannot run: main and preload bundle into dist/main, the
// preload is self-contained (a sandboxed preload may only require electron), native modules stay external.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('build:main', () => {
  it('bundles main.cjs and preload.cjs with native modules left out', () => {
    execFileSync(process.execPath, ['main/build.mjs'], { stdio: 'pipe' });
    const main = fs.readFileSync('dist/main/main.cjs', 'utf8');
    const preload = fs.readFileSync('dist/main/preload.cjs', 'utf8');
    const requires = (code: string) => [...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]))].sort();
    expect(requires(preload)).toEqual(['electron']);
    for (const dep of requires(main)) expect(dep === 'electron' || dep.startsWith('node:')).toBe(true);
    expect(main).toContain('veracity:get-config');
    expect(main).toContain('requestSingleInstanceLock');
    // The preload hands the page two functions, never ipcRenderer itself.
    expect(preload).toContain('exposeInMainWorld');
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*\)/);
  });
});

interface BuilderConfig {
  linux: { target: string[] };
  win: { target: { target: string }[] };
  mac: { target: { target: string }[] };
  asarUnpack: string[];
  extraResources: { from: string; to: string; filter: string[] }[];
  files: string[];
  electronFuses: Record<string, boolean>;
}

describe('electron-builder.yml', () => {
  it('packages every platform, unpacks the native modules and ships models beside the asar', async () => {
    // js-yaml comes with electron-builder; imported by name so the test needs no types of its own.
    const yamlModule = 'js-yaml';
    const { load } = (await import(yamlModule)) as { load: (text: string) => unknown };
    const config = load(fs.readFileSync('electron-builder.yml', 'utf8')) as BuilderConfig;
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target[0].target).toBe('nsis');
    expect(config.mac.target[0].target).toBe('dmg');
    for (const native of ['better-sqlite3', 'onnxruntime-node', 'sharp']) {
      expect(config.asarUnpack.some((p) => p.includes(`node_modules/${native}/`))).toBe(true);
    }
    expect(config.extraResources[0]).toMatchObject({ from: 'models', to: 'models' });
    // every file the shipped model's manifest names travels with it (the networks, the face finder's cascade)
    const manifest = JSON.parse(fs.readFileSync('models/veracity-detector/manifest.json', 'utf8')) as Record<string, { file?: string; finder?: { file: string } } | string>;
    const named = [manifest.file as string, ...['semantic', 'semantic2'].map((k) => (manifest[k] as { file?: string } | undefined)?.file), (manifest.portraits as { finder?: { file: string } } | undefined)?.finder?.file]
      .filter((f): f is string => !!f)
      .map((f) => `veracity-detector/${f}`);
    expect(named.length).toBeGreaterThanOrEqual(2);
    const minimatchModule = 'minimatch'; // comes with electron-builder, like js-yaml
    const { minimatch } = (await import(minimatchModule)) as { minimatch: (path: string, pattern: string) => boolean };
    const filter = config.extraResources[0].filter;
    for (const f of ['veracity-detector/manifest.json', ...named]) {
      const shipped = filter.filter((p) => !p.startsWith('!')).some((p) => minimatch(f, p)) && !filter.filter((p) => p.startsWith('!')).some((p) => minimatch(f, p.slice(1)));
      expect(shipped, f).toBe(true);
    }
    expect(config.files).toEqual(expect.arrayContaining(['dist/main/**', 'dist/renderer/**', 'src/**']));
    expect(config.electronFuses).toMatchObject({ runAsNode: false, enableNodeCliInspectArguments: false, onlyLoadAppFromAsar: true });
  });

  const schemaFile = 'node_modules/app-builder-lib/scheme.json';
  it.skipIf(!fs.existsSync(schemaFile))('is valid against electron-builder\'s own configuration schema', async () => {
    const yamlModule = 'js-yaml';
    const ajvModule = 'ajv';
    const { load } = (await import(yamlModule)) as { load: (text: string) => unknown };
    const Ajv = ((await import(ajvModule)) as { default: new (o: object) => { compile: (s: unknown) => ((d: unknown) => boolean) & { errors?: unknown } } }).default;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(fs.readFileSync(schemaFile, 'utf8')));
    const ok = validate(load(fs.readFileSync('electron-builder.yml', 'utf8')));
    expect(validate.errors ?? null).toBeNull();
    expect(ok).toBe(true);
  });
});
