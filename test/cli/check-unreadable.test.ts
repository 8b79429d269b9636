// `check` over cases it cannot read or write: each is reported in words and the run goes on to
// its summary (exit 2); an X.expected.json that is a folder or a FIFO is named as such, never read
// as missing, never waited on.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, runBin, runMain, type CliResult } from '../helpers/cli.js';

const FORMATS = path.join(FIXTURES, 'formats');
const CASES = ['damaged-lines.jsonl', 'join-late.jsonl', 'retry-and-failure.jsonl'];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-check-unreadable-'));
  chmodSync(dir, 0o755);
  for (const c of CASES) for (const f of [c, `${c}.expected.json`]) cpSync(path.join(FORMATS, f), path.join(dir, f));
});
afterEach(() => {
  chmodSync(dir, 0o755);
  spawnSync('chmod', ['-R', 'u+rwX', dir]);
  rmSync(dir, { recursive: true, force: true });
});

/** Root reads anything: as root, the CLI runs as user 65534 (skipped when that user cannot run it). */
async function runUnprivileged(args: string[], ctx: { skip: (note: string) => void }): Promise<CliResult> {
  if (process.getuid?.() !== 0) return runMain(args, { cwd: dir });
  if (spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(BIN)})`], { uid: 65534, gid: 65534 }).status !== 0)
    ctx.skip('running as root and user 65534 cannot run the built CLI here, so permission denied cannot happen');
  const r = await runBin(args, { cwd: dir, uid: 65534, timeoutMs: 30_000, env: { CI: '' } });
  expect(r.timedOut).toBe(false);
  return r;
}

describe('check: what it cannot read or write', () => {
  it('an unreadable journal fails its case in words; the other cases run and the summary prints (exit 2)', async (ctx) => {
    chmodSync(path.join(dir, 'join-late.jsonl'), 0o000);
    const r = await runUnprivileged(['check', '.'], ctx);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'PASS damaged-lines.jsonl',
        'FAIL join-late.jsonl: the journal cannot be read (permission denied), so the case was not checked',
        'PASS retry-and-failure.jsonl',
        '2 passed, 1 failed',
        '',
      ].join('\n'),
    );
    // --update cannot make it readable: no "Accept the current findings" advice.
    expect(r.code).toBe(2);
  });

  it('an unreadable expectations file is named in words, not as a raw Node error', async (ctx) => {
    chmodSync(path.join(dir, 'join-late.jsonl.expected.json'), 0o000);
    const r = await runUnprivileged(['check', 'join-late.jsonl'], ctx);
    expect(r.stderr).toBe('trace-delegation: the expectations file join-late.jsonl.expected.json cannot be read (permission denied)\n');
    expect(r.code).toBe(2);
  });

  it('an unreadable subfolder is listed and the run goes on to its summary (exit 2)', async (ctx) => {
    const sub = path.join(dir, 'sub');
    mkdirSync(sub);
    cpSync(path.join(FORMATS, 'nested-retry.jsonl'), path.join(sub, 'nested-retry.jsonl'));
    chmodSync(sub, 0o000);
    const r = await runUnprivileged(['check', '-q', '.'], ctx);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('SKIPPED sub: the folder cannot be read (permission denied), so any case in it was not run\n3 passed, 0 failed\n');
    expect(r.code).toBe(2);
  });

  it('a session-folder case with an owner folder it cannot list fails, rather than passing on part of its journals', async (ctx) => {
    cpSync(path.join(FIXTURES, 'sessions'), path.join(dir, 'sessions'), { recursive: true });
    cpSync(path.join(FIXTURES, 'sessions.expected.json'), path.join(dir, 'sessions.expected.json'));
    spawnSync('chmod', ['-R', 'a+rX', dir]);
    const owner = path.join('sessions', 'v1', 'users', 'b64-bG9jYWw', 'sessions');
    chmodSync(path.join(dir, owner), 0o000);
    const r = await runUnprivileged(['check', 'sessions'], ctx);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`FAIL sessions: the folder ${owner.split(path.sep).join('/')} cannot be read (permission denied), so the case was not checked\n0 passed, 1 failed\n`);
    expect(r.code).toBe(2);
  });

  it('--update says in words which expectations file it cannot write, and writes the others', async (ctx) => {
    writeFileSync(path.join(dir, 'join-late.jsonl.expected.json'), '[]\n');
    writeFileSync(path.join(dir, 'retry-and-failure.jsonl.expected.json'), '[]\n');
    chmodSync(path.join(dir, 'join-late.jsonl.expected.json'), 0o444);
    chmodSync(path.join(dir, 'retry-and-failure.jsonl.expected.json'), 0o666);
    const r = await runUnprivileged(['check', '--update', '-q', '.'], ctx);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^FAIL join-late\.jsonl: cannot write join-late\.jsonl\.expected\.json \(permission denied\), so its findings were not recorded\nUPDATED retry-and-failure\.jsonl\.expected\.json \(\d+ expectations?\)\n1 expectations file written\n2 passed, 1 failed\n$/,
    );
    expect(readFileSync(path.join(dir, 'retry-and-failure.jsonl.expected.json'), 'utf8')).not.toBe('[]\n');
    expect(r.code).toBe(2);
  });
});

describe('check: a damaged archive is a journal state, not an unreadable case', () => {
  it('a .jsonl.gz cut short (a crash while archiving) is checked and recorded from what it holds', async () => {
    const archive = readFileSync(path.join(FIXTURES, 'sessions', 'v1', 'users', 'b64-bG9jYWw', 'sessions', '61d0b7e4-2a8c-4f59-b3e1-7d4a9c0f5e26.jsonl.gz'));
    writeFileSync(path.join(dir, 'cut.jsonl.gz'), archive.subarray(0, 700));
    const update = await runMain(['check', '--update', 'cut.jsonl.gz'], { cwd: dir, env: { CI: '' } });
    expect([update.code, update.stdout]).toEqual([0, 'CREATED cut.jsonl.gz.expected.json (1 expectation)\n1 expectations file written\n1 passed, 0 failed\n']);
    const again = await runMain(['check', 'cut.jsonl.gz'], { cwd: dir });
    expect([again.code, again.stdout]).toEqual([0, 'PASS cut.jsonl.gz\n1 passed, 0 failed\n']);
  });
});

describe('check: an X.expected.json that is not a regular file', () => {
  const folderMessage = 'trace-delegation: join-late.jsonl.expected.json is a folder, not a regular file, so it cannot hold expectations; move it away (check --update then records the current findings)\n';

  it('a folder there is named as a folder, by check and by check --update alike (never "no expectations file")', async () => {
    rmSync(path.join(dir, 'join-late.jsonl.expected.json'));
    mkdirSync(path.join(dir, 'join-late.jsonl.expected.json'));
    for (const args of [['check', 'join-late.jsonl'], ['check', '--update', 'join-late.jsonl'], ['check', '.'], ['check', '--update', '.'], ['check', 'join-late.jsonl.expected.json']]) {
      const r = await runMain(args, { cwd: dir });
      expect(r.stderr, args.join(' ')).toBe(folderMessage);
      expect(r.stdout).toBe('');
      expect(r.code).toBe(2);
    }
  });

  it.skipIf(process.platform === 'win32')('a FIFO there is named as one, and --update does not wait on it (real binary)', async () => {
    rmSync(path.join(dir, 'join-late.jsonl.expected.json'));
    expect(spawnSync('mkfifo', [path.join(dir, 'join-late.jsonl.expected.json')]).status).toBe(0);
    const fifo = 'trace-delegation: join-late.jsonl.expected.json is a named pipe (FIFO), not a regular file, so it cannot hold expectations; move it away (check --update then records the current findings)\n';
    for (const args of [['check', 'join-late.jsonl'], ['check', '--update', 'join-late.jsonl'], ['check', '.'], ['check', '--update', '.']]) {
      const r = await runBin(args, { cwd: dir, timeoutMs: 15_000, env: { CI: '' } });
      expect(r.timedOut, args.join(' ')).toBe(false);
      expect(r.stderr, args.join(' ')).toBe(fifo);
      expect(r.code).toBe(2);
    }
  });

  it.skipIf(process.platform === 'win32')('a FIFO journal with expectations fails its case in a folder search, rather than vanish from it', async () => {
    expect(spawnSync('mkfifo', [path.join(dir, 'pipe.jsonl')]).status).toBe(0);
    writeFileSync(path.join(dir, 'pipe.jsonl.expected.json'), '[]\n');
    const r = await runBin(['check', '-q', '.'], { cwd: dir, timeoutMs: 15_000 });
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toBe('FAIL pipe.jsonl: the journal is a named pipe (FIFO), not a regular file, so the case was not checked\n3 passed, 1 failed\n');
    expect(r.code).toBe(2);
  });
});
