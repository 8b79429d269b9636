// A target that matches nothing: the error says what the user likely meant (the delegation of a
// sub-run id, a mistyped command), and never replays the escape sequences it quotes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runMain } from '../helpers/cli.js';

const SAMPLE = path.resolve(ROOT, 'fixtures', 'samples', 'astra-sample.jsonl');

describe('unknown targets', () => {
  it('names the delegation of a sub-run id, in memory and through the index', async () => {
    const dir = path.dirname(SAMPLE);
    for (const sessions of [SAMPLE, dir]) {
      const r = await runMain(['--sessions', sessions, '8f3d2c1b-7e6a-4b59-9d08-1c2e3f4a5b6c']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/; 8f3d2c1b-7e6a-4b59-9d08-1c2e3f4a5b6c is a sub-run of delegation b7a2e915-3c6d-4f80-9e14-5d2c8a7b6f31: name that delegation instead\n$/);
    }
  });

  it('suggests the command a mistyped first word meant, and not for a word far from every command', async () => {
    for (const [typo, command] of [['lsit', 'list'], ['rule', 'rules'], ['chek', 'check'], ['hepl', 'help']]) {
      const r = await runMain(['--demo', typo]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`; did you mean the command ${command}? (trace-delegation ${command} --help)\n`);
    }
    expect((await runMain(['--demo', 'deadbeef'])).stderr).not.toContain('did you mean');
  });

  it('has a help command, as contract has', async () => {
    const top = await runMain(['help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: trace-delegation \[options\] \[command\] \[target\]/);
    const list = await runMain(['help', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^Usage: trace-delegation list \[options\]/);
    const helpHelp = await runMain(['help', 'help']);
    expect([helpHelp.code, helpHelp.stderr, helpHelp.stdout]).toEqual([0, '', top.stdout]);
    // Nested: a subcommand's own help, an unknown one named, a command without subcommands said so.
    const validate = await runMain(['help', 'contract', 'validate']);
    expect([validate.code, validate.stderr]).toEqual([0, '']);
    expect(validate.stdout).toMatch(/^Usage: trace-delegation contract validate \[options\] <plan>/);
    expect((await runMain(['help', 'contract', 'help'])).stdout).toMatch(/^Usage: trace-delegation contract \[options\] \[command\]/);
    const nestedBogus = await runMain(['help', 'contract', 'bogus']);
    expect([nestedBogus.code, nestedBogus.stdout, nestedBogus.stderr]).toEqual([2, '', 'trace-delegation: help: unknown command contract bogus (contract has: validate)\n']);
    // The other order, `contract help …`, reads the same.
    const otherOrder = await runMain(['contract', 'help', 'bogus']);
    expect([otherOrder.code, otherOrder.stdout, otherOrder.stderr]).toEqual([2, '', 'trace-delegation: help: unknown command contract bogus (contract has: validate)\n']);
    expect((await runMain(['contract', 'help', 'validate'])).stdout).toBe(validate.stdout);
    // `help --help` and `help -h`: the root help, on stdout (commander took --help for a command name).
    for (const flag of ['--help', '-h']) expect(await runMain(['help', flag])).toMatchObject({ code: 0, stderr: '', stdout: top.stdout });
    expect(await runMain(['help', '-h', 'list'])).toMatchObject({ code: 0, stderr: '', stdout: list.stdout });
    expect(await runMain(['--no-color', 'contract', 'help', 'bogus'])).toMatchObject({ code: 2, stdout: '', stderr: 'trace-delegation: help: unknown command contract bogus (contract has: validate)\n' });
    const flat = await runMain(['help', 'list', 'extra']);
    expect([flat.code, flat.stderr]).toEqual([2, 'trace-delegation: help: list has no subcommands (trace-delegation help list)\n']);
    const bogus = await runMain(['help', 'bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.stdout).toBe('');
    expect(bogus.stderr).toBe('trace-delegation: help: unknown command bogus (commands: list, check, contract, rules, help)\n');
  });

  it('names the command a mistyped first word meant: with its arguments, and when no journals exist yet', async () => {
    const chek = await runMain(['chek', 'fixtures']);
    expect([chek.code, chek.stdout, chek.stderr]).toEqual([2, '', 'trace-delegation: unknown command chek; did you mean check? (trace-delegation check --help)\n']);
    // After options (and their values) too: it was commander's bare "too many arguments".
    for (const args of [['--demo', 'chek', 'fixtures'], ['--sessions', 'fixtures/sessions', 'chek', 'fixtures'], ['--format=json', 'chek', 'fixtures']]) {
      const r = await runMain(args);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', 'trace-delegation: unknown command chek; did you mean check? (trace-delegation check --help)\n']);
    }
    const home = mkdtempSync(path.join(tmpdir(), 'td-nohome-'));
    try {
      const lsit = await runMain(['lsit'], { env: { HOME: home } });
      expect(lsit.code).toBe(2);
      expect(lsit.stderr).toMatch(/^trace-delegation: sessions root .* does not exist \(the default; .*\); did you mean the command list\? \(trace-delegation list --help\)\n$/);
      // `last` is a target one letter from `list`: no hint for it.
      const last = await runMain(['last'], { env: { HOME: home } });
      expect(last.code).toBe(2);
      expect(last.stderr).not.toContain('did you mean');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('points LAST, Last and lastt at the keyword last, not at the command list', async () => {
    for (const word of ['LAST', 'Last', 'lastt']) {
      const r = await runMain(['--demo', word]);
      expect(r.code, word).toBe(2);
      expect(r.stderr, word).toMatch(new RegExp(`^trace-delegation: no delegation, parent run or session matches ${word} in \\d+ journal files under .*; did you mean last \\(the newest delegation\\)\\?\n$`));
    }
    const lost = await runMain(['--demo', 'lost']); // one letter from both: the command is named
    expect(lost.stderr).toContain('did you mean the command list?');
  });

  it('points an upper-case paste of an id at its lower-case spelling (ids are case-sensitive)', async () => {
    const r = await runMain(['--demo', '2E6B8F47']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^trace-delegation: no delegation, parent run or session matches 2E6B8F47 in \d+ journal files under .*; ids are case-sensitive and the engine writes them in lower case: try 2e6b8f47\n$/);
    expect((await runMain(['--demo', '2e6b8f47'])).code).toBe(1); // the demo delegation, with its findings
    for (const word of ['Nothing-Here', 'CAFE', 'FACADE', 'FACADE#2']) {
      const r2 = await runMain(['--demo', word]); // not id-like: no such hint
      expect(r2.stderr, word).not.toContain('lower case');
    }
  });

  it("points an upper-case paste of a reused id's key (`<ID>#2`) at its lower-case spelling, which names that block", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-case-key-'));
    try {
      const id = '5e0c7a1d-2b9f-4c3e-8d6a-0f1e2d3c4b5a';
      const start = (ts: string, parent: string) => JSON.stringify({ type: 'delegation_started', ts, session_id: 's', metadata: { delegation_id: id, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['coder'], agent_count: 1 } });
      writeFileSync(path.join(dir, 's.jsonl'), `${start('2026-01-01T00:00:00+00:00', 'p1')}\n${start('2026-01-01T01:00:00+00:00', 'p2')}\n`);
      const upper = `${id.toUpperCase()}#2`;
      const r = await runMain(['--sessions', dir, upper]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`; ids are case-sensitive and the engine writes them in lower case: try ${id}#2\n$`));
      const lower = await runMain(['--sessions', dir, `${id}#2`, '--format', 'json', '--fail-on', 'none']);
      expect(JSON.parse(lower.stdout).delegations.map((d: { key: string }) => d.key)).toEqual([`${id}#2`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says where journals are looked for when a root one level off reads none (an empty sessions folder says nothing)', async () => {
    const hint = '(a folder is read as <folder>/*.jsonl and <folder>/v1/users/*/sessions/*.jsonl: name the sessions folder itself)';
    const last = await runMain(['--sessions', 'fixtures/sessions/v1/users']);
    expect([last.code, last.stderr]).toEqual([2, `trace-delegation: no delegation_started event found in 0 journal files under fixtures/sessions/v1/users ${hint}\n`]);
    const all = await runMain(['--sessions', 'fixtures/sessions/v1/users', '--all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('- no journal file (*.jsonl, *.jsonl.gz) found under fixtures/sessions/v1/users: a folder is read as <folder>/*.jsonl and <folder>/v1/users/*/sessions/*.jsonl; name the sessions folder itself, not one above or inside it.');
    const empty = mkdtempSync(path.join(tmpdir(), 'td-empty-root-'));
    try {
      const none = await runMain(['--sessions', empty, '--all']);
      expect([none.code, none.stdout]).toEqual([0, 'No delegation found.\n']);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('says so when the target is a path (an unquoted --sessions glob the shell expanded)', async () => {
    const r = await runMain(['--sessions', 'fixtures/sessions', 'fixtures/join']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("; fixtures/join is a path: quote a --sessions glob (--sessions '…/*/sessions') or give --sessions once per path\n");
  });

  it('quotes a target with blanks around it (a pasted id), which would not show otherwise', async () => {
    const r = await runMain(['--demo', ' b3e8ffff ']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no delegation, parent run or session matches " b3e8ffff " in ');
  });

  it('shows control characters of a quoted target escaped', async () => {
    const r = await runMain(['--demo', '\u001b[31mred\nline2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('matches \\u001b[31mred\\nline2 in ');
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('a parent run id target', () => {
  it('finds a delegation whose delegation_started is not in the journals, in memory and through the index', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-parent-'));
    try {
      const file = path.join(dir, 'sess-9.jsonl');
      const ev = (type: string, ts: string, metadata: object) => JSON.stringify({ type, ts, session_id: 'sess-9', metadata });
      writeFileSync(
        file,
        [
          ev('delegation_sub_run_started', '2025-11-03T09:15:01Z', { delegation_id: 'd-startless', sub_run_id: 'r-1', parent_run_id: 'P-77', agent_id: 'a', depth: 1, retry_of: null, status: 'running' }),
          ev('delegation_sub_run_completed', '2025-11-03T09:15:02Z', { delegation_id: 'd-startless', sub_run_id: 'r-1', status: 'completed', duration_ms: 1000 }),
        ].join('\n') + '\n',
      );
      for (const sessions of [file, dir]) {
        const r = await runMain(['--sessions', sessions, 'P-77', '--format', 'json']);
        expect(r.stderr).not.toContain('no delegation');
        expect(JSON.parse(r.stdout).delegations.map((d: { id: string }) => d.id)).toEqual(['d-startless']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('no delegation_started found', () => {
  it('says when delegation lines were skipped as mistyped: one of them may be the start', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-mistyped-'));
    try {
      const file = path.join(dir, 'sess-3.jsonl');
      const ev = (type: string, ts: string, metadata: object) => JSON.stringify({ type, ts, session_id: 'sess-3', metadata });
      writeFileSync(
        file,
        [
          // delegation_id of the wrong type: the line is skipped, so no delegation_started is read.
          ev('delegation_started', '2025-11-03T09:15:00Z', { delegation_id: true, parent_run_id: 'P-1', pattern: 'fan_out', agent_count: 1, agent_ids: ['a'] }),
          ev('delegation_sub_run_started', '2025-11-03T09:15:01Z', { delegation_id: 'd-1', sub_run_id: 'r-1', parent_run_id: 'P-1', agent_id: 'a', depth: 1, retry_of: null, status: 'running' }),
        ].join('\n') + '\n',
      );
      for (const sessions of [file, dir]) {
        const r = await runMain(['--sessions', sessions]);
        expect([r.code, r.stdout]).toEqual([2, '']);
        expect(r.stderr).toBe(
          `trace-delegation: no delegation_started event found in 1 journal file under ${sessions}; 1 delegation line was skipped, a required field (delegation_id, sub_run_id or metadata) missing or of the wrong type (trace-delegation --all names its file)\n`,
        );
        // What the note points to: --all names the file and the skipped line.
        const all = await runMain(['--sessions', sessions, '--all']);
        expect(all.stdout).toContain('sess-3.jsonl: 1 delegation line has a required field (delegation_id, sub_run_id or metadata) missing or of the wrong type and was skipped.');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
