// Bundles the compiled CLI (dist/cli/main.js and its dependencies) into dist/bundle/: one file
// loads in about 0.1 s less than ~70 ES modules resolved one by one, on every command
// (docs/performance.md). Lazily loaded parts (formatters, YAML, JSON schema) stay separate chunks;
// the library entry (dist/index.js) and the scan worker are not bundled. The bundle is CommonJS so
// that bin/load-bundle.cjs can compile it from V8's code cache, which this script then writes by
// running a short command.
import { spawnSync } from 'node:child_process';
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
      ? "const load = () => require('node:child_process');\nexport function spawn(...args) { return load().spawn(...args); }\n"
      : null,
};
// ASCII only (non-ASCII escaped), without comments: V8 keeps a file with one non-ASCII character
// as a two-byte string, which took twice as long to read and compile (`last` ≈ 5 ms).
await build({
  input: `${root}dist/cli/main.js`,
  platform: 'node',
  logLevel: 'warn',
  plugins: [lazyChildProcess],
  // contract/checks is both imported and loaded lazily: it simply stays in the main chunk.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: { dir: out, format: 'cjs', entryFileNames: 'main.cjs', chunkFileNames: '[name]-[hash].cjs', charset: 'ascii', comments: false },
});

// The code cache of what `last` (the default command) compiles: it must be made by a process with
// Node's default flags, since V8 rejects a cache made under other flags (a whole-tree `--all`
// changes one as it runs). Without it the CLI works the same, only starts slower.
const warm = spawnSync(process.execPath, [`${root}bin/trace-delegation.cjs`, '--demo', '--now', '2030-01-01T00:00:00Z', '--quiet'], {
  env: { ...process.env, TRACE_DELEGATION_CODE_CACHE: 'write', NO_COLOR: '1' },
  encoding: 'utf8',
});
if (warm.error || warm.status === null || warm.status > 1) console.warn(`bundle: the code cache was not written (${warm.error?.message ?? (warm.stderr.trim() || `exit ${warm.status}`)})`);
