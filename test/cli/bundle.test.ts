// `npm run build` bundles the CLI (dist/bundle/) so it starts faster; the binary loads it when
// present. The bundle must behave exactly as the compiled modules it is made from.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXED_NOW, ROOT, runBin } from '../helpers/cli.js';

type Main = (io: object) => Promise<number>;

async function run(entry: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = (await import(pathToFileURL(path.join(ROOT, entry)).href)) as { main: Main };
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.setEncoding('utf8').on('data', (d) => (stdout += d));
  err.setEncoding('utf8').on('data', (d) => (stderr += d));
  const code = await main({ argv, stdout: out, stderr: err, stdin: Readable.from(['']), env: { NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW }, cwd: ROOT });
  return { code, stdout: stdout.replace(/"durationMs": \d+/g, ''), stderr };
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
});
