// Progress goes to a terminal's stderr only: never to a pipe, a file or CI logs, never with --quiet.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runFollow } from '../../src/cli/follow.js';
import { createProgress, formatBytes, progressLine, reportLine } from '../../src/cli/progress.js';
import { FORMATTERS } from '../../src/format/index.js';
import { FIXED_NOW, FIXTURES, ROOT, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

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
    // CI read as `check --update` reads it: empty, 0 and false are not CI.
    for (const CI of ['', '0', 'false', 'FALSE']) expect(createProgress(stream(true), { env: { CI } }), CI).not.toBeNull();
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

  it('then shows the report phase on the same line, drawn at once after the scan line is erased', async () => {
    let t = 1000;
    const err = stream(true);
    const p = createProgress(err, { env: {}, now: () => t, delayMs: 0, intervalMs: 100 })!;
    p.onFile(4, 4, 1024);
    p.finish();
    t = 1010; // within the interval, but the line was erased: draws
    p.onReport(10, 5, 100);
    t = 1020;
    p.onReport(11, 6, 100); // throttled
    t = 1200;
    p.onReport(600, 50, 100);
    p.finish();
    await flush();
    const frames = err.text.split('\r').filter((f) => f.trim());
    expect(frames).toEqual([progressLine(4, 4, 1024, 0), reportLine(10, 5, 100), reportLine(600, 50, 100)]);
    expect(err.text.endsWith('\r')).toBe(true);
  });

  it('prints nothing at all when nothing was drawn', async () => {
    const err = stream(true);
    const p = createProgress(err, { env: {}, now: () => 0 })!;
    p.finish();
    await flush();
    expect(err.text).toBe('');
  });
});

describe('reportLine', () => {
  it('shows the delegations reported and, when the amount of work is known, how much is done', () => {
    expect(reportLine(2371, 40, 100)).toBe('[########------------] 2371 delegations reported  40%');
    expect(reportLine(1, 1, 3)).toBe('[######--------------] 1 delegation reported  33%');
    expect(reportLine(7, 0, 0)).toBe('[--------------------] 7 delegations reported');
    expect(reportLine(9, 9, 9)).toBe('[####################] 9 delegations reported  100%');
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
  async function run(args: string[], stderrIsTTY: boolean, stdoutIsTTY = false) {
    const out = stream(stdoutIsTTY);
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

  it('then counts the delegations reported while the report goes to a file or pipe, streamed or not', async () => {
    const all = JSON.parse((await run(['--sessions', demo, '--all', '--format', 'json', '--fail-on', 'none'], false)).stdout).delegations.length;
    expect(all).toBeGreaterThan(1);
    for (const format of ['json', 'text', 'sarif']) {
      const tty = await run(['--sessions', demo, '--all', '--format', format, '--fail-on', 'none'], true);
      const pipe = await run(['--sessions', demo, '--all', '--format', format, '--fail-on', 'none'], false);
      const frames = tty.stderr.split('\r').filter((f) => f.trim());
      const last = /^\[[#-]{20}\] (\d+) delegations? reported/.exec(frames.at(-1) ?? '');
      expect(last, `${format}: ${frames.at(-1)}`).not.toBeNull();
      expect(Number(last![1]), format).toBeGreaterThanOrEqual(1);
      expect(Number(last![1]), format).toBeLessThanOrEqual(all);
      expect(tty.stderr.endsWith('\r'), format).toBe(true); // erased at the end
      const untimed = (doc: string) => doc.replace(/"durationMs": \d+/g, '"durationMs": 0');
      expect(untimed(tty.stdout), format).toBe(untimed(pipe.stdout));
    }
  });

  it('knows how much of a named target is reported, as of --all (the bar is not left empty)', async () => {
    const run2 = 'f0e02426-dd7c-40e9-a640-06ac6a92c45d'; // the parent run of two demo delegations
    for (const format of ['sarif', 'html', 'json']) {
      const tty = await run(['--sessions', demo, run2, '--format', format, '--fail-on', 'none'], true);
      const frames = tty.stderr.split('\r').filter((f) => /reported/.test(f));
      expect(frames.length, format).toBeGreaterThan(0);
      // html reads the two delegations twice (a page from a second read): each read is half the bar.
      for (const f of frames) expect(f, format).toMatch(format === 'html' ? /^\[#+-*\] [12] delegations? reported {2}(25|50|75|100)%/ : /^\[#+-*\] [12] delegations? reported {2}(50|100)%/);
    }
  });

  it('leaves the report phase alone when the report itself goes to the terminal', async () => {
    const r = await run(['--sessions', demo, '--all', '--fail-on', 'none'], true, true);
    expect(r.stderr).toMatch(/files/);
    expect(r.stderr).not.toMatch(/reported/);
  });

  it('shows list’s whole-tree scan too, erased before the table; list -q and trace-delegation -q list are silent', async () => {
    const tty = await run(['list', '--sessions', demo], true);
    expect(tty.code).toBe(1); // a delegation listed has error findings (--fail-on error)
    expect(tty.stderr).toMatch(/\r\[#+-*\] \d+\/\d+ files/);
    expect(tty.stderr.endsWith('\r')).toBe(true);
    expect(tty.stdout).toBe((await run(['list', '--sessions', demo], false)).stdout);
    expect((await run(['list', '-q', '--sessions', demo], true)).stderr).toBe('');
    expect((await run(['-q', 'list', '--sessions', demo], true)).stderr).toBe('');
  });

  it('shows `last` reading a long session, within the file (it used to show nothing)', async () => {
    // One 12 MB session: the newest file, read whole by `last`, in several progress steps.
    const root = mkdtempSync(path.join(tmpdir(), 'td-progress-'));
    try {
      const filler = JSON.stringify({ type: 'llm_round', ts: '2025-11-03T09:00:00.000000000+00:00', text: 'x'.repeat(10_000) });
      const lines = Array.from({ length: 1200 }, () => filler);
      lines.push(ev.started('2025-11-03T09:00:01.000000000+00:00', { delegation_id: 'd-long', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }));
      writeFileSync(path.join(root, 's-long.jsonl'), journal(...lines));
      const tty = await run(['--sessions', root, '--fail-on', 'none'], true);
      const frames = tty.stderr.split('\r').filter((f) => f.trim());
      const bytes = frames.map((f) => /^\[[#-]{20}\] (\d+)\/1 files\s+([\d.]+) MiB/.exec(f)).filter((m) => m !== null);
      expect(bytes.length, tty.stderr).toBeGreaterThanOrEqual(2);
      expect(bytes.some((m) => m![1] === '0'), 'a frame before the file was done').toBe(true);
      expect(Number(bytes.at(-1)![2])).toBeGreaterThan(11);
      expect(tty.stderr.endsWith('\r')).toBe(true); // erased before the report
      expect(tty.stdout).toBe((await run(['--sessions', root, '--fail-on', 'none'], false)).stdout);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
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

  it('shows follow mode’s replay too, erased before it says it is following; -q is silent', async () => {
    const follow = async (quiet: boolean) => {
      const out = stream(false);
      const err = stream(true);
      const env = { NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW, TRACE_DELEGATION_PROGRESS_DELAY_MS: '0', HOME: '/nonexistent-home' };
      const stop = new AbortController();
      const running = runFollow(undefined, { argv: [], stdout: out, stderr: err, env, cwd: ROOT }, {
        options: { sessions: [demo], cwd: ROOT, env },
        formatter: FORMATTERS.text,
        format: 'text',
        color: false,
        failOn: 'none',
        pollMs: 50,
        signal: stop.signal,
        quiet,
      });
      // The replay is over once its reports are out (and, unless quiet, the notice).
      for (let i = 0; i < 1500 && !(quiet ? out.text : err.text).includes(quiet ? 'Delegation Trace' : 'following'); i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 50));
      stop.abort();
      expect(await running).toBe(0);
      return err.text;
    };
    const tty = await follow(false);
    expect(tty).toMatch(/\r\[#+-*\] \d+\/\d+ files/);
    const notice = tty.indexOf('trace-delegation: following');
    expect(notice).toBeGreaterThan(0);
    expect(tty.slice(0, tty.lastIndexOf('\r') + 1)).toMatch(/\r {10,}\r$/); // erased…
    expect(tty.lastIndexOf('\r')).toBeLessThan(notice); // …before anything else was said
    const quiet = await follow(true);
    expect(quiet).not.toContain('\r'); // no progress line (its warnings about open delegations stay)
    expect(quiet).not.toContain('following');
  });
});
