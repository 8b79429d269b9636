// `npm run build` bundles the CLI (dist/bundle/) so it starts faster; the binary loads it when
// present. The bundle must behave exactly as the compiled modules it is made from.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, runBin, runMain } from '../helpers/cli.js';

/** main() of one build, run in-process; the measured duration is the only expected difference. */
async function run(entry: string, argv: string[]) {
  const { main } = await import(pathToFileURL(path.join(ROOT, entry)).href);
  const r = await runMain(argv, { entry: main });
  return { ...r, stdout: r.stdout.replace(/"durationMs": \d+/g, '') };
}

describe('CLI bundle', () => {
  it('exists after the build and is what the binary runs', async () => {
    expect(existsSync(path.join(ROOT, 'dist', 'bundle', 'main.js'))).toBe(true);
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
      const bundled = await run('dist/bundle/main.js', argv);
      const plain = await run('dist/cli/main.js', argv);
      expect(bundled, argv.join(' ')).toEqual(plain);
    }
  });

  it('does not load what `last` never uses: child_process (commander), v8, perf_hooks', () => {
    // Each costs 2–6 ms of every command's start-up; a whole-tree run loads v8 on purpose.
    const script = `
      const { main } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'bundle', 'main.js')).href)});
      const { Writable } = await import('node:stream');
      const sink = new Writable({ write: (_c, _e, cb) => cb() });
      await main({ argv: ['--demo', '--now', '2030-01-01T00:00:00Z'], stdout: sink, stderr: sink, env: {} });
      process.stdout.write(JSON.stringify(process.moduleLoadList));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const loaded: string[] = JSON.parse(r.stdout);
    expect(loaded).toContain('NativeModule fs'); // the list is the real one
    for (const m of ['child_process', 'v8', 'perf_hooks']) expect(loaded).not.toContain(`NativeModule ${m}`);
  });
});
