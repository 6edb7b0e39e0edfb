// Lint: TypeScript rules plus the dependency direction of STYLE.md, enforced mechanically with one
// no-restricted-imports block per folder. Across processes: src never imports electron/react/DOM code; main imports
// only src/api and src/config/data-dir (the core runs in its own process); renderer imports src/api only. Inside
// src, dependencies point one way: api <- every layer; server -> jobs -> db/analysis; server and jobs -> report ->
// analysis; auth -> db; config is read by server, jobs and the composition (cli.ts, core.ts); nothing back. Code
// outside src/analysis goes through src/analysis/index.ts. src/bin holds two .mjs launchers that register tsx and
// import their entry (cli.ts, jobs/analysis-worker.ts) dynamically: no-restricted-imports does not see dynamic
// imports, so they have no block of their own.
import tseslint from 'typescript-eslint';

/** One ban list per folder (a later block replaces an earlier one for the same file, so each list is whole). */
const noImport = (bans) => ['error', { patterns: bans.map(({ group, message }) => ({ group, message })) }];

const notHeadless = { group: ['electron', 'react', 'react-dom', 'react/*', 'react-dom/*', '**/main/**', '**/renderer/**'], message: 'src/ is the headless core: no Electron, React, renderer or main imports.' };
const layer = (folders, message) => ({ group: folders.flatMap((f) => [`**/${f}/**`, `../${f}/*`]), message });
const composition = { group: ['**/cli.js', '**/core.js', '**/team-cli.js', '**/team-core.js', '**/ready-signal.js'], message: 'cli.ts, core.ts, team-cli.ts, team-core.ts and ready-signal.ts compose the core (the desktop and the team server); nothing inside src imports them.' };
const analysisSurface = { group: ['**/analysis/*', '!**/analysis/index.js'], message: 'Outside src/analysis, import the pipeline through src/analysis/index.ts only.' };

/** src/<folder> may import src/api and the folders named here, nothing else of src. */
const srcLayer = (folder, banned, why, extra = []) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: { 'no-restricted-imports': noImport([notHeadless, composition, layer(banned, why), ...extra]) },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'models/training/**', 'test/artifacts/**', 'playwright-report/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': noImport([notHeadless]),
    },
  },
  srcLayer('api', ['server', 'jobs', 'db', 'analysis', 'auth', 'config', 'report'], 'src/api is the contract every layer imports: it imports none of them.', [
    { group: ['node:*'], message: 'src/api is bundled into the renderer: no Node modules.' },
  ]),
  srcLayer('config', ['server', 'jobs', 'db', 'analysis', 'auth', 'report'], 'src/config is read by every layer: it imports none of them.'),
  srcLayer('analysis', ['server', 'jobs', 'db', 'auth', 'config', 'report'], 'src/analysis is a pure pipeline: it imports src/api only, never the server, jobs, db or auth.'),
  srcLayer('db', ['server', 'jobs', 'analysis', 'auth', 'config', 'report'], 'src/db is the bottom layer: it imports src/api types only.'),
  srcLayer('auth', ['server', 'jobs', 'analysis', 'report'], 'src/auth verifies keys over src/db: it never imports the server, jobs or analysis.'),
  srcLayer('report', ['server', 'jobs', 'db', 'auth', 'config'], 'src/report renders what src/server and src/jobs collected: it imports src/api (and the analysis through its index), never a service, repository or the server.', [
    analysisSurface,
  ]),
  srcLayer('jobs', ['server', 'auth'], 'src/jobs sits below src/server: errors it raises are mapped to HTTP in src/server.', [analysisSurface]),
  srcLayer('server', ['db', 'analysis'], 'src/server talks to src/jobs (services), never to repositories or the analysis pipeline.'),
  {
    files: ['src/db/**/*.ts'],
    rules: { '@typescript-eslint/ban-ts-comment': ['error', { 'ts-nocheck': true, 'ts-ignore': true }] },
  },
  {
    files: ['main/**/*.ts'],
    rules: {
      'no-restricted-imports': noImport([
        {
          group: ['**/renderer/**', 'react', 'react-dom', '**/src/server/**', '**/src/jobs/**', '**/src/db/**', '**/src/analysis/**', '**/src/auth/**', '**/src/config/config*', '**/src/cli*', '**/src/core*', '**/src/ready-signal*'],
          message: 'main/ hosts the core in another process: it imports src/api and src/config/data-dir only, never the core itself or the renderer.',
        },
      ]),
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': noImport([
        {
          group: ['electron', '**/src/server/**', '**/src/jobs/**', '**/src/db/**', '**/src/analysis/**', '**/src/auth/**', '**/src/config/**', '**/src/core*', '**/src/cli*', '**/src/ready-signal*', '**/main/**', 'node:*'],
          message: 'renderer/ talks to the core over HTTP only: it may import src/api (schemas, limits, kinds), nothing else of src/.',
        },
      ]),
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
