// `check` on cases copied to a temp folder: passing, each kind of readable diff, --subset,
// --update (and its refusal under CI), and the one-sentence errors.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { ownOptionsWin } from '../../src/cli/option-scope.js';
import { FIXTURES, runBin, runMain } from '../helpers/cli.js';

const CASE = 'retry-and-failure.jsonl';
const DELEGATION = 'f0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-check-'));
  for (const f of [CASE, `${CASE}.expected.json`]) cpSync(path.join(FIXTURES, 'formats', f), path.join(dir, f));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const expectedFile = () => path.join(dir, `${CASE}.expected.json`);
const writeExpected = (entries: object[]) => writeFileSync(expectedFile(), JSON.stringify(entries));
const lastLine = (s: string) => s.trimEnd().split('\n').at(-1);

describe('check', () => {
  it('passes a case whose findings match its expectations (real binary)', async () => {
    const r = await runBin(['check', dir], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`PASS ${CASE}\n1 passed, 0 failed\n`);
    expect(r.code).toBe(0);
  });

  it('fails with a readable diff when an expectation is changed (real binary)', async () => {
    writeExpected([{ id: 'missing-completion', delegation: DELEGATION, severity: 'warning', count: 1 }]);
    const r = await runBin(['check', dir], { cwd: dir });
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`FAIL ${CASE}`);
    expect(lines[1]).toBe(`  different severity: missing-completion in ${DELEGATION}: expected warning, found error`);
    expect(lines[2]).toMatch(new RegExp(`^    found \\[error\\] missing-completion in ${DELEGATION}: sub-run 3a1e7000-\\S+ \\(agent writer\\) started but never completed.*\\(retry-and-failure\\.jsonl:5, retry-and-failure\\.jsonl:11\\)$`));
    expect(lastLine(r.stdout)).toBe('0 passed, 1 failed');
  });

  it('names missing and unexpected findings', async () => {
    writeExpected([{ id: 'late-result', delegation: DELEGATION }]);
    const r = await runMain(['check', dir], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`  missing: late-result in ${DELEGATION}: expected at least 1, found 0\n`);
    expect(r.stdout).toMatch(new RegExp(`\\n  unexpected: \\[error\\] missing-completion in ${DELEGATION}: sub-run 3a1e7000`));
    expect(r.stdout).toContain('Accept the current findings with: trace-delegation check --update');
  });

  it('refuses a folder whose journals are not all covered: a journal without expectations, an expectations file without its journal', async () => {
    // Coverage lost quietly is a suite that passes while checking less.
    cpSync(path.join(dir, CASE), path.join(dir, 'second.jsonl'));
    let r = await runMain(['check', dir], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`trace-delegation: 1 journal has no expectations under ${dir}: second.jsonl; write X.expected.json beside each, or run check --update ${dir} to record their current findings\n`);
    // --update records it (and leaves the passing case as it was).
    r = await runMain(['check', '--update', dir], { cwd: dir, env: { CI: '' } });
    expect(r.stdout).toContain('CREATED second.jsonl.expected.json');
    expect((await runMain(['check', dir], { cwd: dir })).code).toBe(0);
    // A journal deleted, its expectations left behind.
    rmSync(path.join(dir, 'second.jsonl'));
    r = await runMain(['check', dir], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`trace-delegation: 1 expectations file has no journal or folder beside it under ${dir}: second.jsonl.expected.json; restore the journal, or delete the expectations file\n`);
    r = await runMain(['check', 'second.jsonl.expected.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('trace-delegation: second.jsonl.expected.json has no journal or folder second.jsonl beside it: restore it, or delete the expectations file\n');
    // A folder holding only an orphaned expectations file: that is what is said (the other
    // hint, check --update, would be refused for the same reason).
    const gone = path.join(dir, 'gone');
    mkdirSync(gone);
    cpSync(path.join(dir, 'second.jsonl.expected.json'), path.join(gone, 'x.jsonl.expected.json'));
    for (const args of [['check', gone], ['check', '--update', gone]]) {
      r = await runMain(args, { cwd: dir, env: { CI: '' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`trace-delegation: 1 expectations file has no journal or folder beside it under ${gone}: gone/x.jsonl.expected.json; restore the journal, or delete the expectations file\n`);
    }
  });

  it('an empty path (an unset variable) is refused, with or without --update, not read as the working folder', async () => {
    for (const args of [['check', ''], ['check', '--update', ' '], ['check', dir, '']]) {
      const r = await runMain(args, { cwd: dir, env: { CI: '' } });
      expect([r.code, r.stdout], args.join(' ')).toEqual([2, '']);
      expect(r.stderr).toBe('trace-delegation: a path is empty (an unset variable?): name fixture folders, journals or expectations files, or . for the working folder\n');
    }
  });

  it('says when --update would record a folder with no case as one case, and it does', async () => {
    // "Beside each" alone read as if --update wrote one file per journal.
    const j = path.join(dir, 'j');
    mkdirSync(j);
    cpSync(path.join(dir, CASE), path.join(j, 'late.jsonl'));
    let r = await runMain(['check', 'j'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('trace-delegation: 1 journal has no expectations under j: j/late.jsonl; write X.expected.json beside each, or run check --update j to record their current findings (it records the folder as one case, j.expected.json)\n');
    r = await runMain(['check', '--update', 'j'], { cwd: dir, env: { CI: '' } });
    expect(r.stdout).toContain('CREATED j.expected.json');
  });

  it('names a journal in a subfolder that no case reads, and --update makes it a case of its own', async () => {
    // A session-folder case reads its folder and v1/users/*/sessions only: a journal elsewhere
    // under it, or under a folder with no case at all, is in no case.
    const sub = path.join(dir, 'tree', 'sub');
    mkdirSync(sub, { recursive: true });
    cpSync(path.join(dir, CASE), path.join(sub, 'x.jsonl'));
    let r = await runMain(['check', path.join(dir, 'tree')], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('1 journal has no expectations under');
    expect(r.stderr).toContain('tree/sub/x.jsonl;');
    r = await runMain(['check', '--update', path.join(dir, 'tree')], { cwd: dir, env: { CI: '' } });
    expect(r.stdout).toContain('CREATED tree/sub/x.jsonl.expected.json (1 expectation)');
    expect(JSON.parse(readFileSync(path.join(sub, 'x.jsonl.expected.json'), 'utf8'))).toEqual(JSON.parse(readFileSync(expectedFile(), 'utf8')));
  });

  it('takes a journal and its .jsonl.gz archive as one session: one case reads both', async () => {
    const gz = path.join(dir, `${CASE}.gz`);
    writeFileSync(gz, gzipSync(readFileSync(path.join(dir, CASE))));
    let r = await runMain(['check', dir], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`PASS ${CASE}\n1 passed, 0 failed\n`); // the archive repeats the journal: same findings
    // A pair with no expectations is one journal to record.
    rmSync(expectedFile());
    r = await runMain(['check', dir], { cwd: dir });
    expect(r.stderr).toContain(`1 journal has no expectations under ${dir}: ${CASE};`);
  });

  it('counts the journals of a session-folder case as covered by its expectations', async () => {
    const tree = path.join(dir, 'tree');
    const owner = path.join(tree, 'v1', 'users', 'b64-bG9jYWw', 'sessions'); // a layout the folder case reads
    mkdirSync(owner, { recursive: true });
    cpSync(path.join(dir, CASE), path.join(owner, 'a.jsonl'));
    rmSync(path.join(dir, CASE));
    rmSync(expectedFile());
    expect((await runMain(['check', '--update', tree], { cwd: dir, env: { CI: '' } })).stdout).toContain('CREATED tree.expected.json');
    const r = await runMain(['check', dir], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('PASS tree\n1 passed, 0 failed\n');
  });

  it('says when an expectation names a delegation the case does not have (a prefix, a typo)', async () => {
    writeExpected([{ id: 'missing-completion', delegation: DELEGATION.slice(0, 8) }]);
    const r = await runMain(['check', dir], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`  missing: missing-completion in ${DELEGATION.slice(0, 8)}: expected at least 1, found 0 (the case has no delegation ${DELEGATION.slice(0, 8)}: "delegation" is a whole id, or a key such as <id>#2)\n`);
    writeExpected([{ id: 'late-result', delegation: DELEGATION }]);
    expect((await runMain(['check', dir], { cwd: dir })).stdout).not.toContain('the case has no delegation');
  });

  it('checks counts exactly', async () => {
    writeExpected([{ id: 'missing-completion', count: 2 }]);
    const r = await runMain(['check', dir], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('  missing: missing-completion in any delegation: expected 2, found 1\n');
  });

  it('--subset lets unmentioned findings pass but not missing ones', async () => {
    writeExpected([]);
    expect((await runMain(['check', dir], { cwd: dir })).code).toBe(1);
    expect((await runMain(['check', '--subset', dir], { cwd: dir })).code).toBe(0);
    writeExpected([{ id: 'late-result' }]);
    const r = await runMain(['check', '--subset', dir], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('unexpected:');
  });

  it('--update rewrites a failing case from the current findings, and the case then passes', async () => {
    writeExpected([{ id: 'late-result' }]);
    const r = await runMain(['check', '--update', dir], { cwd: dir, env: { CI: '' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`UPDATED ${CASE}.expected.json (1 expectation)\n1 expectations file written\n1 passed, 0 failed\n`);
    expect(JSON.parse(readFileSync(expectedFile(), 'utf8'))).toEqual([{ id: 'missing-completion', delegation: DELEGATION, severity: 'error', count: 1 }]);
    expect((await runMain(['check', dir], { cwd: dir })).code).toBe(0);
  });

  it('--update leaves a passing hand-written file alone and creates a missing one', async () => {
    writeExpected([{ id: 'missing-completion', note: 'the writer never reports back' }]);
    const before = readFileSync(expectedFile(), 'utf8');
    cpSync(path.join(FIXTURES, 'formats', 'hostile-text.jsonl'), path.join(dir, 'new.jsonl'));
    const r = await runMain(['check', '--update', dir, path.join(dir, 'new.jsonl')], { cwd: dir, env: { CI: 'false' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CREATED new.jsonl.expected.json (1 expectation)');
    expect(readFileSync(expectedFile(), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(path.join(dir, 'new.jsonl.expected.json'), 'utf8'))).toEqual([{ id: 'timeout-as-failure', delegation: 'e71c0de5-0000-4000-8000-0000000000aa', severity: 'info', count: 1 }]);
  });

  it('refuses --update when CI is set, and writes nothing', async () => {
    writeExpected([{ id: 'late-result' }]);
    const before = readFileSync(expectedFile(), 'utf8');
    const r = await runMain(['check', '--update', dir], { cwd: dir, env: { CI: 'true' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('trace-delegation: --update is refused when CI is set: record expectations locally, review them and commit them\n');
    expect(readFileSync(expectedFile(), 'utf8')).toBe(before);
  });

  it('takes a session folder with an expectations file beside it as one case', async () => {
    const session = path.join(dir, 'session');
    cpSync(path.join(FIXTURES, 'formats', CASE), path.join(session, 'v1', 'users', 'u', 'sessions', '7b1e4c2a-9d35-4f80-a6c1-3e5d7f9b0a24.jsonl'));
    cpSync(path.join(FIXTURES, 'formats', CASE), path.join(session, '7b1e4c2a-9d35-4f80-a6c1-3e5d7f9b0a24.jsonl'));
    rmSync(path.join(dir, CASE));
    rmSync(expectedFile());
    writeFileSync(path.join(dir, 'session.expected.json'), JSON.stringify([{ id: 'missing-completion', severity: 'error' }]));
    const r = await runMain(['check', dir], { cwd: dir });
    expect(r.stdout).toBe('PASS session\n1 passed, 0 failed\n');
    expect(r.code).toBe(0);
  });

  it('searches each real folder once: links back up the tree neither hang the search nor repeat a case', async () => {
    mkdirSync(path.join(dir, 'a'));
    symlinkSync(dir, path.join(dir, 'a', 'up1'));
    symlinkSync(dir, path.join(dir, 'a', 'up2')); // two loops: the search was exponential
    const r = await runMain(['check', dir], { cwd: dir });
    expect(r.stdout).toBe(`PASS ${CASE}\n1 passed, 0 failed\n`);
    expect(r.code).toBe(0);
  });

  it('accepts an expectations file as the argument and prints only failures with --quiet', async () => {
    const r = await runMain(['check', '-q', expectedFile()], { cwd: dir });
    expect(r.stdout).toBe('1 passed, 0 failed\n');
  });

  it('one sentence and exit 2 for what a user can get wrong', async () => {
    const cases: [string[], string | RegExp][] = [
      [['check', path.join(dir, 'nope')], `trace-delegation: ${path.join(dir, 'nope')} does not exist\n`],
      [['check', path.join(dir, 'empty')], /^trace-delegation: 1 journal has no expectations under .*empty: empty\/a\.jsonl; write X\.expected\.json/],
      [['check', path.join(dir, 'nothing')], /^trace-delegation: no checkable cases under .*nothing: a case is/],
    ];
    cpSync(path.join(FIXTURES, 'formats', 'hostile-text.jsonl'), path.join(dir, 'empty', 'a.jsonl'));
    mkdirSync(path.join(dir, 'nothing'));
    for (const [args, err] of cases) {
      const r = await runMain(args, { cwd: dir });
      expect(r.code).toBe(2);
      if (typeof err === 'string') expect(r.stderr).toBe(err);
      else expect(r.stderr).toMatch(err);
    }
    const lone = await runMain(['check', path.join(dir, 'empty', 'a.jsonl')], { cwd: dir });
    expect(lone.stderr).toMatch(/a\.jsonl has no expectations file beside it \(a\.jsonl\.expected\.json\); write one, or run check --update/);
    rmSync(path.join(dir, 'empty'), { recursive: true }); // a journal without expectations is refused first
    writeFileSync(expectedFile(), '[{ "id": "missing-completion", "severty": "error" }]');
    const bad = await runMain(['check', dir], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`trace-delegation: expectations file ${CASE}.expected.json[0]: unknown key "severty" (allowed: id, delegation, severity, count, runs, evidence, note, comment)\n`);
    expect(bad.stdout).toBe('');
  });
});

describe("a subcommand's own options win over the same ones given before it", () => {
  it('check rejects its own invalid --now even after a valid one before it', async () => {
    const r = await runMain(['--now', '2030-01-01T00:00:00Z', 'check', dir, '--now', 'not-a-date']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--now must be an RFC 3339 timestamp, not "not-a-date"/);
  });

  it('a repeatable option given on both sides of list counts every time (--sessions, --rule)', async () => {
    const alone = await runMain(['list', '--sessions', dir, '--fail-on', 'none']);
    expect(alone.stdout).toMatch(/^1 of 1 delegation/m);
    const both = await runMain(['--sessions', path.join(FIXTURES, 'join'), 'list', '--sessions', dir, '--fail-on', 'none', '--format', 'json', '--limit', '1000']);
    expect(both.code).toBe(0);
    const rows = JSON.parse(both.stdout).delegations as { id: string; findings: { error: number } }[];
    expect(rows.map((d) => d.id)).toContain(DELEGATION);
    expect(rows.length).toBeGreaterThan(1);
    // A rule before list and another after: both apply.
    const rules = (args: string[]) => runMain([...args, '--format', 'json', '--fail-on', 'none']).then((r) => JSON.parse(r.stdout).delegations.map((d: { findings: object }) => d.findings));
    const split = await rules(['--sessions', path.join(FIXTURES, 'join'), '--rule', 'late-result=off', 'list', '--rule', 'failed-in-aggregate=off']);
    const after = await rules(['--sessions', path.join(FIXTURES, 'join'), 'list', '--rule', 'late-result=off', '--rule', 'failed-in-aggregate=off']);
    expect(split).toEqual(after);
  });

  it('list takes --jobs before or after it (it scans the tree too)', async () => {
    for (const args of [['--jobs', '2', 'list'], ['list', '--jobs', '2']]) expect((await runMain(['--demo', ...args, '--fail-on', 'none'])).code, args.join(' ')).toBe(0);
    expect((await runMain(['--demo', 'list', '--jobs', '0'])).stderr).toBe('trace-delegation: --jobs must be an integer from 1 to 64, not "0"\n');
  });

  it('an option before a subcommand that the subcommand has no use for is refused, not dropped', async () => {
    for (const [args, flag, where] of [
      [['--contract', 'plan.yaml', 'list'], '--contract', 'list'],
      [['-o', 'json=x.json', 'list'], '--output', 'list'],
      [['--follow', 'list'], '--follow', 'list'],
      [['--sessions', dir, 'check', dir], '--sessions', 'check'],
      [['--all', 'rules'], '--all', 'rules'],
      [['--demo', 'contract', 'validate', 'p.yaml'], '--demo', 'contract validate'],
    ] as const) {
      const r = await runMain([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`trace-delegation: ${flag} does not apply to ${where}: give it to the report (trace-delegation ${flag} … [target]), or see trace-delegation ${where} --help\n`);
    }
  });

  it("an option only the subcommand has counts before it as after it (README: options before a subcommand count for it)", async () => {
    const same = async (before: string[], after: string[]) => {
      const [a, b] = [await runMain(before), await runMain(after)];
      expect(a.stderr, before.join(' ')).toBe('');
      expect([a.code, a.stdout], before.join(' ')).toEqual([b.code, b.stdout]);
    };
    await same(['--limit', '2', '--demo', 'list'], ['--demo', 'list', '--limit', '2']);
    await same(['--limit=2', '--events', '--demo', 'list'], ['--demo', 'list', '--limit=2', '--events']);
    await same(['--json', 'rules'], ['rules', '--json']);
    await same(['--subset', 'check', dir], ['check', dir, '--subset']);
    // A single-valued option after the subcommand still wins.
    await same(['--demo', '--limit', '3', 'list', '--limit', '1'], ['--demo', 'list', '--limit', '1']);
  });

  it('an option of another command is refused by name, not called unknown', async () => {
    for (const [args, message] of [
      [['--limit', '2', 'rules'], '--limit is an option of list, not of rules (trace-delegation list --limit …)'],
      [['--limit', '2', 'b7a2'], '--limit is an option of list (trace-delegation list --limit …)'],
      [['--demo', '--update'], '--update is an option of check (trace-delegation check --update …)'],
    ] as const) {
      const r = await runMain([...args]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, `trace-delegation: ${message}\n`]);
    }
    // Unknown everywhere stays commander's own error.
    expect((await runMain(['--bogus', 'list'])).stderr).toMatch(/^trace-delegation: unknown option '--bogus'/);
  });

  it('a --no-color after the subcommand turns colour off; a default never overrides a given value', () => {
    const parse = (argv: string[]) => {
      const program = new Command().option('--no-color').option('--now <t>').exitOverride();
      let seen: Record<string, unknown> = {};
      program.command('check').option('--no-color').option('--now <t>').action((_f, cmd: Command) => (seen = ownOptionsWin(cmd)));
      program.parse(argv, { from: 'user' });
      return seen;
    };
    expect(parse(['check', '--no-color']).color).toBe(false);
    expect(parse(['--no-color', 'check']).color).toBe(false);
    expect(parse(['check']).color).toBe(true);
    expect(parse(['--now', 'a', 'check']).now).toBe('a');
    expect(parse(['--now', 'a', 'check', '--now', 'b']).now).toBe('b');
  });
});
