// Progress goes to a terminal's stderr only: never to a pipe, a file or CI logs, never with --quiet.
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createProgress, formatBytes, progressLine } from '../../src/cli/progress.js';
import { FIXED_NOW, FIXTURES, ROOT, runBin } from '../helpers/cli.js';

/** A writable that says it is a terminal (or not) and keeps what was written. */
function stream(isTTY: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; text: string };
  s.isTTY = isTTY;
  s.text = '';
  s.setEncoding('utf8').on('data', (d: string) => (s.text += d));
  return s;
}

const flush = () => new Promise((r) => setImmediate(r));

describe('createProgress', () => {
  it('is off for pipes, --quiet, dumb terminals and CI', () => {
    expect(createProgress(stream(false), { env: {} })).toBeNull();
    expect(createProgress(stream(true), { quiet: true, env: {} })).toBeNull();
    expect(createProgress(stream(true), { env: { TERM: 'dumb' } })).toBeNull();
    expect(createProgress(stream(true), { env: { CI: 'true' } })).toBeNull();
    expect(createProgress(stream(true), { env: {} })).not.toBeNull();
  });

  it('stays silent for short scans, then redraws one line at most every interval and erases it', async () => {
    let t = 0;
    const err = stream(true);
    const p = createProgress(err, { env: {}, now: () => t, delayMs: 200, intervalMs: 100 })!;
    t = 100;
    p.onFile(1, 4, 1024 * 1024);
    await flush();
    expect(err.text).toBe(''); // before the delay
    t = 1000;
    p.onFile(2, 4, 10 * 1024 * 1024);
    t = 1050;
    p.onFile(3, 4, 11 * 1024 * 1024); // throttled
    await flush();
    expect(err.text).toBe(`\r${progressLine(2, 4, 10 * 1024 * 1024, 1000)}`);
    expect(err.text).toContain('2/4 files');
    expect(err.text).toContain('10.0 MiB/s');
    t = 1060;
    p.onFile(4, 4, 12 * 1024 * 1024); // the last file always draws
    p.finish();
    await flush();
    const frames = err.text.split('\r');
    expect(frames.at(-2)?.trim()).toBe(''); // erased with spaces…
    expect(err.text.endsWith('\r')).toBe(true); // …and the cursor back at the start of the line
    expect(err.text).toContain('4/4 files');
    expect(err.text).not.toContain('3/4 files');
  });

  it('prints nothing at all when nothing was drawn', async () => {
    const err = stream(true);
    const p = createProgress(err, { env: {}, now: () => 0 })!;
    p.finish();
    await flush();
    expect(err.text).toBe('');
  });
});

describe('progressLine', () => {
  it('shows files, bytes and throughput', () => {
    expect(progressLine(100, 400, 512 * 1024 * 1024, 2000)).toBe('[#####---------------] 100/400 files  512 MiB  256 MiB/s');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
    expect(formatBytes(2048)).toBe('2 KiB');
  });
});

describe('progress through the CLI', () => {
  const demo = path.join(FIXTURES, 'sessions');
  async function run(args: string[], stderrIsTTY: boolean) {
    const out = stream(false);
    const err = stream(stderrIsTTY);
    const code = await main({ argv: args, stdout: out, stderr: err, env: { NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW, TRACE_DELEGATION_PROGRESS_DELAY_MS: '0', HOME: '/nonexistent-home' }, cwd: ROOT });
    await flush();
    return { code, stdout: out.text, stderr: err.text };
  }

  it('draws on a terminal stderr and leaves stdout untouched', async () => {
    const tty = await run(['--sessions', demo, '--all', '--fail-on', 'none'], true);
    const pipe = await run(['--sessions', demo, '--all', '--fail-on', 'none'], false);
    expect(tty.stderr).toMatch(/\r\[#+-*\] \d+\/\d+ files/);
    expect(tty.stdout).toBe(pipe.stdout);
  });

  it('is silent with --quiet or -q, even on a terminal', async () => {
    expect((await run(['--sessions', demo, '--all', '--quiet', '--fail-on', 'none'], true)).stderr).toBe('');
    expect((await run(['--sessions', demo, '--all', '-q', '--fail-on', 'none'], true)).stderr).toBe('');
  });

  it('is silent when stderr is a pipe (the real binary)', async () => {
    const r = await runBin(['--sessions', demo, '--all', '--fail-on', 'none'], { env: { TRACE_DELEGATION_PROGRESS_DELAY_MS: '0' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
