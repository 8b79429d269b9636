/**
 * Grouping with delegation ids reused many times: pass 1 and the owner of each later event are
 * looked up in indexes (by parent run, start time, started sub-run) instead of scanning every
 * delegation of the id. These tests hold the indexed version to the straightforward one it
 * replaced (kept below as the reference), on fixed shapes and on random journals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareInstants } from '../../src/journal/time.js';
import type { DelegationCompletedEvent, DelegationEvent, DelegationStartedEvent, JournalEvent } from '../../src/journal/types.js';
import type { Delegation } from '../../src/model/delegation.js';
import { groupDelegations, joinMatchScore, sortEvents, startedJustAfterAbove } from '../../src/model/group.js';
import { eventsOf } from '../helpers/events.js';
import { ev, line } from '../helpers/journal.js';

// ---------------------------------------------------------------------------------------------
// The reference: pass 1 and pass 2 of groupDelegations as they were before the indexes, which
// scanned the id's whole list for each start and each event. Only what they decide is kept:
// each delegation's key, notes and events.

interface Assigned {
  key: string;
  notes: string[];
  events: JournalEvent[];
  started: { time: JournalEvent['time']; sessionId?: string | null; pattern?: string | null } | null;
  parentRunId: string | null;
}

function referenceAssign(allEvents: JournalEvent[]): Assigned[] {
  const events = sortEvents(allEvents);
  const byId = new Map<string, Assigned[]>();
  const out: Assigned[] = [];
  const lastCompletion = new Map<string, number>();
  const startAt = new Map<Assigned, number>();
  // Every sub-run start so far, and the completions: a run is open while it has no completion yet.
  const subStarts: { id: string; run: string; parent: string | null }[] = [];
  const completed = new Set<Assigned>(); // closed for delegation_completed
  const completedRuns = new Set<string>();
  events.forEach((e, at) => {
    if (e.type === 'delegation_completed') lastCompletion.set(e.delegationId, at);
    if (e.type === 'delegation_sub_run_started') {
      completedRuns.delete(`${e.delegationId}\u0000${e.subRunId}`);
      subStarts.push({ id: e.delegationId, run: e.subRunId, parent: e.parentRunId ?? null });
    }
    if (e.type === 'delegation_sub_run_completed') completedRuns.add(`${e.delegationId}\u0000${e.subRunId}`);
    if (e.type !== 'delegation_started') return;
    const list = byId.get(e.delegationId) ?? [];
    let same: Assigned | undefined;
    for (const d of list) if (d.parentRunId === e.parentRunId) same = d;
    const again = same !== undefined && (lastCompletion.get(e.delegationId) ?? -1) > startAt.get(same)!;
    const open = subStarts.some((r) => r.id === e.delegationId && (r.parent === null || e.parentRunId === null || r.parent === e.parentRunId) && !completedRuns.has(`${r.id}\u0000${r.run}`));
    const later = !!same?.started?.time && !!e.time && compareInstants(e.time, same.started.time) > 0;
    const resubmitted = same !== undefined && !again && later && !open;
    if (same && !again && !resubmitted) {
      same.notes.push(`delegation_started is journaled more than once for this id (${e.file}:${e.line}); the first one is used.`);
      same.events.push(e);
      return;
    }
    const d: Assigned = { key: list.length === 0 ? e.delegationId : `${e.delegationId}#${list.length + 1}`, notes: [], events: [], started: e, parentRunId: e.parentRunId ?? null };
    startAt.set(d, at);
    if (resubmitted) completed.add(same!); // ended by an Err: no later completion is its
    // Runs still open under this parent belong to an earlier use: closed (a first use has none).
    if (same) for (const r of subStarts) if (r.id === e.delegationId && r.parent === (e.parentRunId ?? null)) completedRuns.add(`${r.id}\u0000${r.run}`);
    if (list.length > 0) {
      const note = again
        ? `delegation id reused: ${list.length + 1} delegation_started events, the same parent run starting it again after it completed; each event was attached to the start before it.`
        : resubmitted
          ? `delegation id reused: ${list.length + 1} delegation_started events, the same parent run starting it again after it ended without a delegation_completed, none of its sub-runs still running; each event was attached to the start before it.`
          : `delegation id reused by ${list.length + 1} delegation_started events with different parent runs; sub-run events were attached by parent_run_id, each delegation_completed (it names no parent run) to the open one whose outputs its aggregate holds or whose runs its totals count.`;
      for (const other of [...list, d]) if (!other.notes.some((n) => n.startsWith('delegation id reused'))) other.notes.push(note);
    }
    list.push(d);
    byId.set(e.delegationId, list);
    out.push(d);
    d.events.push(e);
  });

  const parentOfRun = new Map<string, string>();
  for (const e of events)
    if (e.type === 'delegation_sub_run_started' && e.parentRunId && (byId.get(e.delegationId)?.length ?? 0) > 1 && !parentOfRun.has(e.subRunId)) parentOfRun.set(e.subRunId, e.parentRunId);
  const parentOf = (e: DelegationEvent): string | null => {
    if (e.type === 'delegation_sub_run_started') return e.parentRunId ?? parentOfRun.get(e.subRunId) ?? null;
    if (e.type === 'delegation_sub_run_completed') return parentOfRun.get(e.subRunId) ?? null;
    if (e.type === 'delegation_retry') return (e.originalRunId && parentOfRun.get(e.originalRunId)) || (e.retryRunId && parentOfRun.get(e.retryRunId)) || null;
    return null;
  };
  const startedBefore = (d: Assigned, e: DelegationEvent) => !!d.started?.time && !!e.time && compareInstants(d.started.time, e.time) <= 0;
  const latestStartedBefore = (list: readonly Assigned[], e: DelegationEvent): Assigned | null => {
    let best: Assigned | null = null;
    for (const d of list) {
      if (!d.started || !e.time || !d.started.time || compareInstants(d.started.time, e.time) > 0) continue;
      if (!best || compareInstants(d.started.time, best.started!.time!) >= 0) best = d;
    }
    return best;
  };
  const bestJoinMatch = (open: readonly Assigned[], e: DelegationCompletedEvent): Assigned | null => {
    const segments = new Set(typeof e.aggregatedOutputPreview === 'string' ? e.aggregatedOutputPreview.split('\n---\n').map((s) => s.trim()).filter(Boolean) : []);
    let best: Assigned | null = null;
    let bestScore = -1;
    for (const d of open) {
      const score = joinMatchScore(d.events, e, segments); // the score is shared: this reference is about the indexes
      if (score > bestScore || (score === bestScore && best && compareInstants(d.started!.time!, best.started!.time!) >= 0)) {
        best = d;
        bestScore = score;
      }
    }
    return best;
  };
  const pick = (list: Assigned[], e: DelegationEvent): Assigned => {
    let candidates = list;
    const parent = parentOf(e);
    if (parent !== null) {
      const same = list.filter((d) => d.parentRunId === parent);
      if (same.length) candidates = same;
    }
    if ((e.type === 'delegation_sub_run_completed' || e.type === 'delegation_sub_run_started') && candidates.length > 1) {
      const starts = (d: Assigned) => d.events.some((x) => x.type === 'delegation_sub_run_started' && x.subRunId === e.subRunId);
      const owner = candidates.find(starts);
      if (owner) return owner;
      // A completion before its run's first start goes where that start goes.
      const first = e.type === 'delegation_sub_run_completed' && !list.some(starts) ? events.find((x) => x.type === 'delegation_sub_run_started' && x.delegationId === e.delegationId && x.subRunId === e.subRunId) : undefined;
      if (first) return pick(list, first as DelegationEvent);
    }
    if (e.type === 'delegation_completed') {
      // A join closes a use started in its session with its pattern, while one is open.
      let open0 = candidates.filter((d) => !completed.has(d) && startedBefore(d, e));
      for (const same of [(d: Assigned) => d.started?.sessionId === e.sessionId, (d: Assigned) => d.started?.pattern === e.pattern]) {
        const kept = open0.filter(same);
        if (kept.length) open0 = kept;
      }
      const open = bestJoinMatch(open0, e);
      const owner = open ?? latestStartedBefore(candidates, e) ?? candidates[0];
      completed.add(owner);
      return owner;
    }
    const before = latestStartedBefore(candidates, e);
    if (e.type === 'delegation_sub_run_started' && e.time) {
      // The first start after e, when the journal has it above e within a second.
      let next: Assigned | null = null;
      for (const d of candidates) if (d.started?.time && compareInstants(d.started.time, e.time) > 0 && (!next || compareInstants(d.started.time, next.started!.time!) < 0)) next = d;
      if (next && startedJustAfterAbove(next.started as DelegationStartedEvent, e)) return next;
    }
    return before ?? candidates[0];
  };
  // An id started once and joined twice, a join on an earlier line of the start's file over a
  // second before it: everything up to that join is an earlier use whose start was lost.
  const earlyEnd = new Map<string, number>();
  for (const [id, list] of byId) {
    const start = list.length === 1 ? list[0].started : null;
    if (!start) continue;
    const joins = events.flatMap((e, at) => (e.type === 'delegation_completed' && e.delegationId === id ? [at] : []));
    const before = joins.filter((at) => {
      const j = events[at];
      const s = start as JournalEvent;
      const earlierInJournal = j.file === s.file ? j.line < s.line : j.file === `${s.file}.gz` || s.file === `${j.file}.gz`;
      return earlierInJournal && j.time !== null && s.time !== null && j.time.ms < s.time.ms - 1000;
    });
    if (joins.length >= 2 && before.length > 0 && before.length < joins.length) earlyEnd.set(id, before[before.length - 1]);
  }
  const earlier = new Map<string, Assigned>();
  const earlierRuns = new Set<string>();
  events.forEach((e, at) => {
    if (e.type === 'delegation_started' || e.type === 'sync_marker' || e.type === 'session_end') return;
    let list = byId.get(e.delegationId);
    if (!list) {
      list = [{ key: e.delegationId, notes: [], events: [], started: null, parentRunId: null }];
      byId.set(e.delegationId, list);
      out.push(list[0]);
    }
    if (list.length > 1) return pick(list, e).events.push(e);
    const end = earlyEnd.get(e.delegationId);
    const run = (r: string) => `${e.delegationId}\u0000${r}`;
    const opens = end !== undefined && at <= end && (e.type === 'delegation_sub_run_started' || e.type === 'delegation_completed');
    if (opens && !earlier.has(e.delegationId)) {
      const j = events[end];
      const note = `delegation id reused: a delegation_completed of ${e.delegationId} is journaled before its only delegation_started (${j.file}:${j.line}) and another after it: an earlier use whose delegation_started was not journaled; its events are shown as ${e.delegationId}#2, not attached to the later start.`;
      const use: Assigned = { key: `${e.delegationId}#2`, notes: [note], events: [], started: null, parentRunId: null };
      list[0].notes.push(note);
      earlier.set(e.delegationId, use);
      out.push(use);
    }
    if (opens && e.type === 'delegation_sub_run_started') earlierRuns.add(run(e.subRunId));
    const own =
      opens ||
      (e.type === 'delegation_sub_run_completed' && earlierRuns.has(run(e.subRunId))) ||
      (e.type === 'delegation_retry' && end !== undefined && at <= end && e.originalRunId !== null && earlierRuns.has(run(e.originalRunId)));
    (own ? earlier.get(e.delegationId)! : list[0]).events.push(e);
  });
  return out;
}

/** What the comparison looks at: key, notes, and each event by file:line (in time order). */
const where = (e: JournalEvent) => `${e.file}:${e.line}`;
const summary = (ds: readonly { key: string; notes: string[]; events: JournalEvent[] }[]) =>
  ds.map((d) => ({ key: d.key, notes: [...d.notes], events: sortEvents(d.events).map(where) }));

function expectSameGrouping(files: Record<string, string[]>): Delegation[] {
  const grouped = groupDelegations(eventsOf(files));
  expect(summary(grouped)).toEqual(summary(referenceAssign(eventsOf(files))));
  return grouped;
}

// ---------------------------------------------------------------------------------------------

const T = (s: number, ns = 0) => new Date(Date.UTC(2026, 2, 10, 10) + s * 1000).toISOString().replace(/\.\d+Z$/, `.${String(ns).padStart(9, '0')}+00:00`);

/** The audit's `reuseid-same`: one parent run starts id D `n` times in turn, each with its own run. */
function restartedSameParent(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = 4 * i;
    out.push(ev.started(T(s), { delegation_id: 'D', parent_run_id: 'P', pattern: 'fan_out', agent_ids: ['a'] }));
    out.push(ev.subStarted(T(s + 1), { delegation_id: 'D', sub_run_id: `r${i}`, parent_run_id: 'P', agent_id: 'a' }));
    out.push(ev.subCompleted(T(s + 2), { delegation_id: 'D', sub_run_id: `r${i}`, agent_id: 'a', status: 'completed', output_preview: `out ${i}` }));
    out.push(ev.completed(T(s + 3), { delegation_id: 'D', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `out ${i}` }));
  }
  return out;
}

/** The audit's `reuseid-parents-u`: id D started by `n` different parent runs, one after the other. */
function reusedByParents(n: number): string[] {
  return restartedSameParent(n).map((l, k) => l.replace('"parent_run_id":"P"', `"parent_run_id":"P${Math.floor(k / 4)}"`));
}

describe('groupDelegations with a delegation id reused many times', () => {
  it('one parent run restarting the id 400 times: D, D#2 … D#400, each with its own run and completion', () => {
    const ds = expectSameGrouping({ 's.jsonl': restartedSameParent(400) });
    expect(ds.map((d) => d.key)).toEqual(['D', ...Array.from({ length: 399 }, (_, i) => `D#${i + 2}`)]);
    ds.forEach((d, i) => {
      expect([...d.runs.keys()]).toEqual([`r${i}`]);
      expect(d.completed?.line).toBe(4 * i + 4);
      // One reuse note each: the first delegation's names 2 starts, every later one its own count.
      expect(d.notes).toEqual([`delegation id reused: ${Math.max(i + 1, 2)} delegation_started events, the same parent run starting it again after it completed; each event was attached to the start before it.`]);
    });
  });

  it('400 parent runs reusing the id: each delegation gets its own parent run’s events', () => {
    const ds = expectSameGrouping({ 's.jsonl': reusedByParents(400) });
    expect(ds.map((d) => d.parentRunId)).toEqual(Array.from({ length: 400 }, (_, i) => `P${i}`));
    ds.forEach((d, i) => {
      expect([...d.runs.keys()]).toEqual([`r${i}`]);
      expect(d.completed?.line).toBe(4 * i + 4);
    });
  });

  it('overlapping starts of one parent run: completions go to the start whose sub-run they close', () => {
    // Three starts of D by P before any completion; sub-runs completed out of order.
    const lines = [
      ev.started(T(0), { delegation_id: 'D', parent_run_id: 'P', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(1), { delegation_id: 'D', sub_run_id: 'x', parent_run_id: 'P', agent_id: 'a' }),
      ev.subCompleted(T(2), { delegation_id: 'D', sub_run_id: 'x', agent_id: 'a', status: 'completed', output_preview: 'x out' }),
      ev.completed(T(3), { delegation_id: 'D', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'x out' }),
      ev.started(T(4), { delegation_id: 'D', parent_run_id: 'P', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(5), { delegation_id: 'D', sub_run_id: 'y', parent_run_id: 'P', agent_id: 'a' }),
      ev.started(T(5), { delegation_id: 'D', parent_run_id: 'Q', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(6), { delegation_id: 'D', sub_run_id: 'z', parent_run_id: 'Q', agent_id: 'a' }),
      ev.subCompleted(T(7), { delegation_id: 'D', sub_run_id: 'y', agent_id: 'a', status: 'completed', output_preview: 'y out' }),
      ev.subCompleted(T(8), { delegation_id: 'D', sub_run_id: 'z', agent_id: 'a', status: 'completed', output_preview: 'z out' }),
      ev.completed(T(9), { delegation_id: 'D', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'z out' }),
      ev.completed(T(9), { delegation_id: 'D', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'y out' }),
    ];
    const ds = expectSameGrouping({ 's.jsonl': lines });
    expect(ds.map((d) => [d.key, [...d.runs.keys()], d.completed?.line])).toEqual([
      ['D', ['x'], 4],
      ['D#2', ['y'], 12],
      ['D#3', ['z'], 11],
    ]);
  });

  it('a second delegation_completed goes to the start still open, not to the one whose output it names', () => {
    const join = (at: number, out: string) => ev.completed(T(at), { delegation_id: 'D', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: out });
    const lines = [
      ev.started(T(0), { delegation_id: 'D', parent_run_id: 'P', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(1), { delegation_id: 'D', sub_run_id: 'x', parent_run_id: 'P', agent_id: 'a' }),
      ev.subCompleted(T(2), { delegation_id: 'D', sub_run_id: 'x', agent_id: 'a', status: 'completed', output_preview: 'x out' }),
      ev.started(T(3), { delegation_id: 'D', parent_run_id: 'Q', pattern: 'fan_out', agent_ids: ['a'] }),
      join(4, 'x out'),
      join(5, 'x out'),
    ];
    const ds = expectSameGrouping({ 's.jsonl': lines });
    expect(ds.map((d) => [d.key, d.completed?.line])).toEqual([
      ['D', 5],
      ['D#2', 6],
    ]);
  });

  it('a restart whose first sub-run is written after it but stamped just before it (a lagging clock) keeps that run', () => {
    // hreg31 repro 1: by time alone r1 went to the use three hours older, errors on both uses.
    // The sub-run is stamped `leadMs` before its delegation's start (negative: after it).
    const use = (s: number, run: string, leadMs: number) => [
      ev.started(T(s), { delegation_id: 'D', parent_run_id: 'P', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(s - Math.ceil(leadMs / 1000), (Math.ceil(leadMs / 1000) * 1000 - leadMs) * 1e6), { delegation_id: 'D', sub_run_id: run, parent_run_id: 'P', agent_id: 'a' }),
      ev.subCompleted(T(s + 5), { delegation_id: 'D', sub_run_id: run, agent_id: 'a', status: 'completed', output_preview: `${run} out` }),
      ev.completed(T(s + 6), { delegation_id: 'D', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `${run} out` }),
    ];
    const runsOf = (ds: Delegation[]) => ds.map((d) => [d.key, [...d.runs.keys()]]);
    // 1 ms early, below its start in the same journal: the restart's.
    expect(runsOf(expectSameGrouping({ 'old.jsonl': use(0, 'r0', -1000), 'new.jsonl': use(10_800, 'r1', 1) }))).toEqual([['D', ['r0']], ['D#2', ['r1']]]);
    // Look-alikes keep "the start before it": 1.001 s early, or 1 ms early but in another journal.
    expect(runsOf(expectSameGrouping({ 'old.jsonl': use(0, 'r0', -1000), 'new.jsonl': use(10_800, 'r1', 1001) }))).toEqual([['D', ['r0', 'r1']], ['D#2', []]]);
    const [start, run, ...rest] = use(10_800, 'r1', 1);
    expect(runsOf(expectSameGrouping({ 'old.jsonl': use(0, 'r0', -1000), 'new.jsonl': [start, ...rest], 'other.jsonl': [run] }))).toEqual([['D', ['r0', 'r1']], ['D#2', []]]);
  });

  it('matches the reference on random journals reusing a few ids (ties, untimed lines, retries, several files)', () => {
    const ids = ['D', 'E'];
    const parents = ['P', 'Q', 'R'];
    const runs = ['r1', 'r2', 'r3', 'r4'];
    const lineArb = fc.oneof(
      { weight: 3, arbitrary: fc.record({ k: fc.constant('start' as const), id: fc.constantFrom(...ids), parent: fc.constantFrom(...parents) }) },
      { weight: 4, arbitrary: fc.record({ k: fc.constant('sub' as const), id: fc.constantFrom(...ids), parent: fc.constantFrom(...parents), run: fc.constantFrom(...runs) }) },
      { weight: 4, arbitrary: fc.record({ k: fc.constant('done' as const), id: fc.constantFrom(...ids), run: fc.constantFrom(...runs), out: fc.constantFrom('o1', 'o2', null) }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant('retry' as const), id: fc.constantFrom(...ids), from: fc.constantFrom(...runs), to: fc.constantFrom(...runs) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant('join' as const), id: fc.constantFrom(...ids), out: fc.constantFrom('o1', 'o2', 'o1\n---\no2', null) }) },
    );
    // Seconds repeat (ties between starts) and some timestamps do not parse.
    const timed = fc.record({ at: fc.option(fc.integer({ min: 0, max: 12 }), { freq: 8 }), spec: lineArb });
    type Spec = typeof lineArb extends fc.Arbitrary<infer U> ? U : never;
    const render = ({ at, spec }: { at: number | null; spec: Spec }): string => {
      const ts = at === null ? 'not a time' : T(at);
      switch (spec.k) {
        case 'start':
          return ev.started(ts, { delegation_id: spec.id, parent_run_id: spec.parent, pattern: 'fan_out', agent_ids: ['a'] });
        case 'sub':
          return ev.subStarted(ts, { delegation_id: spec.id, sub_run_id: spec.run, parent_run_id: spec.parent, agent_id: 'a' });
        case 'done':
          return ev.subCompleted(ts, { delegation_id: spec.id, sub_run_id: spec.run, agent_id: 'a', status: 'completed', output_preview: spec.out });
        case 'retry':
          return ev.retry(ts, { delegation_id: spec.id, original_run_id: spec.from, retry_run_id: spec.to, agent_id: 'a' });
        case 'join':
          return line('delegation_completed', ts, { delegation_id: spec.id, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: spec.out });
      }
    };
    fc.assert(
      fc.property(fc.array(fc.array(timed, { maxLength: 30 }), { minLength: 1, maxLength: 3 }), (files) => {
        const journal: Record<string, string[]> = {};
        files.forEach((specs, i) => (journal[`f${i}.jsonl`] = specs.map(render)));
        expectSameGrouping(journal);
      }),
      { seed: 20251103, numRuns: 600 },
    );
  });
});
