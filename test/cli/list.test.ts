/** `trace-delegation list`, run as the real binary on the demo tree and checked against the files. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';
import { allDemoLines, demoStarts, meta, tsNanos } from '../helpers/demo-tree.js';
import { agentsCell } from '../../src/cli/list-command.js';

const HEAD = ['started (UTC)', 'id', 'pattern', 'parent run', 'agents', 'ok/failed', 'status', 'findings E/W/I'];

/** The data rows of a cli-table3 table: cells of every `│ … │` line after the header. */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('│'))
    .map((l) => l.slice(1, -1).split('│').map((c) => c.trim()));
}

let fullList: ReturnType<typeof runBin> | undefined;
const listDemo = () => (fullList ??= runBin(['list', '--demo', '--fail-on', 'none']));

const newestFirst = () => [...demoStarts()].sort((a, b) => (tsNanos(b.ts) > tsNanos(a.ts) ? 1 : tsNanos(b.ts) < tsNanos(a.ts) ? -1 : 0));

describe('trace-delegation list', () => {
  it('prints a table of every delegation, newest first, with the documented columns', async () => {
    const r = await listDemo();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(HEAD);
    const starts = newestFirst();
    expect(rows).toHaveLength(starts.length);
    rows.forEach((row, i) => {
      const s = starts[i];
      expect(row[0]).toBe(s.ts.slice(0, 19));
      expect(s.id.startsWith(row[1].replace(/…$/, ''))).toBe(true);
      expect(s.parent.startsWith(row[3].replace(/…$/, ''))).toBe(true);
    });
    expect(r.stdout).toMatch(new RegExp(`\\n${starts.length} of ${starts.length} delegations, newest first\\n$`));
  });

  it('shows pattern, agents, journaled totals, status and finding counts per delegation', async () => {
    const rows = tableRows((await listDemo()).stdout).slice(1);
    const byId = (prefix: string) => rows.find((r) => r[1].startsWith(prefix))!;
    expect(byId('5a0c7e3d')).toEqual(['2025-11-06T08:20:12', '5a0c7e3d-8f21…', 'fork', 'f0e02426-dd7…', 'tester×3', '3/0', 'completed', '0/0/0']);
    // An open delegation: no totals, status open, its warning counted.
    expect(byId('c8f05d3a').slice(5)).toEqual(['?/?', 'open', '0/1/0']);
    expect(byId('9d41a6c8').slice(5, 7)).toEqual(['1/1', 'unfinished']);
    const wrong = byId('2e6b8f47')[7].split('/').map(Number);
    expect(wrong[0]).toBeGreaterThanOrEqual(2);
  });

  it('--limit N keeps the N newest', async () => {
    const r = await runBin(['list', '--demo', '--limit', '3']);
    const rows = tableRows(r.stdout).slice(1);
    const starts = newestFirst();
    expect(rows.map((row) => row[0])).toEqual(starts.slice(0, 3).map((s) => s.ts.slice(0, 19)));
    expect(r.stdout).toContain(`\n3 of ${starts.length} delegations, newest first\n`);
    // The edges of the kept window: one row, and more rows than there are delegations.
    const one = await runBin(['list', '--demo', '--limit', '1']);
    expect(tableRows(one.stdout).slice(1).map((row) => row[0])).toEqual([starts[0].ts.slice(0, 19)]);
    const every = await runBin(['list', '--demo', '--limit', '1000']);
    expect(tableRows(every.stdout).slice(1).map((row) => row[0])).toEqual(starts.map((s) => s.ts.slice(0, 19)));
  });

  it('scan options work before the subcommand too', async () => {
    const [a, b] = [await runBin(['--demo', 'list', '--limit', '2']), await runBin(['list', '--limit', '2', '--sessions', 'fixtures/sessions'])];
    expect(a.code).toBe(1); // the newest has error findings
    expect(b.code).toBe(1);
    expect(a.stdout).toBe(b.stdout);
  });

  it('keeps the #2 of a reused delegation id visible in the shortened id column', async () => {
    const id = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const input = journal(
      ev.started('2025-11-03T09:15:00Z', { delegation_id: id, parent_run_id: 'run-monday', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.started('2025-11-04T09:15:00Z', { delegation_id: id, parent_run_id: 'run-tuesday', pattern: 'fan_out', agent_ids: ['a'] }),
    );
    const r = await runBin(['list', '--stdin'], { input });
    expect(tableRows(r.stdout).slice(1).map((row) => row[1])).toEqual(['0a1b2c3d-4e5f…#2', '0a1b2c3d-4e5f…']);
    // Pasted as a target, the cut key names the id's delegations (the #2 among them).
    const t = await runBin(['--stdin', '0a1b2c3d-4e5f…#2', '--format', 'json', '--fail-on', 'none'], { input });
    expect(t.stderr).toBe('');
    expect(JSON.parse(t.stdout).delegations.map((d: { key: string }) => d.key)).toEqual([id, `${id}#2`]);
  });

  it('cuts two ids that share their first 13 characters where they differ, so each cut id names its row', async () => {
    const input = journal(
      ev.started('2025-11-08T10:00:00Z', { delegation_id: 'review-2025-11-08-a', parent_run_id: 'p1', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.started('2025-11-08T10:01:00Z', { delegation_id: 'review-2025-11-08-b', parent_run_id: 'p2', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.started('2025-11-08T10:02:00Z', { delegation_id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', parent_run_id: 'p3', pattern: 'fan_out', agent_ids: ['a'] }),
    );
    const r = await runBin(['list', '--stdin', '--fail-on', 'none'], { input });
    expect(tableRows(r.stdout).slice(1).map((row) => row[1])).toEqual(['0a1b2c3d-4e5f…', 'review-2025-11-08-b', 'review-2025-11-08-a']);
  });

  it('exits as a report does: 1 when a delegation shown has a finding at or above --fail-on', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-list-'));
    try {
      const one = (id: string, t: string, total: number) => [
        ev.started(`${t}0+00:00`, { delegation_id: id, parent_run_id: `p-${id}`, pattern: 'fan_out', agent_ids: ['coder'] }),
        ev.subStarted(`${t}1+00:00`, { delegation_id: id, sub_run_id: `r-${id}`, parent_run_id: `p-${id}`, agent_id: 'coder' }),
        ev.subCompleted(`${t}2+00:00`, { delegation_id: id, sub_run_id: `r-${id}`, agent_id: 'coder', status: 'completed', output_preview: `done ${id}` }),
        ev.completed(`${t}3+00:00`, { delegation_id: id, pattern: 'fan_out', total_sub_runs: total, succeeded: total, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `done ${id}` }),
      ];
      // The older one claims 3 results for 1 child (totals-mismatch, an error); the newer one is clean.
      writeFileSync(path.join(dir, 's.jsonl'), journal(...one('d-bad', '2026-01-01T10:00:0', 3), ...one('d-good', '2026-01-02T10:00:0', 1)));
      const list = (...args: string[]) => runBin(['list', '--sessions', dir, ...args]);
      expect((await list('--limit', '1')).code).toBe(0); // only d-good shown
      expect((await list()).code).toBe(1);
      expect((await list('--fail-on', 'none')).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses standard input with a tree in one sentence', async () => {
    const r = await runBin(['list', '--stdin', '--demo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('trace-delegation: standard input (--stdin or target -) is the one journal read; it cannot be combined with --demo\n');
  });

  it('rejects a bad --limit with exit 2', async () => {
    const r = await runBin(['list', '--demo', '--limit', 'lots']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('trace-delegation: --limit must be a positive integer, not "lots"\n');
  });
});

describe('trace-delegation list --events', () => {
  const ROW = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) \| (\S+) +\| (\S{16}) \| (\S*) \| (.+):(\d+)$/;

  it('prints the skill’s listing: ts | type | delegation id (16) | run id | file:line, in time order', async () => {
    const r = await runBin(['list', '--events', '--demo', '--limit', '4', '--fail-on', 'none']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const byLoc = new Map(allDemoLines().map((l) => [`${l.file}:${l.line}`, l]));
    const newest4 = new Set(newestFirst().slice(0, 4).map((s) => s.id));
    // Every delegation event (and run marker) of the 4 newest delegations, each once.
    const wanted = allDemoLines().filter((l) => {
      const m = meta(l);
      if (l.value?.type === 'sync_marker') return [...newest4].some((id) => allDemoLines().some((x) => meta(x).delegation_id === id && meta(x).sub_run_id === m.run_id));
      return typeof l.value?.type === 'string' && l.value.type.startsWith('delegation_') && newest4.has(String(m.delegation_id));
    });
    expect(lines).toHaveLength(wanted.length);

    let prev = -1n;
    for (const text of lines) {
      const m = ROW.exec(text);
      expect(m, text).not.toBeNull();
      const [, ts, type, did, run, file, line] = m!;
      const src = byLoc.get(`${file}:${line}`);
      expect(src, `${file}:${line}`).toBeDefined();
      const v = src!.value!;
      const md = meta(src!);
      expect(type).toBe(v.type);
      expect(ts).toBe(String(v.ts).slice(0, 19));
      if (type !== 'sync_marker') expect(did).toBe(String(md.delegation_id).slice(0, 16));
      // The skill's run column: sub_run_id, else parent_run_id, else retry_run_id (sync_marker: run_id).
      expect(run).toBe(String(md.sub_run_id ?? md.parent_run_id ?? md.retry_run_id ?? md.run_id ?? ''));
      const t = tsNanos(String(v.ts));
      expect(t >= prev, `${text} is out of time order`).toBe(true);
      prev = t;
    }
  });

  it('interleaves a nested delegation with its outer one by time', async () => {
    const r = await runBin(['list', '--events', '--sessions', 'fixtures/sessions/v1/users/b64-bG9jYWw/sessions/f27d3a6c-9e04-4b18-8d5a-b6c1e0f4a392.jsonl']);
    const ids = r.stdout.trimEnd().split('\n').map((l) => ROW.exec(l)![3]);
    expect(ids).toEqual(['b3e81f6a-2d4c-4a', 'b3e81f6a-2d4c-4a', 'b3e81f6a-2d4c-4a', 'b3e8c027-4f1d-4e', 'b3e8c027-4f1d-4e', 'b3e8c027-4f1d-4e', 'b3e81f6a-2d4c-4a', 'b3e8c027-4f1d-4e', 'b3e8c027-4f1d-4e', 'b3e8c027-4f1d-4e', 'b3e81f6a-2d4c-4a', 'b3e81f6a-2d4c-4a']);
  });
});

describe('list for scripts', () => {
  it('--format json gives whole ids and the same rows as the table, and a cut id from the table is a target', async () => {
    const table = await runMain(['--demo', 'list', '--limit', '3', '--no-color']);
    const json = await runMain(['--demo', 'list', '--limit', '3', '--format', 'json']);
    expect(json.code).toBe(table.code);
    const doc = JSON.parse(json.stdout);
    expect(doc.delegations).toHaveLength(3);
    expect(doc.note).toBe(table.stdout.trimEnd().split('\n').at(-1));
    const cut = [...table.stdout.matchAll(/│ [0-9T:-]{19} │ (\S+…) /g)].map((m) => m[1]);
    expect(cut).toHaveLength(3);
    for (const [i, d] of doc.delegations.entries()) {
      expect(cut[i].slice(0, -1)).toBe(d.id.slice(0, 13));
      const r = await runMain(['--demo', cut[i], '--format', 'json']);
      expect(JSON.parse(r.stdout).delegations.map((x: { key: string }) => x.key)).toContain(d.key);
    }
    expect((await runMain(['--demo', 'list', '--format', 'yaml'])).stderr).toBe('trace-delegation: list --format is text or json, not "yaml"\n');
  });
});

describe('list names what it could not read', () => {
  it('an unreadable journal is a Limits line under the table, the event listing and in --format json', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'list-limits-'));
    try {
      const D = 'c0ffee00-0000-4000-8000-00000000d1e5';
      writeFileSync(path.join(root, 'good.jsonl'), journal(ev.started('2026-03-10T10:00:00Z', { delegation_id: D, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] })));
      writeFileSync(path.join(root, 'bad.jsonl.gz'), 'not gzip at all');
      const line = `${path.join(root, 'bad.jsonl.gz')}: corrupt gzip data (incorrect header check); not read.`;
      for (const extra of [[], ['--limit', '1']]) {
        const table = await runMain(['--sessions', root, 'list', '--fail-on', 'none', ...extra]);
        expect(table.stdout.endsWith(`\nLimits:\n- ${line}\n`), table.stdout).toBe(true);
        const json = JSON.parse((await runMain(['--sessions', root, 'list', '--format', 'json', ...extra])).stdout);
        expect(json.limits).toEqual([line]);
        const events = await runMain(['--sessions', root, 'list', '--events', '--fail-on', 'none', ...extra]);
        expect(events.stdout.endsWith(`\n\nLimits:\n- ${line}\n`), events.stdout).toBe(true);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a tree whose only journal is unreadable lists no event, and says why', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'list-unread-'));
    try {
      writeFileSync(path.join(root, 'bad.jsonl.gz'), 'not gzip at all');
      const r = await runMain(['--sessions', root, 'list', '--events']);
      expect(r.stdout).toBe(`Limits:\n- ${path.join(root, 'bad.jsonl.gz')}: corrupt gzip data (incorrect header check); not read.\n`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('list times', () => {
  it('prints every start as its UTC clock, whatever offset the journal wrote, so newest first reads newest first', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-list-utc-'));
    try {
      writeFileSync(
        path.join(dir, 'a.jsonl'),
        journal(
          ev.started('2026-01-10T09:00:00+09:00', { delegation_id: 'd-tokyo', parent_run_id: 'p1', pattern: 'fan_out', agent_ids: ['a'] }),
          ev.started('2026-01-10T01:30:00+00:00', { delegation_id: 'd-utc', parent_run_id: 'p2', pattern: 'fan_out', agent_ids: ['a'] }),
          ev.started('2026-01-09T20:15:00-08:00', { delegation_id: 'd-west', parent_run_id: 'p3', pattern: 'fan_out', agent_ids: ['a'] }),
        ),
      );
      const table = await runMain(['--sessions', dir, 'list', '-q']);
      const rows = table.stdout.split('\n').filter((l) => l.includes('d-'));
      expect(rows.map((l) => /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) │ (d-\w+)/.exec(l)?.slice(1, 3))).toEqual([
        ['2026-01-10T04:15:00', 'd-west'],
        ['2026-01-10T01:30:00', 'd-utc'],
        ['2026-01-10T00:00:00', 'd-tokyo'],
      ]);
      const events = await runMain(['--sessions', dir, 'list', '--events', '-q']);
      expect(events.stdout).toContain('2026-01-10T00:00:00 | delegation_started');
      expect(events.stdout).toContain('2026-01-10T04:15:00 | delegation_started');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('list: the agents cell', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}-reviewer`);

  it('keeps a short list whole', () => {
    expect(agentsCell(['coder', 'reviewer', 'tester×3'])).toBe('coder,reviewer,tester×3');
    expect(agentsCell([])).toBe('');
  });

  it('cuts a long list to 40 columns and says how many more (a 12-agent fan-out made 311-column rows)', () => {
    const cell = agentsCell(names(12));
    expect(cell).toBe('agent-01-reviewer … +11');
    expect(agentsCell(names(2))).toBe('agent-01-reviewer,agent-02-reviewer');
    expect(cell.length).toBeLessThanOrEqual(40);
    expect(agentsCell(names(100_000))).toBe('agent-01-reviewer … +99999');
  });

  it('cuts one very long name', () => {
    const cell = agentsCell(['x'.repeat(100), 'b']);
    expect(cell).toBe(`${'x'.repeat(35)}… +1`);
    expect(agentsCell(['y'.repeat(100)])).toBe(`${'y'.repeat(38)}…`);
  });

  it('in the table, with the whole list in list -f json', async () => {
    const d = 'd-wide';
    const input = journal(ev.started('2026-01-01T00:00:00Z', { delegation_id: d, parent_run_id: 'p', pattern: 'fan_out', agent_ids: names(12) }));
    const text = await runMain(['list', '--stdin', '--now', '2026-01-01T00:00:30Z'], { input });
    expect(text.stdout).toContain('agent-01-reviewer … +11');
    expect(Math.max(...text.stdout.split('\n').map((l) => l.length))).toBeLessThan(160);
    const json = await runMain(['list', '--stdin', '--format', 'json', '--now', '2026-01-01T00:00:30Z'], { input });
    expect(JSON.parse(json.stdout).delegations[0].agents).toEqual(names(12));
  });
});
