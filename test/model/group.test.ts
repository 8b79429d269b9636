import { describe, expect, it } from 'vitest';
import { finalStatus } from '../../src/model/delegation.js';
import { delegationTree, sortEvents } from '../../src/model/group.js';
import { byKey, eventsOf, group } from '../helpers/events.js';
import { ev, line } from '../helpers/journal.js';

/** Seconds after 09:15:00, with optional nanoseconds, in the engine's 9-digit shape. */
const T = (s: number, ns = 0) => `2025-11-03T09:${String(15 + Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.${String(ns).padStart(9, '0')}+00:00`;

const fanOut = (ts: string, id: string, parent: string, agents: string[]) => ev.started(ts, { delegation_id: id, parent_run_id: parent, pattern: 'fan_out', agent_ids: agents });
const sub = (ts: string, id: string, run: string, parent: string, agent: string, retryOf: string | null = null, depth = 1) =>
  ev.subStarted(ts, { delegation_id: id, sub_run_id: run, parent_run_id: parent, agent_id: agent, retry_of: retryOf, depth });
const done = (ts: string, id: string, run: string, agent: string, status = 'completed', extra: { error?: string | null; output_preview?: string | null } = {}) =>
  ev.subCompleted(ts, { delegation_id: id, sub_run_id: run, agent_id: agent, status, ...extra });
const retry = (ts: string, id: string, from: string, to: string, agent: string, attempt = 2) =>
  ev.retry(ts, { delegation_id: id, original_run_id: from, retry_run_id: to, agent_id: agent, attempt });
const fin = (ts: string, id: string, total: number, ok: number, failed: number, status = 'completed') =>
  ev.completed(ts, { delegation_id: id, pattern: 'fan_out', total_sub_runs: total, succeeded: ok, failed, aggregated_status: status });

const runIds = (attempts: { runId: string }[]) => attempts.map((a) => a.runId);

describe('sortEvents', () => {
  it('orders by parsed time, then file index, then line', () => {
    const events = eventsOf({
      'a.jsonl': [sub(T(5), 'd', 'r-2', 'p', 'x'), fanOut(T(1), 'd', 'p', ['x']), sub(T(3, 1), 'd', 'r-1', 'p', 'x')],
      'b.jsonl': [done(T(3, 1), 'd', 'r-9', 'x'), done(T(3), 'd', 'r-8', 'x')],
    });
    expect(sortEvents(events).map((e) => `${e.file}:${e.line}`)).toEqual(['a.jsonl:2', 'b.jsonl:2', 'a.jsonl:3', 'b.jsonl:1', 'a.jsonl:1']);
  });

  it('keeps nanosecond order that milliseconds cannot see, across Z and +00:00', () => {
    const events = eventsOf({ 'a.jsonl': [sub('2025-11-03T09:15:00.000000900+00:00', 'd', 'late', 'p', 'x'), sub('2025-11-03T09:15:00.0000001Z', 'd', 'early', 'p', 'x')] });
    expect(sortEvents(events).map((e) => e.type === 'delegation_sub_run_started' && e.subRunId)).toEqual(['early', 'late']);
  });

  it('an unparseable ts stays where it is in its file, after the event before it', () => {
    const events = eventsOf({ 'a.jsonl': [fanOut(T(10), 'd', 'p', ['x']), sub('garbled', 'd', 'r-1', 'p', 'x'), sub(T(11), 'd', 'r-2', 'p', 'x')], 'b.jsonl': [sub(T(10, 5), 'd', 'r-3', 'p', 'x')] });
    expect(sortEvents(events).map((e) => `${e.file}:${e.line}`)).toEqual(['a.jsonl:1', 'a.jsonl:2', 'b.jsonl:1', 'a.jsonl:3']);
  });
});

describe('groupDelegations', () => {
  it('separates delegations interleaved in one file by delegation_id, not by adjacency', () => {
    const ds = group({
      's.jsonl': [
        fanOut(T(1), 'd-a', 'p-a', ['x', 'y']),
        fanOut(T(2), 'd-b', 'p-b', ['z']),
        sub(T(3), 'd-a', 'a-1', 'p-a', 'x'),
        sub(T(4), 'd-b', 'b-1', 'p-b', 'z'),
        sub(T(5), 'd-a', 'a-2', 'p-a', 'y'),
        done(T(6), 'd-b', 'b-1', 'z'),
        done(T(7), 'd-a', 'a-2', 'y'),
        fin(T(8), 'd-b', 1, 1, 0),
        done(T(9), 'd-a', 'a-1', 'x', 'failed', { error: 'boom' }),
        fin(T(10), 'd-a', 2, 1, 1, 'partial'),
      ],
    });
    expect(ds.map((d) => d.key).sort()).toEqual(['d-a', 'd-b']);
    const a = byKey(ds, 'd-a');
    expect(a.children.map((c) => [c.key, c.agentId, finalStatus(c.final)])).toEqual([
      ['a-1', 'x', 'failed'],
      ['a-2', 'y', 'completed'],
    ]);
    expect(a.events.map((e) => e.line)).toEqual([1, 3, 5, 7, 9, 10]);
    expect(a.completed?.aggregatedStatus).toBe('partial');
    expect(byKey(ds, 'd-b').events.map((e) => e.line)).toEqual([2, 4, 6, 8]);
  });

  it('merges one delegation spread over several files (Gen A delegation.jsonl + the tracker session)', () => {
    const ds = group({
      'delegation.jsonl': [line('delegation_started', T(1), { agent_count: 1, agent_ids: ['x'], delegation_id: 'd', parent_run_id: 'p', pattern: 'fan_out' }, 'delegation'), fin(T(9), 'd', 1, 1, 0).replace(/"session_id":"[^"]+"/, '"session_id":"delegation"')],
      'sess.jsonl': [sub(T(2), 'd', 'r-1', 'p', 'x'), done(T(8), 'd', 'r-1', 'x')],
    });
    expect(ds).toHaveLength(1);
    const [d] = ds;
    expect(d.files).toEqual(['delegation.jsonl', 'sess.jsonl']);
    expect(d.sessions).toEqual(['delegation', '11111111-2222-4333-8444-555555555555']);
    expect(d.events.map((e) => `${e.file}:${e.line}`)).toEqual(['delegation.jsonl:1', 'sess.jsonl:1', 'sess.jsonl:2', 'delegation.jsonl:2']);
    expect(d.started?.file).toBe('delegation.jsonl');
    expect(d.children).toHaveLength(1);
  });

  it('folds a Gen B retry (retry, verification_failed, retry start with retry_of) into the original child', () => {
    const [d] = group({
      's.jsonl': [
        fanOut(T(1), 'd', 'p', ['coder', 'reviewer']),
        sub(T(2), 'd', 'c-1', 'p', 'coder'),
        sub(T(3), 'd', 'v-1', 'p', 'reviewer'),
        retry(T(10), 'd', 'c-1', 'c-2', 'coder'),
        done(T(11), 'd', 'c-1', 'coder', 'verification_failed', { error: 'output too short' }),
        sub(T(12), 'd', 'c-2', 'p', 'coder', 'c-1'),
        done(T(20), 'd', 'c-2', 'coder'),
        done(T(21), 'd', 'v-1', 'reviewer'),
        fin(T(22), 'd', 2, 2, 0),
      ],
    });
    expect(d.children.map((c) => c.key)).toEqual(['c-1', 'v-1']);
    const coder = d.children[0];
    expect(runIds(coder.attempts)).toEqual(['c-1', 'c-2']);
    expect(coder.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(coder.final.runId).toBe('c-2');
    expect(finalStatus(coder.attempts[0])).toBe('verification_failed');
    expect(coder.final.retryEvent?.line).toBe(4);
    expect(d.retries).toHaveLength(1);
  });

  it('folds a Gen A retry (completed, then retry and a second verification_failed completion) the same way', () => {
    const [d] = group({
      's.jsonl': [
        fanOut(T(1), 'd', 'p', ['coder']),
        sub(T(2), 'd', 'c-1', 'p', 'coder'),
        done(T(9), 'd', 'c-1', 'coder', 'completed', { output_preview: 'done' }),
        retry(T(10), 'd', 'c-1', 'c-2', 'coder'),
        done(T(11), 'd', 'c-1', 'coder', 'verification_failed', { error: 'output too short' }),
        sub(T(12), 'd', 'c-2', 'p', 'coder', 'c-1'),
        done(T(20), 'd', 'c-2', 'coder'),
        fin(T(22), 'd', 1, 1, 0),
      ],
    });
    expect(d.children).toHaveLength(1);
    const [coder] = d.children;
    expect(runIds(coder.attempts)).toEqual(['c-1', 'c-2']);
    expect(coder.attempts[0].completions.map((c) => c.status)).toEqual(['completed', 'verification_failed']);
    expect(finalStatus(coder.attempts[0])).toBe('verification_failed');
    expect(finalStatus(coder.final)).toBe('completed');
  });

  it('links a retry by delegation_retry alone, or by retry_of alone', () => {
    const [d] = group({
      's.jsonl': [
        fanOut(T(1), 'd', 'p', ['a', 'b']),
        sub(T(2), 'd', 'a-1', 'p', 'a'),
        sub(T(3), 'd', 'b-1', 'p', 'b'),
        retry(T(10), 'd', 'a-1', 'a-2', 'a'),
        sub(T(11), 'd', 'a-2', 'p', 'a'), // no retry_of on the start
        sub(T(12), 'd', 'b-2', 'p', 'b', 'b-1'), // no delegation_retry event
      ],
    });
    expect(d.children.map((c) => runIds(c.attempts))).toEqual([
      ['a-1', 'a-2'],
      ['b-1', 'b-2'],
    ]);
  });

  it('folds a chain of three attempts, whatever order the lines are in', () => {
    const lines = [
      fanOut(T(1), 'd', 'p', ['coder']),
      sub(T(2), 'd', 'c-1', 'p', 'coder'),
      retry(T(10), 'd', 'c-1', 'c-2', 'coder', 2),
      done(T(11), 'd', 'c-1', 'coder', 'verification_failed'),
      sub(T(12), 'd', 'c-2', 'p', 'coder', 'c-1'),
      retry(T(20), 'd', 'c-2', 'c-3', 'coder', 3),
      done(T(21), 'd', 'c-2', 'coder', 'verification_failed'),
      sub(T(22), 'd', 'c-3', 'p', 'coder', 'c-2'),
      done(T(30), 'd', 'c-3', 'coder'),
    ];
    for (const order of [lines, [...lines].reverse()]) {
      const [d] = group({ 's.jsonl': order });
      expect(d.children).toHaveLength(1);
      expect(runIds(d.children[0].attempts)).toEqual(['c-1', 'c-2', 'c-3']);
      expect(d.children[0].attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    }
  });

  it('keeps a retry of an unknown run as its own child, and survives a retry_of cycle', () => {
    const [d] = group({
      's.jsonl': [fanOut(T(1), 'd', 'p', ['a']), sub(T(2), 'd', 'x-2', 'p', 'a', 'ghost'), sub(T(3), 'd', 'y-1', 'p', 'a', 'y-2'), sub(T(4), 'd', 'y-2', 'p', 'a', 'y-1')],
    });
    const runs = d.children.flatMap((c) => runIds(c.attempts)).sort();
    expect(runs).toEqual(['x-2', 'y-1', 'y-2']);
    expect(d.children.find((c) => c.key === 'x-2')!.final.retryOf).toBe('ghost');
  });

  it('splits a delegation id reused with a different parent run into two delegations, with a Limits note', () => {
    const ds = group({
      'old.jsonl': [fanOut(T(1), 'dup', 'p-old', ['x']), sub(T(2), 'dup', 'o-1', 'p-old', 'x'), done(T(3), 'dup', 'o-1', 'x'), fin(T(4), 'dup', 1, 1, 0)],
      'new.jsonl': [fanOut(T(100), 'dup', 'p-new', ['x']), sub(T(101), 'dup', 'n-1', 'p-new', 'x'), done(T(102), 'dup', 'n-1', 'x', 'failed'), fin(T(103), 'dup', 1, 0, 1, 'failed')],
    });
    expect(ds.map((d) => d.key)).toEqual(['dup', 'dup#2']);
    expect(ds.map((d) => d.id)).toEqual(['dup', 'dup']);
    const [first, second] = ds;
    expect([...first.runs.keys()]).toEqual(['o-1']);
    expect([...second.runs.keys()]).toEqual(['n-1']);
    expect(first.completed?.line).toBe(4);
    expect(second.completed?.aggregatedStatus).toBe('failed');
    for (const d of ds) expect(d.notes.filter((n) => n.startsWith('delegation id reused'))).toHaveLength(1);
  });

  it('makes a start of the same id by the same parent run after its completion a new delegation', () => {
    const ds = group({
      's.jsonl': [
        fanOut(T(1), 'same', 'p', ['x']), sub(T(2), 'same', 'a-1', 'p', 'x'), done(T(3), 'same', 'a-1', 'x', 'failed'), fin(T(4), 'same', 1, 0, 1, 'failed'),
        fanOut(T(10), 'same', 'p', ['x']), sub(T(11), 'same', 'b-1', 'p', 'x'), done(T(12), 'same', 'b-1', 'x'), fin(T(13), 'same', 1, 1, 0),
      ],
    });
    expect(ds.map((d) => d.key)).toEqual(['same', 'same#2']);
    expect(ds.map((d) => [...d.runs.keys()])).toEqual([['a-1'], ['b-1']]);
    expect(ds.map((d) => d.completions.map((c) => c.line))).toEqual([[4], [8]]);
    for (const d of ds) expect(d.notes.filter((n) => n.startsWith('delegation id reused: 2'))).toHaveLength(1);
  });

  it('attaches a retry of a reused id by the runs it names, and gives each start one completion', () => {
    // pB starts between pA's start and pA's retry: the retry and its run are still pA's.
    const ds = group({
      's.jsonl': [
        fanOut(T(0), 'r', 'pA', ['a']), sub(T(1), 'r', 'ra1', 'pA', 'a'),
        fanOut(T(2), 'r', 'pB', ['b']), sub(T(3), 'r', 'rb1', 'pB', 'b'),
        retry(T(4), 'r', 'ra1', 'ra2', 'a'), done(T(4, 100), 'r', 'ra1', 'a', 'verification_failed'), sub(T(4, 200), 'r', 'ra2', 'pA', 'a', 'ra1'),
        done(T(5), 'r', 'rb1', 'b'), fin(T(6), 'r', 1, 1, 0),
        done(T(7), 'r', 'ra2', 'a'), fin(T(8), 'r', 1, 1, 0),
      ],
    });
    const [a, b] = ds;
    expect(a.parentRunId).toBe('pA');
    expect(a.retries.map((r) => r.line)).toEqual([5]);
    expect(a.children.map((c) => runIds(c.attempts))).toEqual([['ra1', 'ra2']]);
    expect(b.retries).toEqual([]);
    expect(b.children.map((c) => runIds(c.attempts))).toEqual([['rb1']]);
    expect(b.completions.map((c) => c.line)).toEqual([9]);
    expect(a.completions.map((c) => c.line)).toEqual([11]);
  });

  it('gives a delegation_completed of a reused id to the open delegation whose output its aggregate holds', () => {
    // r41 and r42 run at once under one id; r41's join comes first and holds r41's output.
    const agg = (ts: string, text: string) => ev.completed(ts, { delegation_id: 'd', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: text });
    const [a, b] = group({
      's.jsonl': [
        fanOut(T(0), 'd', 'r41', ['us']), fanOut(T(1), 'd', 'r42', ['us']),
        sub(T(2), 'd', 'run-a', 'r41', 'us'), sub(T(2, 100), 'd', 'run-b', 'r42', 'us'),
        done(T(8), 'd', 'run-b', 'us', 'completed', { output_preview: 'B out' }), done(T(9), 'd', 'run-a', 'us', 'completed', { output_preview: 'A out' }),
        agg(T(9, 500), 'A out'), agg(T(9, 600), 'B out'),
      ],
    });
    expect([a.parentRunId, a.completed?.aggregatedOutputPreview]).toEqual(['r41', 'A out']);
    expect([b.parentRunId, b.completed?.aggregatedOutputPreview]).toEqual(['r42', 'B out']);
  });

  it('keeps the first of two identical starts and notes the repeat', () => {
    const [d, ...rest] = group({ 's.jsonl': [fanOut(T(1), 'd', 'p', ['x']), fanOut(T(1), 'd', 'p', ['x'])] });
    expect(rest).toHaveLength(0);
    expect(d.started?.line).toBe(1);
    expect(d.notes.join(' ')).toMatch(/more than once.*s\.jsonl:2/);
  });

  it('a parent run starting the id again after it ended without a completion (Err), its sub-runs settled: a new delegation, id#2', () => {
    const [first, second, ...rest] = group({
      's.jsonl': [
        fanOut(T(1), 'd', 'p', ['x']),
        sub(T(2), 'd', 'r-1', 'p', 'x'),
        done(T(3), 'd', 'r-1', 'x', 'cancelled'),
        fanOut(T(10), 'd', 'p', ['x']),
        sub(T(11), 'd', 'r-2', 'p', 'x'),
        done(T(12), 'd', 'r-2', 'x'),
        fin(T(13), 'd', 1, 1, 0),
      ],
    });
    expect(rest).toHaveLength(0);
    expect([first.key, [...first.runs.keys()], first.completed]).toEqual(['d', ['r-1'], null]);
    expect([second.key, [...second.runs.keys()], second.completed?.line]).toEqual(['d#2', ['r-2'], 7]);
    expect(second.notes.join(' ')).toMatch(/ended without a delegation_completed, none of its sub-runs still running/);
  });

  it('after such a restart, the later use owns its delegation_completed, even with a paused run', () => {
    const [first, second] = group({
      's.jsonl': [
        fanOut(T(1), 'y', 'p', ['a', 'b']),
        sub(T(2), 'y', 'u1a', 'p', 'a'),
        done(T(3), 'y', 'u1a', 'a', 'failed', { error: 'boom' }),
        fanOut(T(10), 'y', 'p', ['a', 'b']),
        sub(T(11), 'y', 'u2a', 'p', 'a'),
        done(T(12), 'y', 'u2a', 'a', 'failed', { error: 'x' }),
        sub(T(13), 'y', 'u2b', 'p', 'b'), // paused: Gen C journals no completion for it
        fin(T(15), 'y', 2, 0, 2, 'unfinished'),
      ],
    });
    expect([first.key, first.completed]).toEqual(['y', null]);
    expect([second.key, second.completed?.line]).toEqual(['y#2', 8]);
  });

  it('a run an earlier, completed use left paused does not keep a later use from being restarted', () => {
    const ds = group({
      's.jsonl': [
        fanOut(T(1), 'x', 'p', ['a', 'b']),
        sub(T(2), 'x', 'r1a', 'p', 'a'),
        sub(T(2, 5), 'x', 'r1b', 'p', 'b'), // paused, never completed
        done(T(3), 'x', 'r1a', 'a', 'completed', { output_preview: 'A1' }),
        fin(T(4), 'x', 2, 1, 1, 'unfinished'),
        fanOut(T(10), 'x', 'p', ['a']),
        sub(T(11), 'x', 'r2a', 'p', 'a'),
        done(T(12), 'x', 'r2a', 'a', 'failed', { error: 'boom' }), // then an Err: no completion
        fanOut(T(20), 'x', 'p', ['a']),
        sub(T(21), 'x', 'r3a', 'p', 'a'),
        done(T(22), 'x', 'r3a', 'a', 'completed', { output_preview: 'A3' }),
        fin(T(23), 'x', 1, 1, 0),
      ],
    });
    expect(ds.map((d) => [d.key, [...d.runs.keys()]])).toEqual([
      ['x', ['r1a', 'r1b']],
      ['x#2', ['r2a']],
      ['x#3', ['r3a']],
    ]);
  });

  it('a first use whose sub-run start sorts just before it (clock skew) keeps that run open: a repeated start is folded', () => {
    const ds = group({
      's.jsonl': [sub(T(0, 500_000_000), 'd', 'r1', 'p', 'x'), fanOut(T(1), 'd', 'p', ['x']), fanOut(T(5), 'd', 'p', ['x']), done(T(6), 'd', 'r1', 'x'), fin(T(7), 'd', 1, 1, 0)],
    });
    expect(ds.map((d) => [d.key, [...d.runs.keys()]])).toEqual([['d', ['r1']]]);
  });

  it('a second start of the same parent run while a sub-run of the first is still running is folded into the first', () => {
    const [d, ...rest] = group({
      's.jsonl': [fanOut(T(1), 'd', 'p', ['x', 'y']), sub(T(2), 'd', 'r-1', 'p', 'x'), fanOut(T(5), 'd', 'p', ['x', 'y']), sub(T(6), 'd', 'r-2', 'p', 'y'), done(T(7), 'd', 'r-1', 'x'), done(T(8), 'd', 'r-2', 'y'), fin(T(9), 'd', 2, 2, 0)],
    });
    expect(rest).toHaveLength(0);
    expect([...d.runs.keys()]).toEqual(['r-1', 'r-2']);
    expect(d.notes.join(' ')).toMatch(/more than once.*s\.jsonl:3/);
  });

  it('gives events without a delegation_started a delegation with started null (orphans)', () => {
    const [d] = group({ 's.jsonl': [sub(T(2), 'lost', 'r-1', 'p', 'x'), done(T(3), 'lost', 'r-1', 'x')] });
    expect(d).toMatchObject({ id: 'lost', key: 'lost', started: null, pattern: null, parentRunId: null });
    expect(d.children.map((c) => c.key)).toEqual(['r-1']);
  });

  it('takes the pattern from delegation_completed when the start is missing', () => {
    const [d] = group({ 's.jsonl': [fin(T(3), 'lost', 0, 0, 0, 'failed')] });
    expect(d.pattern).toBe('fan_out');
  });

  it('attaches sync_marker pause / cancel markers to the run they name', () => {
    const [d] = group({ 's.jsonl': [fanOut(T(1), 'd', 'p', ['x', 'y']), sub(T(2), 'd', 'r-1', 'p', 'x'), sub(T(2, 5), 'd', 'r-2', 'p', 'y'), ev.marker(T(5), 'pause', 'r-1'), ev.marker(T(6), 'cancel_requested', 'r-9')] });
    expect(d.runs.get('r-1')!.markers.map((m) => m.action)).toEqual(['pause']);
    expect(d.runs.get('r-2')!.markers).toEqual([]);
  });

  it('builds the nested tree: a delegation whose parent_run_id is another one\'s sub-run is its child', () => {
    const ds = group({
      's.jsonl': [
        fanOut(T(1), 'outer', 'p', ['planner', 'writer']),
        sub(T(2), 'outer', 'o-1', 'p', 'planner'),
        sub(T(3), 'outer', 'o-2', 'p', 'writer'),
        fanOut(T(4), 'inner', 'o-1', ['coder']),
        sub(T(5), 'inner', 'i-1', 'o-1', 'coder', null, 2),
        fanOut(T(6), 'innermost', 'i-1', ['helper']),
        sub(T(7), 'innermost', 'm-1', 'i-1', 'helper', null, 3),
        done(T(8), 'outer', 'o-2', 'writer'),
        done(T(9), 'innermost', 'm-1', 'helper'),
        done(T(10), 'inner', 'i-1', 'coder'),
        done(T(11), 'outer', 'o-1', 'planner'),
      ],
    });
    const outer = byKey(ds, 'outer');
    const inner = byKey(ds, 'inner');
    const innermost = byKey(ds, 'innermost');
    expect(outer.parent).toBeNull();
    expect(inner.parent).toEqual({ delegation: outer, runId: 'o-1' });
    expect(innermost.parent).toEqual({ delegation: inner, runId: 'i-1' });
    expect(outer.runs.get('o-1')!.nested).toEqual([inner]);
    expect(outer.runs.get('o-2')!.nested).toEqual([]);
    expect(delegationTree(outer).map((d) => d.key)).toEqual(['outer', 'inner', 'innermost']);
    expect(delegationTree(inner).map((d) => d.key)).toEqual(['inner', 'innermost']);
    // The inner delegation's runs stay its own: nesting does not merge children.
    expect(outer.children.map((c) => c.key)).toEqual(['o-1', 'o-2']);
  });

  it('never links a delegation under itself or builds a cycle from inconsistent ids', () => {
    const ds = group({
      's.jsonl': [fanOut(T(1), 'a', 'b-1', ['x']), sub(T(2), 'a', 'a-1', 'b-1', 'x'), fanOut(T(3), 'b', 'a-1', ['y']), sub(T(4), 'b', 'b-1', 'a-1', 'y'), fanOut(T(5), 'self', 's-1', ['z']), sub(T(6), 'self', 's-1', 's-1', 'z')],
    });
    const a = byKey(ds, 'a');
    const b = byKey(ds, 'b');
    expect(a.parent === null || b.parent === null).toBe(true);
    expect(byKey(ds, 'self').parent).toBeNull();
    for (const d of ds) expect(delegationTree(d).length).toBeLessThanOrEqual(2);
  });
});

describe('instanceKey (follow mode tells uses of an id apart by it)', () => {
  it('is the same for a start written another way at the same instant, and differs for uses started in the same second', async () => {
    const { instanceKey } = await import('../../src/model/delegation.js');
    const [a] = group({ 's.jsonl': [fanOut('2025-11-03T09:15:00.100000000+00:00', 'd', 'p', ['x'])] });
    const [b] = group({ 's.jsonl': [fanOut('2025-11-03T09:15:00.1Z', 'd', 'p', ['x'])] });
    expect(instanceKey(b)).toBe(instanceKey(a));
    // Timestamps in whole seconds: started, completed and started again within one second.
    const ds = group({ 's.jsonl': [fanOut('2025-11-03T09:15:00Z', 'd', 'p', ['x']), fin('2025-11-03T09:15:00Z', 'd', 0, 0, 0), fanOut('2025-11-03T09:15:00Z', 'd', 'p', ['x'])] });
    expect(ds.map((d) => d.key)).toEqual(['d', 'd#2']);
    expect(new Set(ds.map(instanceKey)).size).toBe(2);
  });
});

describe('sortEvents: a journal split into its archive and live file', () => {
  const at = (id: string) => sub(T(5), 'd', id, 'p', 'x');
  it("puts the archive's lines first at the same instant when the two files are listed side by side", () => {
    const events = eventsOf({ 's.jsonl': [at('live')], 's.jsonl.gz': [at('archived')], 't.jsonl': [at('other')] });
    expect(sortEvents(events).map((e) => e.type === 'delegation_sub_run_started' && e.subRunId)).toEqual(['archived', 'live', 'other']);
  });

  it('does so too when the archive was listed later (follow mode: archived while followed)', () => {
    const events = eventsOf({ 's.jsonl': [at('live')], 't.jsonl': [at('other')], 's.jsonl.gz': [at('archived')] });
    expect(sortEvents(events).map((e) => e.type === 'delegation_sub_run_started' && e.subRunId)).toEqual(['archived', 'live', 'other']);
  });

  it('leaves an archive without its live file in its own place', () => {
    const events = eventsOf({ 'r.jsonl': [at('first')], 's.jsonl.gz': [at('archived')], 't.jsonl': [at('other')] });
    expect(sortEvents(events).map((e) => e.type === 'delegation_sub_run_started' && e.subRunId)).toEqual(['first', 'archived', 'other']);
  });
});
