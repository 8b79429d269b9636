import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin, runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  s?: string;
  id?: number;
  args?: Record<string, unknown>;
}

async function trace(fixture: string): Promise<{ traceEvents: TraceEvent[]; displayTimeUnit: string; otherData: Record<string, string> }> {
  const r = await runBin(['--sessions', path.join(FIXTURES, 'formats', fixture), '--all', '--format', 'chrome-trace', '--fail-on', 'none']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

const threadNames = (events: TraceEvent[]) => new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}/${e.tid}`, (e.args as { name: string }).name]));
const slice = (events: TraceEvent[], run: string) => events.find((e) => e.ph === 'X' && e.args?.run_id === run)!;

async function traceOf(input: string): Promise<TraceEvent[]> {
  const r = await runMain(['--stdin', '--all', '--format', 'chrome-trace', '--fail-on', 'none'], { input });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).traceEvents;
}

/** Every arrow as [start, end]; each start sits inside a complete slice of its thread and comes no later than its end. */
function flows(events: TraceEvent[]): [TraceEvent, TraceEvent][] {
  const out: [TraceEvent, TraceEvent][] = [];
  for (const s of events.filter((e) => e.ph === 's')) {
    const f = events.find((e) => e.ph === 'f' && e.id === s.id)!;
    expect(f, `flow ${s.id} has an end`).toBeDefined();
    expect(s.ts!, `${s.cat} arrow ${s.id} starts after it ends`).toBeLessThanOrEqual(f.ts!);
    const enclosing = events.some((e) => e.ph === 'X' && e.pid === s.pid && e.tid === s.tid && e.ts! <= s.ts! && s.ts! <= e.ts! + e.dur!);
    expect(enclosing, `${s.cat} arrow ${s.id} starts on no slice`).toBe(true);
    out.push([s, f]);
  }
  return out;
}

const T = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000000000+00:00`;

describe('--format chrome-trace', () => {
  it('is a Trace Event Format object: complete events in microseconds, every lane and process named', async () => {
    const t = await trace('nested-retry.jsonl');
    expect(Array.isArray(t.traceEvents)).toBe(true);
    expect(t.displayTimeUnit).toBe('ms');
    const complete = t.traceEvents.filter((e) => e.ph === 'X');
    expect(complete.length).toBe(2 + 4 + 2);
    const names = threadNames(t.traceEvents);
    const processes = new Set(t.traceEvents.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => e.pid));
    for (const e of complete) {
      expect(typeof e.name).toBe('string');
      expect(Number.isFinite(e.ts)).toBe(true);
      expect(e.dur).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(e.pid) && Number.isInteger(e.tid)).toBe(true);
      expect(names.has(`${e.pid}/${e.tid}`)).toBe(true);
      expect(processes.has(e.pid)).toBe(true);
    }
    for (const e of t.traceEvents) expect(['X', 'M', 'i', 's', 'f']).toContain(e.ph);
  });

  it('join contract: one lane per agent, the APAC slice ends 5 s after the join instant', async () => {
    const t = await trace('join-late.jsonl');
    const names = threadNames(t.traceEvents);
    const lane = (run: string) => names.get(`${slice(t.traceEvents, run).pid}/${slice(t.traceEvents, run).tid}`);
    expect(['r42-eu', 'r42-us', 'r42-apac'].map(lane)).toEqual(['eu', 'us', 'apac']);
    expect(new Set(['r42-eu', 'r42-us', 'r42-apac'].map((r) => slice(t.traceEvents, r).tid)).size).toBe(3);
    // ts 0 is the earliest journal timestamp (the delegation start at 10:00:00).
    expect(t.otherData.origin).toBe('2025-11-03T10:00:00.000Z');
    const join = t.traceEvents.find((e) => e.ph === 'i' && e.name.startsWith('join'))!;
    expect(join.ts).toBe(20_000_000);
    const apac = slice(t.traceEvents, 'r42-apac');
    expect(apac.ts).toBe(70_000);
    expect(apac.ts! + apac.dur!).toBe(25_000_000);
    expect(apac.args).toMatchObject({ status: 'completed', late_after_join: true, output_preview: 'APAC price 110 (run r42)' });
    const us = slice(t.traceEvents, 'r42-us');
    expect(us.ts! + us.dur!).toBe(12_000_000);
    expect(us.args).toMatchObject({ status: 'failed', error: 'upstream price feed returned 503' });
    const finding = t.traceEvents.find((e) => e.name === 'finding late-result')!;
    expect(finding).toMatchObject({ ph: 'i', tid: apac.tid, ts: 25_000_000 });
  });

  it('retries stay in their lane with a flow arrow; open runs end at the last event; nested delegations get a process', async () => {
    const t = await trace('nested-retry.jsonl');
    const first = slice(t.traceEvents, 'run-coder-1');
    const retry = slice(t.traceEvents, 'run-coder-2');
    expect(retry.tid).toBe(first.tid);
    expect(retry.args).toMatchObject({ attempt: 2, retry_of: 'run-coder-1' });
    const starts = t.traceEvents.filter((e) => e.ph === 's' && e.cat === 'retry');
    expect(starts).toHaveLength(1);
    const end = t.traceEvents.find((e) => e.ph === 'f' && e.id === starts[0].id)!;
    expect([end.tid, end.ts]).toEqual([retry.tid, retry.ts]);

    const reviewer = slice(t.traceEvents, 'run-reviewer');
    expect(reviewer.args).toMatchObject({ open_ended: true, end_source: 'last_event_seen' });
    expect(reviewer.ts! + reviewer.dur!).toBe(17_000_000);

    const planner = slice(t.traceEvents, 'run-planner');
    const writer = slice(t.traceEvents, 'run-writer');
    expect(writer.pid).not.toBe(planner.pid);
    const proc = t.traceEvents.find((e) => e.ph === 'M' && e.name === 'process_name' && e.pid === writer.pid)!;
    expect((proc.args as { name: string }).name).toContain('nested, started by run run-planner');
    expect(t.traceEvents.some((e) => e.ph === 's' && e.cat === 'nested' && e.pid === planner.pid)).toBe(true);
  });

  it('slices on one thread always nest: an attempt that starts before the previous one ended gets its own thread', async () => {
    // Completions recorded after the batch: the original's verification_failed lands after its retry started.
    const T = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000000000+00:00`;
    const dir = mkdtempSync(path.join(tmpdir(), 'td-chrome-'));
    try {
      writeFileSync(
        path.join(dir, 's.jsonl'),
        journal(
          ev.started(T(0), { delegation_id: 'd', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] }),
          ev.subStarted(T(1), { delegation_id: 'd', sub_run_id: 'r1', parent_run_id: 'p', agent_id: 'coder' }),
          ev.retry(T(5), { delegation_id: 'd', original_run_id: 'r1', retry_run_id: 'r2', agent_id: 'coder' }),
          ev.subStarted(T(5), { delegation_id: 'd', sub_run_id: 'r2', parent_run_id: 'p', agent_id: 'coder', retry_of: 'r1' }),
          ev.subCompleted(T(6), { delegation_id: 'd', sub_run_id: 'r1', agent_id: 'coder', status: 'verification_failed', output_preview: 'stub' }),
          ev.subCompleted(T(10), { delegation_id: 'd', sub_run_id: 'r2', agent_id: 'coder', status: 'completed', output_preview: 'the real output' }),
          ev.completed(T(11), { delegation_id: 'd', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'the real output' }),
        ),
      );
      const r = await runBin(['--sessions', dir, '--all', '--format', 'chrome-trace', '--fail-on', 'none']);
      const events: TraceEvent[] = JSON.parse(r.stdout).traceEvents;
      const [first, retry] = [slice(events, 'r1'), slice(events, 'r2')];
      expect(retry.tid).not.toBe(first.tid);
      expect(threadNames(events).get(`${retry.pid}/${retry.tid}`)).toBe('coder · attempt 2');
      const slices = events.filter((e) => e.ph === 'X');
      for (const a of slices)
        for (const b of slices) {
          if (a === b || a.pid !== b.pid || a.tid !== b.tid) continue;
          const [aEnd, bEnd] = [a.ts! + a.dur!, b.ts! + b.dur!];
          const nested = (a.ts! <= b.ts! && bEnd <= aEnd) || (b.ts! <= a.ts! && aEnd <= bEnd);
          const apart = aEnd <= b.ts! || bEnd <= a.ts!;
          expect(nested || apart, `${a.name} and ${b.name} overlap on one thread`).toBe(true);
        }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** outer's run p1 starts `inner` at T3; p1's own sub_run_started is journaled (T1) or not. */
  const nestedUnder = (parentStart: boolean) =>
    journal(
      ev.started(T(0), { delegation_id: 'outer', parent_run_id: 'root', pattern: 'fan_out', agent_ids: ['planner'] }),
      ...(parentStart ? [ev.subStarted(T(1), { delegation_id: 'outer', sub_run_id: 'p1', parent_run_id: 'root', agent_id: 'planner' })] : []),
      ev.started(T(3), { delegation_id: 'inner', parent_run_id: 'p1', pattern: 'fan_out', agent_ids: ['writer'] }),
      ev.subStarted(T(4), { delegation_id: 'inner', sub_run_id: 'w1', parent_run_id: 'p1', agent_id: 'writer' }),
      ev.subCompleted(T(6), { delegation_id: 'inner', sub_run_id: 'w1', agent_id: 'writer', status: 'completed', output_preview: 'written text' }),
      ev.completed(T(7), { delegation_id: 'inner', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
      ev.subCompleted(T(10), { delegation_id: 'outer', sub_run_id: 'p1', agent_id: 'planner', status: 'completed', output_preview: 'planned all' }),
      ev.completed(T(11), { delegation_id: 'outer', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
    );

  it('a nested delegation whose parent run has no start journaled gets its arrow from the outer delegation, never backwards', async () => {
    // p1's sub_run_started was not journaled: its completion (T10) comes after the nested delegation started (T3).
    const events = await traceOf(nestedUnder(false));
    const nested = flows(events).filter(([s]) => s.cat === 'nested');
    expect(nested).toHaveLength(1);
    const [s, f] = nested[0];
    const outer = events.find((e) => e.ph === 'X' && e.cat === 'delegation' && e.args?.delegation_id === 'outer')!;
    const inner = events.find((e) => e.ph === 'X' && e.cat === 'delegation' && e.args?.delegation_id === 'inner')!;
    expect([s.pid, s.tid, s.ts]).toEqual([outer.pid, outer.tid, outer.ts]);
    expect([f.pid, f.tid, f.ts]).toEqual([inner.pid, inner.tid, 3_000_000]);
  });

  it('a nested delegation whose parent run has a start still gets its arrow from that run', async () => {
    const events = await traceOf(nestedUnder(true));
    const [[s]] = flows(events).filter(([x]) => x.cat === 'nested');
    const p1 = slice(events, 'p1');
    expect([s.pid, s.tid, s.ts]).toEqual([p1.pid, p1.tid, 1_000_000]);
  });

  it('draws no retry arrow from an original with no start journaled (its completion comes after the retry started)', async () => {
    const events = await traceOf(
      journal(
        ev.started(T(0), { delegation_id: 'd', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] }),
        ev.retry(T(5), { delegation_id: 'd', original_run_id: 'r1', retry_run_id: 'r2', agent_id: 'coder' }),
        ev.subStarted(T(5), { delegation_id: 'd', sub_run_id: 'r2', parent_run_id: 'p', agent_id: 'coder', retry_of: 'r1' }),
        ev.subCompleted(T(6), { delegation_id: 'd', sub_run_id: 'r1', agent_id: 'coder', status: 'verification_failed', output_preview: 'stub' }),
        ev.subCompleted(T(10), { delegation_id: 'd', sub_run_id: 'r2', agent_id: 'coder', status: 'completed', output_preview: 'the real output' }),
        ev.completed(T(11), { delegation_id: 'd', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
      ),
    );
    expect(slice(events, 'r2').args).toMatchObject({ retry_of: 'r1' });
    expect(events.some((e) => e.ph === 'i' && e.args?.run_id === 'r1')).toBe(true);
    expect(flows(events).filter(([s]) => s.cat === 'retry')).toEqual([]);
  });

  it('every arrow of the format fixtures starts on a slice, no later than it ends', async () => {
    for (const fixture of ['nested-retry.jsonl', 'retry-and-failure.jsonl', 'join-late.jsonl', 'nested-finding-on-parent-run.jsonl']) {
      const t = await trace(fixture);
      flows(t.traceEvents);
    }
    expect(flows((await trace('nested-retry.jsonl')).traceEvents).map(([s]) => s.cat).sort()).toEqual(['nested', 'retry']);
  });

  it('replaces lone surrogates with U+FFFD, as --format otlp does, and keeps surrogate pairs', async () => {
    const events = await traceOf(
      journal(
        ev.started(T(0), { delegation_id: 'sur\ud800-d', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['agent\udc00'] }),
        ev.subStarted(T(1), { delegation_id: 'sur\ud800-d', sub_run_id: 'run\ud800', parent_run_id: 'p', agent_id: 'agent\udc00' }),
        ev.subCompleted(T(2), { delegation_id: 'sur\ud800-d', sub_run_id: 'run\ud800', agent_id: 'agent\udc00', status: 'failed', error: 'boom \ud83d', output_preview: 'ok \ud83d\ude00' }),
        ev.completed(T(3), { delegation_id: 'sur\ud800-d', pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed' }),
      ),
    );
    const strings: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(events);
    expect(strings.filter((x) => !x.isWellFormed())).toEqual([]);
    const run = slice(events, 'run\ufffd');
    expect(run.args).toMatchObject({ agent_id: 'agent\ufffd', delegation_id: 'sur\ufffd-d', error: 'boom \ufffd', output_preview: 'ok 😀' });
    expect(run.name).toBe('agent\ufffd attempt 1');
  });
});
