// Bundles the compiled CLI (dist/cli/main.js and its dependencies) into dist/bundle/: one file
// loads in about 0.1 s less than ~70 ES modules resolved one by one, on every command
// (docs/performance.md). Lazily loaded parts (formatters, YAML, JSON schema) stay separate chunks;
// the library entry (dist/index.js) and the scan worker are not bundled.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/bundle`;
await rm(out, { recursive: true, force: true });
// commander requires child_process (and with it net, dgram, tty: ≈ 6 ms) for executable
// subcommands, which this CLI has none of: it gets a stand-in that loads it on first use.
const LAZY_CHILD_PROCESS = '\0lazy-child-process';
const lazyChildProcess = {
  name: 'lazy-child-process',
  resolveId: (id, importer) => (id === 'node:child_process' && importer?.includes('/commander/') ? LAZY_CHILD_PROCESS : null),
  load: (id) =>
    id === LAZY_CHILD_PROCESS
      ? "import { createRequire } from 'node:module';\nconst load = () => createRequire(import.meta.url)('node:child_process');\nexport function spawn(...args) { return load().spawn(...args); }\n"
      : null,
};
await build({
  input: `${root}dist/cli/main.js`,
  platform: 'node',
  logLevel: 'warn',
  plugins: [lazyChildProcess],
  // contract/checks is both imported and loaded lazily: it simply stays in the main chunk.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: { dir: out, format: 'esm', entryFileNames: 'main.js', chunkFileNames: '[name]-[hash].js' },
});
