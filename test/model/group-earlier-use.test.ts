// An id started once, with sub-runs of an earlier use whose delegation_started was lost: those
// events are an earlier use (`id#2`), not the later start's. A clock behind, or a foreign parent
// after the start, stays with the start (time-order and foreign-parent report them).
import { describe, expect, it } from 'vitest';
import { byKey, group } from '../helpers/events.js';
import { ev } from '../helpers/journal.js';

const OLD = '2026-01-30T12:00:0';
const NEW = '2026-03-01T11:00:0';

/** The later, complete use of d-x under parent run p-2. */
const later = [
  ev.started(`${NEW}0Z`, { delegation_id: 'd-x', parent_run_id: 'p-2', pattern: 'fan_out', agent_ids: ['coder'] }),
  ev.subStarted(`${NEW}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-new', parent_run_id: 'p-2', agent_id: 'coder' }),
  ev.subCompleted(`${NEW}2Z`, { delegation_id: 'd-x', sub_run_id: 'r-new', agent_id: 'coder', status: 'completed', output_preview: 'new' }),
  ev.completed(`${NEW}3Z`, { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'new' }),
];

describe('an earlier use whose start was lost', () => {
  it('takes the sub-runs started well before the start under another parent run, their completions and an earlier join', () => {
    const ds = group({
      'old.jsonl': [
        ev.subStarted(`${OLD}0Z`, { delegation_id: 'd-x', sub_run_id: 'r-old', parent_run_id: 'p-1', agent_id: 'coder' }),
        ev.subCompleted(`${OLD}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-old', agent_id: 'coder', status: 'failed', error: 'boom' }),
        ev.completed(`${OLD}2Z`, { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed', aggregated_output_preview: null }),
      ],
      'new.jsonl': later,
    });
    const now = byKey(ds, 'd-x');
    const before = byKey(ds, 'd-x#2');
    expect(now.started?.parentRunId).toBe('p-2');
    expect([...now.runs.keys()]).toEqual(['r-new']);
    expect(now.completions).toHaveLength(1);
    expect(now.files).toEqual(['new.jsonl']);
    expect(before.started).toBeNull();
    expect([...before.runs.keys()]).toEqual(['r-old']);
    expect(before.completions).toHaveLength(1);
    expect(before.files).toEqual(['old.jsonl']);
    expect(now.notes.join('\n')).toMatch(/earlier use whose delegation_started was not journaled; its events are shown as d-x#2/);
  });

  it("takes a completion well before the start of a run whose start is not journaled (the earlier use's too), not only its started runs'", () => {
    const ds = group({
      'old.jsonl': [
        ev.subStarted(`${OLD}0Z`, { delegation_id: 'd-x', sub_run_id: 'r-old', parent_run_id: 'p-1', agent_id: 'coder' }),
        ev.subCompleted(`${OLD}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-lost', agent_id: 'reviewer', status: 'completed', output_preview: 'lost start' }),
        ev.subCompleted(`${OLD}2Z`, { delegation_id: 'd-x', sub_run_id: 'r-old', agent_id: 'coder', status: 'completed', output_preview: 'old' }),
      ],
      'new.jsonl': later,
    });
    expect([...byKey(ds, 'd-x').runs.keys()]).toEqual(['r-new']);
    expect([...byKey(ds, 'd-x#2').runs.keys()].sort()).toEqual(['r-lost', 'r-old']);
  });

  it('takes a lone completion well before the start of a run whose start is not journaled: an earlier use with both start lines lost', () => {
    const lone = ev.subCompleted(`${OLD}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-lost', agent_id: 'reviewer', status: 'completed', output_preview: 'lost start' });
    const ds = group({ 'old.jsonl': [lone], 'new.jsonl': later });
    expect([...byKey(ds, 'd-x').runs.keys()]).toEqual(['r-new']);
    expect([...byKey(ds, 'd-x#2').runs.keys()]).toEqual(['r-lost']);
    expect(byKey(ds, 'd-x').notes.join('\n')).toContain('a sub-run of d-x completed more than a minute before its first delegation_started, its own start not journaled (old.jsonl:1)');
    // Started twice: the same, judged against the first start.
    const again = later.map((l) => l.replace(/"p-2"/, '"p-3"').replace(/11:00:0/g, '11:30:0').replace(/r-new/g, 'r-again'));
    const twice = group({ 'old.jsonl': [lone], 'new.jsonl': [...later, ...again] });
    expect(Object.fromEntries(twice.map((d) => [d.key, [...d.runs.keys()]]))).toEqual({ 'd-x': ['r-new'], 'd-x#2': ['r-again'], 'd-x#3': ['r-lost'] });
    // A clock behind by a minute on the start's own run: its completion has a journaled start, and stays.
    const skewed = group({ 'new.jsonl': [later[0], ev.subStarted(`${NEW}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-skew', parent_run_id: 'p-2', agent_id: 'coder' })], 'other-host.jsonl': [ev.subCompleted('2026-03-01T10:58:00Z', { delegation_id: 'd-x', sub_run_id: 'r-skew', agent_id: 'coder', status: 'completed', output_preview: 'x' })] });
    expect(skewed.map((d) => d.key)).toEqual(['d-x']);
  });

  it('leaves a clock behind (the same parent run) and a foreign parent just before the start with the start', () => {
    const ds = group({
      'other-host.jsonl': [
        // Another host's clock 90 s behind: the same parent run.
        ev.subStarted('2026-03-01T10:58:30Z', { delegation_id: 'd-x', sub_run_id: 'r-skew', parent_run_id: 'p-2', agent_id: 'coder' }),
        // Another parent run, but within a minute of the start: foreign-parent's to judge.
        ev.subStarted('2026-03-01T10:59:30Z', { delegation_id: 'd-x', sub_run_id: 'r-foreign', parent_run_id: 'p-9', agent_id: 'coder' }),
      ],
      'new.jsonl': later,
    });
    expect(ds.map((d) => d.key)).toEqual(['d-x']);
    expect([...ds[0].runs.keys()].sort()).toEqual(['r-foreign', 'r-new', 'r-skew']);
  });

  it("a sync marker of a reused sub_run_id written well before this run started is the other run's, not this one's", () => {
    const ds = group({
      'sa.jsonl': [
        ev.started('2026-03-01T10:28:00Z', { delegation_id: 'X', parent_run_id: 'px', pattern: 'fan_out', agent_ids: ['a'] }),
        ev.subStarted('2026-03-01T10:28:01Z', { delegation_id: 'X', sub_run_id: 'R', parent_run_id: 'px', agent_id: 'a' }),
        ev.marker('2026-03-01T10:28:02Z', 'pause', 'R'),
        ev.subCompleted('2026-03-01T10:28:03Z', { delegation_id: 'X', sub_run_id: 'R', agent_id: 'a', status: 'completed', output_preview: 'x' }),
      ],
      'sb.jsonl': [
        ev.started('2026-03-01T10:37:00Z', { delegation_id: 'Y', parent_run_id: 'py', pattern: 'fan_out', agent_ids: ['a'] }),
        ev.subStarted('2026-03-01T10:37:01Z', { delegation_id: 'Y', sub_run_id: 'R', parent_run_id: 'py', agent_id: 'a' }),
        ev.marker('2026-03-01T10:37:02Z', 'cancel_requested', 'R'),
      ],
    });
    // Each run keeps the markers of its own time: the 10:28 pause is X's; Y's cancel, 9 minutes later, is after X's run started, so X keeps it too.
    expect(byKey(ds, 'Y').runs.get('R')!.markers.map((m) => m.action)).toEqual(['cancel_requested']);
    expect(byKey(ds, 'X').runs.get('R')!.markers.map((m) => m.action)).toEqual(['pause', 'cancel_requested']);
  });

  it('a join before the only start in the other file of its .jsonl/.jsonl.gz pair ends an earlier use, whichever file holds the start', () => {
    const T = (s: number) => `2026-03-10T10:00:${String(s).padStart(2, '0')}Z`;
    const join = (s: number, out: string) => ev.completed(T(s), { delegation_id: 'o', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: out });
    const run = (s: number, id: string) => [
      ev.subStarted(T(s), { delegation_id: 'o', sub_run_id: id, parent_run_id: 'p', agent_id: 'a' }),
      ev.subCompleted(T(s + 1), { delegation_id: 'o', sub_run_id: id, agent_id: 'a', status: 'completed', output_preview: id }),
    ];
    const start = ev.started(T(10), { delegation_id: 'o', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] });
    // The start read from the archive (it repeats the live file's line), the earlier use's join from the live file.
    for (const files of [
      { 's-1.jsonl.gz': [start], 's-1.jsonl': [...run(1, 'a1'), join(3, 'a1'), ...run(11, 'a2'), join(13, 'a2')] },
      { 's-1.jsonl.gz': [...run(1, 'a1'), join(3, 'a1')], 's-1.jsonl': [start, ...run(11, 'a2'), join(13, 'a2')] },
    ]) {
      const ds = group(files);
      expect([...byKey(ds, 'o').runs.keys()], Object.keys(files).join()).toEqual(['a2']);
      expect([...byKey(ds, 'o#2').runs.keys()]).toEqual(['a1']);
    }
  });
  it('an id started twice, under other parent runs, still splits off an earlier use whose start was lost', () => {
    const old = {
      'old.jsonl': [
        ev.subStarted(`${OLD}0Z`, { delegation_id: 'd-x', sub_run_id: 'r-old', parent_run_id: 'p-0', agent_id: 'coder' }),
        ev.subCompleted(`${OLD}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-old', agent_id: 'coder', status: 'completed', output_preview: 'old' }),
        ev.completed(`${OLD}2Z`, { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'old' }),
      ],
    };
    // A first start (p-1) left open, then the id started again by p-2: the old events are neither's.
    const open = [
      ev.started('2026-03-01T10:00:00Z', { delegation_id: 'd-x', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted('2026-03-01T10:00:01Z', { delegation_id: 'd-x', sub_run_id: 'r-1', parent_run_id: 'p-1', agent_id: 'coder' }),
    ];
    const ds = group({ ...old, 'new.jsonl': [...open, ...later] });
    expect(ds.map((d) => d.key).sort()).toEqual(['d-x', 'd-x#2', 'd-x#3']);
    const first = byKey(ds, 'd-x');
    expect(first.started?.parentRunId).toBe('p-1');
    expect([...first.runs.keys()]).toEqual(['r-1']);
    expect(first.completions).toHaveLength(0);
    expect(byKey(ds, 'd-x#2').started?.parentRunId).toBe('p-2');
    const before = byKey(ds, 'd-x#3');
    expect(before.started).toBeNull();
    expect([...before.runs.keys()]).toEqual(['r-old']);
    expect(before.completions).toHaveLength(1);
    expect(before.files).toEqual(['old.jsonl']);
    // The same events as with the first start alone (the later start adds nothing to the old use).
    const alone = group({ ...old, 'new.jsonl': open });
    expect([...byKey(alone, 'd-x#2').runs.keys()]).toEqual(['r-old']);
    expect([...byKey(alone, 'd-x').runs.keys()]).toEqual(['r-1']);
  });
  it('an id started twice keeps every sub-run of a fan-out earlier use together, not only the first', () => {
    const old = {
      'old.jsonl': [
        ev.subStarted(`${OLD}0Z`, { delegation_id: 'd-x', sub_run_id: 'r-old1', parent_run_id: 'p-0', agent_id: 'coder' }),
        ev.subStarted(`${OLD}1Z`, { delegation_id: 'd-x', sub_run_id: 'r-old2', parent_run_id: 'p-0', agent_id: 'tester' }),
      ],
    };
    const open = [
      ev.started('2026-03-01T10:00:00Z', { delegation_id: 'd-x', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted('2026-03-01T10:00:01Z', { delegation_id: 'd-x', sub_run_id: 'r-1', parent_run_id: 'p-1', agent_id: 'coder' }),
    ];
    const ds = group({ ...old, 'new.jsonl': [...open, ...later] });
    expect([...byKey(ds, 'd-x').runs.keys()]).toEqual(['r-1']);
    expect([...byKey(ds, 'd-x#3').runs.keys()]).toEqual(['r-old1', 'r-old2']);
    // As with the first start alone.
    expect([...byKey(group({ ...old, 'new.jsonl': open }), 'd-x#2').runs.keys()]).toEqual(['r-old1', 'r-old2']);
  });
});
