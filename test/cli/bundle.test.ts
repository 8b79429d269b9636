// `npm run build` bundles the CLI (dist/bundle/) so it starts faster; the binary loads it when
// present, from V8's code cache (bin/load-bundle.cjs). The bundle must behave exactly as the
// compiled modules it is made from.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, FIXED_NOW, ROOT, runBin, runMain } from '../helpers/cli.js';

const BUNDLE = path.join(ROOT, 'dist', 'bundle');
const LAST = ['--demo', '--now', FIXED_NOW, '--fail-on', 'none'];

/** The binary at `bin` run on `argv`, saying on stderr how many bundle files came from the code cache. */
function runReportingCache(bin: string, argv: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [bin, ...argv], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_CODE_CACHE: 'report' } });
  const m = /code cache: (\d+) of (\d+) files/.exec(r.stderr);
  return { ...r, fromCache: m ? Number(m[1]) : -1, loaded: m ? Number(m[2]) : -1 };
}

/** main() of one build, run in-process; the measured duration is the only expected difference. */
async function run(entry: string, argv: string[]) {
  const { main } = await import(pathToFileURL(path.join(ROOT, entry)).href);
  const r = await runMain(argv, { entry: main });
  return { ...r, stdout: r.stdout.replace(/"durationMs": \d+/g, '') };
}

describe('CLI bundle', () => {
  it('exists after the build and is what the binary runs', async () => {
    expect(existsSync(path.join(BUNDLE, 'main.cjs'))).toBe(true);
    const r = await runBin(['--version']);
    expect(r.code).toBe(0);
  });

  it('gives the same output and exit code as the compiled modules', async () => {
    for (const argv of [
      ['--demo', '--all', '--format', 'json'],
      ['--demo', '--all', '--format', 'sarif'],
      ['--demo', 'list'],
      ['--demo', 'no-such-delegation'],
      ['rules'],
    ]) {
      const bundled = await run('dist/bundle/main.cjs', argv);
      const plain = await run('dist/cli/main.js', argv);
      expect(bundled, argv.join(' ')).toEqual(plain);
    }
  });

  it('does not load what `last` never uses: child_process (commander), v8, perf_hooks, fs/promises', () => {
    // Each costs 2–6 ms of every command's start-up; a whole-tree run loads v8 on purpose.
    // fs/promises (and readline with it) comes with process.stdin, so the binary creates it on first
    // use; file streams load it too, which a tree without .gz archives (this one) never opens.
    const dir = mkdtempSync(path.join(tmpdir(), 'td-modules-'));
    try {
      const list = path.join(dir, 'modules.json');
      const preload = path.join(dir, 'list-modules.cjs');
      writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(process.moduleLoadList)));`);
      const plainTree = ['--sessions', path.join(ROOT, 'fixtures', 'sessions', 'delegation.jsonl'), '--now', FIXED_NOW, '--fail-on', 'none'];
      const r = spawnSync(process.execPath, ['--require', preload, BIN, ...plainTree], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('Delegation Trace:');
      const loaded: string[] = JSON.parse(readFileSync(list, 'utf8'));
      expect(loaded).toContain('NativeModule fs'); // the list is the real one
      for (const m of ['child_process', 'v8', 'perf_hooks', 'fs/promises', 'internal/fs/promises', 'internal/readline/interface']) expect(loaded).not.toContain(`NativeModule ${m}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads standard input through the binary, which creates process.stdin only when asked', async () => {
    const journal = readFileSync(path.join(ROOT, 'fixtures', 'sessions', 'delegation.jsonl'));
    const r = await runBin(['--stdin', '--format', 'json'], { input: journal });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.delegations).toHaveLength(1);
    expect(report.delegations[0].files).toEqual(['<stdin>']);
    const list = await runBin(['list', '--stdin'], { input: journal });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(report.delegations[0].id.slice(0, 13));
  });

  it('has no import(): a vm.Script has no loader for it on Node 20, so lazy modules are required', () => {
    // An archive scan once failed only when bundled: `await import('node:zlib')`.
    for (const f of readdirSync(BUNDLE).filter((n) => n.endsWith('.cjs'))) expect(readFileSync(path.join(BUNDLE, f), 'utf8'), f).not.toMatch(/\bimport\(/);
  });

  it('starts from the code cache the build wrote: every file `last` loads comes from it', () => {
    const r = runReportingCache(BIN, LAST);
    expect(r.status, r.stderr).toBe(0);
    expect(r.loaded).toBeGreaterThan(3);
    expect(r.fromCache).toBe(r.loaded);
  });

  it('never uses a cache entry made for other text (even of the same length) or damaged, and still runs', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-cache-'));
    try {
      cpSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
      cpSync(BUNDLE, path.join(dir, 'dist', 'bundle'), { recursive: true });
      cpSync(path.join(ROOT, 'fixtures'), path.join(dir, 'fixtures'), { recursive: true });
      const bin = path.join(dir, 'bin', 'trace-delegation.cjs');
      const expected = spawnSync(process.execPath, [BIN, ...LAST], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      // The same length, other text: V8 alone would accept the stale cache for it.
      const chunks = readdirSync(path.join(dir, 'dist', 'bundle')).filter((f) => f.endsWith('.cjs'));
      const file = path.join(dir, 'dist', 'bundle', chunks.find((f) => readFileSync(path.join(dir, 'dist', 'bundle', f), 'utf8').includes('"Delegation Trace:"'))!);
      const text = readFileSync(file, 'utf8');
      const edited = text.replace('"Delegation Trace:"', '"Delegation trace:"');
      expect(edited).not.toBe(text);
      expect(edited.length).toBe(text.length);
      writeFileSync(file, edited);
      const r = runReportingCache(bin, LAST, dir);
      expect(r.status, r.stderr).toBe(0);
      expect(r.fromCache).toBe(r.loaded - 1);
      expect(r.stdout).toBe(expected.stdout.replace('Delegation Trace: ', 'Delegation trace: '));
      // A damaged cache (one byte of one entry's code) is compiled around, not deserialized.
      const cacheFile = path.join(dir, 'dist', 'bundle', 'code-cache.bin');
      const cache = readFileSync(cacheFile);
      const header = JSON.parse(cache.toString('latin1', 4, 4 + cache.readUInt32LE(0))) as { files: Record<string, { at: number; size: number }> };
      const { at, size } = header.files['main.cjs'];
      cache[4 + cache.readUInt32LE(0) + at + Math.floor(size / 2)] ^= 0xff;
      writeFileSync(cacheFile, cache);
      const damaged = runReportingCache(bin, LAST, dir);
      expect(damaged.status, damaged.stderr).toBe(0);
      expect(damaged.fromCache).toBe(damaged.loaded - 2);
      expect(damaged.stdout).toBe(r.stdout);
      // Without a cache at all, the same output.
      rmSync(path.join(dir, 'dist', 'bundle', 'code-cache.bin'));
      const bare = runReportingCache(bin, LAST, dir);
      expect(bare.fromCache).toBe(0);
      expect(bare.stdout).toBe(r.stdout);
      // A cache that cannot be written (here a folder in its place) is one line on stderr, not a failure.
      mkdirSync(cacheFile);
      const unwritable = spawnSync(process.execPath, [bin, ...LAST], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_CODE_CACHE: 'write' } });
      expect(unwritable.status).toBe(0);
      expect(unwritable.stdout).toBe(r.stdout);
      expect(unwritable.stderr).toMatch(/^trace-delegation: the code cache was not written \(EISDIR[^\n]*\)\.\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
