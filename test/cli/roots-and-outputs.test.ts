// Where the journals are read from: ASTRA_SESSIONS_DIR as a user writes it (with ~), and --demo
// never mixed with a tree of the user's; and where --output files go (written before the report).
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, runMain } from '../helpers/cli.js';

const home = mkdtempSync(path.join(tmpdir(), 'td-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('sessions roots', () => {
  it('expands ~ in ASTRA_SESSIONS_DIR, as in --sessions', async () => {
    cpSync(path.join(FIXTURES, 'sessions'), path.join(home, 'astra', 'sessions'), { recursive: true });
    const r = await runMain(['list', '--limit', '1'], { env: { HOME: home, ASTRA_SESSIONS_DIR: '~/astra/sessions' } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/1 of 11 delegations, newest first/);
  });

  it('a missing root the user did not name says where it came from and how to name another', async () => {
    const hint = 'name the journals with --sessions or ASTRA_SESSIONS_DIR, or read the bundled ones with --demo)';
    const bare = path.join(home, 'bare');
    const byDefault = await runMain(['--all'], { env: { HOME: bare } });
    expect([byDefault.code, byDefault.stderr]).toEqual([2, `trace-delegation: sessions root ${bare}/.astra/sessions does not exist (the default; ${hint}\n`]);
    const byEnv = await runMain(['list'], { env: { HOME: bare, ASTRA_SESSIONS_DIR: '~/s' } });
    expect(byEnv.stderr).toBe(`trace-delegation: sessions root ${bare}/s does not exist (from ASTRA_SESSIONS_DIR; ${hint}\n`);
    // A root the user named is only said to be missing.
    const named = await runMain(['--sessions', `${bare}/s`], { env: { HOME: bare } });
    expect(named.stderr).toBe(`trace-delegation: sessions root ${bare}/s does not exist\n`);
  });

  it('refuses --demo with --sessions: the demo would mix with the tree named', async () => {
    const r = await runMain(['--demo', '--sessions', home, '--all']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('trace-delegation: --demo reads the bundled demo journals instead of a sessions tree; drop --sessions, or drop --demo\n');
  });
});

describe('--output', () => {
  it('writes its files before the report: a file that cannot be written is exit 2 with nothing on stdout', async () => {
    const r = await runMain(['--demo', '--all', '--format', 'json', '-o', `sarif=${path.join(home, 'no-such-folder', 'x.sarif')}`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`trace-delegation: cannot write --output sarif=${path.join(home, 'no-such-folder', 'x.sarif')}: its folder does not exist\n`);
  });

  it.runIf(existsSync('/proc'))('a folder that exists but takes no new files (/proc) is named as such, not as missing', async () => {
    const r = await runMain(['--demo', '--all', '--format', 'json', '-o', 'json=/proc/x.json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('trace-delegation: cannot write --output json=/proc/x.json: /proc does not take new files\n');
  });

  it('refuses two formats into one file', async () => {
    const file = path.join(home, 'both.out');
    const r = await runMain(['--demo', '--all', '-o', `json=${file}`, '-o', `sarif=${file}`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`trace-delegation: --output names ${file} twice (json and sarif): give each format its own file\n`);
  });

  it('refuses - as a file: standard output has the --format report', async () => {
    const r = await runMain(['--demo', '--all', '-o', 'json=-']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('trace-delegation: --output writes a file; standard output has the --format report (use --format json for json on standard output)\n');
  });

  it('refuses standard output by another name when it is a file or a pipe; /dev/null stays allowed', () => {
    const sentence = 'trace-delegation: --output json=/dev/stdout is standard output, which has the --format report (use --format json for json on standard output)\n';
    // Into a file: the JSON would have been written over by the text report.
    const file = path.join(home, 'stdout.txt');
    const fd = openSync(file, 'w');
    const toFile = spawnSync(process.execPath, [BIN, '--demo', '--all', '-o', 'json=/dev/stdout'], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
    closeSync(fd);
    expect([toFile.status, toFile.stderr, readFileSync(file, 'utf8')]).toEqual([2, sentence, '']);
    // Into a pipe: two documents would mix.
    const toPipe = spawnSync(process.execPath, [BIN, '--demo', '--all', '-o', 'json=/dev/fd/1'], { encoding: 'utf8' });
    expect([toPipe.status, toPipe.stdout, toPipe.stderr]).toEqual([2, '', sentence.replace('/dev/stdout', '/dev/fd/1')]);
    // Both to /dev/null: nothing is replaced there.
    const devNull = openSync('/dev/null', 'w');
    const quiet = spawnSync(process.execPath, [BIN, '--demo', '--all', '-o', 'json=/dev/null'], { stdio: ['ignore', devNull, 'pipe'], encoding: 'utf8' });
    closeSync(devNull);
    expect([quiet.status, quiet.stderr]).toEqual([1, '']);
  });

  it('refuses to write onto a journal the run reads, by name or through a link, and leaves it intact', async () => {
    const tree = path.join(home, 'clobber');
    cpSync(path.join(FIXTURES, 'sessions'), tree, { recursive: true });
    const journal = path.join(tree, 'delegation.jsonl');
    const before = readFileSync(journal, 'utf8');
    symlinkSync(journal, path.join(tree, 'report.json'));
    for (const out of [journal, path.join(tree, 'report.json')]) {
      const r = await runMain(['--sessions', tree, '--all', '-o', `json=${out}`]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`trace-delegation: --output json=${out} is the journal ${journal}, which this run reads: writing the report there would replace it\n`);
    }
    expect(readFileSync(journal, 'utf8')).toBe(before);
    // A journal of another tree is not this run's evidence: written as asked.
    const other = path.join(home, 'other.jsonl');
    writeFileSync(other, 'x\n');
    expect((await runMain(['--sessions', journal, '--all', '--fail-on', 'none', '-o', `ndjson=${other}`])).code).toBe(0);
    expect(readFileSync(other, 'utf8')).toMatch(/^\{"id"/);
  });

  it('refuses to write onto the journal given on standard input', () => {
    const input = path.join(home, 'in.jsonl');
    cpSync(path.join(FIXTURES, 'sessions', 'delegation.jsonl'), input);
    const before = readFileSync(input, 'utf8');
    const fd = openSync(input, 'r');
    try {
      const r = spawnSync(process.execPath, [BIN, '-', '-o', `json=${input}`], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
      expect([r.status, r.stdout, r.stderr]).toEqual([2, '', `trace-delegation: --output json=${input} is the journal on standard input: writing the report there would replace it\n`]);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(input, 'utf8')).toBe(before);
  });
});
