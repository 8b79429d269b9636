// `--format chrome-trace`: the Trace Event Format (JSON object form) for Perfetto and chrome://tracing.
// One process per delegation, one thread per agent lane row, a complete (`X`) event per attempt.
import type { AttemptReport, DelegationReport, TraceReport } from '../report/types.js';
import { agentLanes, byKey, lastEventSeen, roots, tree, tsNanos } from './lanes.js';
import { joinedPieces, type Formatter, type PieceFormatter } from './types.js';
import { wellFormed } from './well-formed.js';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'M' | 'i' | 's' | 'f';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  s?: 'g' | 'p' | 't';
  id?: number;
  bp?: 'e';
  cname?: string;
  args?: Record<string, unknown>;
}

// Reserved colour names of the trace viewer (chrome://tracing honours them; Perfetto picks its own).
const CNAME: Record<string, string> = { completed: 'good', failed: 'bad', verification_failed: 'terrible', cancelled: 'grey', paused: 'yellow', waiting: 'yellow' };

/** Microseconds from the origin, three decimals: exact to the nanosecond within 2^53 ns (104 days) of it. */
const micros = (ns: string, origin: bigint): number => Number(BigInt(ns) - origin) / 1000;

interface Ctx {
  origin: bigint;
  keys: Map<string, DelegationReport>;
  events: TraceEvent[];
  pids: Map<string, number>;
  /** Where each attempt was drawn, for retry and nesting arrows (slice: false for an instant, which no arrow binds to). */
  runs: Map<string, Drawn & { slice: boolean }>;
  /** Each delegation's own slice by pid: a nesting arrow's source when its parent run's cannot be. */
  delegationSlices: Map<number, Drawn>;
  flow: number;
}

interface Drawn {
  pid: number;
  tid: number;
  ts: number;
  end: number;
}

const TID_DELEGATION = 1;

function laneThreads(d: DelegationReport): Map<AttemptReport, { tid: number; name: string }> {
  const out = new Map<AttemptReport, { tid: number; name: string }>();
  let tid = TID_DELEGATION + 1;
  for (const lane of agentLanes(d)) {
    lane.rows.forEach((child, r) => {
      const name = lane.rows.length > 1 ? `${lane.agent} #${r + 1}` : lane.agent;
      // Slices on one thread must nest (Perfetto drops the ones that overlap): an attempt that
      // starts before the previous one ended (a completion journaled late) gets a thread of its own.
      const rowTid = tid++;
      let rowEnd: bigint | 'open' | null = null; // where the row's last slice ends (null: none yet)
      for (const a of child.attempts) {
        const start = tsNanos(a.startTs);
        if (rowEnd === 'open' || (rowEnd !== null && start !== null && BigInt(start) < rowEnd)) {
          out.set(a, { tid: tid++, name: `${name} · attempt ${a.attempt}` });
          continue;
        }
        out.set(a, { tid: rowTid, name });
        const stop = tsNanos(a.endTs);
        if (a.open) rowEnd = 'open';
        else if (stop !== null) rowEnd = BigInt(stop);
      }
    });
  }
  return out;
}

function meta(pid: number, tid: number, name: string, args: Record<string, unknown>): TraceEvent {
  return { name, ph: 'M', pid, tid, args };
}

function delegationEvents(c: Ctx, d: DelegationReport, sortIndex: number): void {
  const pid = c.pids.get(d.key)!;
  const last = lastEventSeen(d, c.keys);
  const lastNs = last ? tsNanos(last.ts) : null;
  const parentNote = d.parentDelegation ? ` (nested, started by run ${d.parentRunId ?? '?'})` : '';
  c.events.push(
    meta(pid, 0, 'process_name', { name: `delegation ${d.key} · ${d.pattern ?? '?'} · ${d.status.aggregated ?? 'not completed'}${parentNote}` }),
    meta(pid, 0, 'process_sort_index', { sort_index: sortIndex }),
    meta(pid, TID_DELEGATION, 'thread_name', { name: 'delegation' }),
    meta(pid, TID_DELEGATION, 'thread_sort_index', { sort_index: 0 }),
  );
  const startNs = tsNanos(d.startedTs);
  const joinNs = tsNanos(d.completedTs);
  if (startNs) {
    const endNs = joinNs ?? lastNs ?? startNs;
    const ts = micros(startNs, c.origin);
    const dur = Math.max(0, micros(endNs, c.origin) - ts);
    c.delegationSlices.set(pid, { pid, tid: TID_DELEGATION, ts, end: ts + dur });
    c.events.push({
      name: `delegation ${d.pattern ?? '?'}`,
      cat: 'delegation',
      ph: 'X',
      pid,
      tid: TID_DELEGATION,
      ts,
      dur,
      args: { delegation_id: d.id, pattern: d.pattern, parent_run_id: d.parentRunId, aggregated_status: d.status.aggregated, total_sub_runs: d.status.totalSubRuns, succeeded: d.status.succeeded, failed: d.status.failed, sessions: d.sessions, open_ended: joinNs === null, ...(joinNs === null ? { end_source: 'last_event_seen' } : {}) },
    });
    const parent = d.parentRunId ? c.runs.get(d.parentRunId) : undefined;
    // From the parent run's slice if it began by then, else from the outer delegation's: an arrow never runs backwards.
    const from = parent && ([parent.slice ? parent : undefined, c.delegationSlices.get(parent.pid)].find((x) => x && x.ts <= ts));
    if (from) flow(c, 'nested', from, { pid, tid: TID_DELEGATION, ts });
  }
  if (joinNs) c.events.push({ name: 'join (delegation_completed)', cat: 'delegation', ph: 'i', s: 'p', pid, tid: TID_DELEGATION, ts: micros(joinNs, c.origin), args: { aggregated_status: d.status.aggregated } });
  const threads = laneThreads(d);
  const named = new Set<number>();
  for (const child of d.children) {
    for (const a of child.attempts) {
      const th = threads.get(a)!;
      if (!named.has(th.tid)) {
        named.add(th.tid);
        c.events.push(meta(pid, th.tid, 'thread_name', { name: th.name }), meta(pid, th.tid, 'thread_sort_index', { sort_index: th.tid }));
      }
      attemptEvent(c, d, a, pid, th.tid, joinNs, lastNs);
    }
  }
  for (const f of d.findings) {
    const at = f.runs.map((r) => c.runs.get(r)).find((x) => x && x.pid === pid);
    const ts = at?.end ?? (joinNs ? micros(joinNs, c.origin) : startNs ? micros(startNs, c.origin) : null);
    // A delegation with no time that parses still shows its findings: at the trace's start, marked untimed.
    c.events.push({ name: `finding ${f.id}`, cat: 'finding', ph: 'i', s: 't', pid, tid: at?.tid ?? TID_DELEGATION, ts: ts ?? 0, args: { severity: f.severity, message: f.message, runs: f.runs, evidence: f.evidence.map((e) => `${e.file}:${e.line}`), ...(ts === null ? { untimed: true } : {}) } });
  }
}

function attemptEvent(c: Ctx, d: DelegationReport, a: AttemptReport, pid: number, tid: number, joinNs: string | null, lastNs: string | null): void {
  const startNs = tsNanos(a.startTs);
  const endNs = tsNanos(a.endTs);
  const open = a.open && startNs !== null;
  const late = !open && joinNs !== null && endNs !== null && BigInt(endNs) > BigInt(joinNs);
  const args = {
    run_id: a.runId,
    agent_id: a.agentId,
    attempt: a.attempt,
    status: a.status ?? (open ? 'running' : null),
    retry_of: a.retryOf,
    retry_reason: a.retryReason,
    depth: a.depth,
    error: a.error,
    output_preview: a.outputPreview,
    start_ts: a.startTs,
    end_ts: a.endTs,
    ...(open ? { open_ended: true, end_source: 'last_event_seen' } : {}),
    ...(late ? { late_after_join: true } : {}),
    delegation_id: d.id,
  };
  const name = `${a.agentId ?? '?'} attempt ${a.attempt}${open ? ' (open)' : ''}`;
  const cname = CNAME[a.status ?? ''];
  if (startNs === null) {
    if (endNs === null) return;
    const ts = micros(endNs, c.origin);
    c.runs.set(a.runId, { pid, tid, ts, end: ts, slice: false });
    c.events.push({ name: `${name} (no start journaled)`, cat: 'sub-run', ph: 'i', s: 't', pid, tid, ts, args });
    return;
  }
  const ts = micros(startNs, c.origin);
  const end = open ? lastNs ?? startNs : endNs ?? startNs;
  const dur = Math.max(0, micros(end, c.origin) - ts);
  c.events.push({ name, cat: 'sub-run', ph: 'X', pid, tid, ts, dur, ...(cname ? { cname } : {}), args });
  const prev = a.retryOf ? c.runs.get(a.retryOf) : undefined;
  // No arrow from an original drawn as an instant or started after its retry: retry_of in args still names it.
  if (prev?.slice && prev.ts <= ts) flow(c, 'retry', prev, { pid, tid, ts });
  c.runs.set(a.runId, { pid, tid, ts, end: ts + dur, slice: true });
}

/** An arrow from one slice to another (retry → its original, nested delegation → its sub-run). */
function flow(c: Ctx, name: string, from: { pid: number; tid: number; ts: number }, to: { pid: number; tid: number; ts: number }): void {
  // The viewers bind 's' to the slice enclosing it and draw from there: a start after the end is drawn wrong.
  if (from.ts > to.ts) return;
  const id = ++c.flow;
  c.events.push({ name, cat: name, ph: 's', id, pid: from.pid, tid: from.tid, ts: from.ts }, { name, cat: name, ph: 'f', bp: 'e', id, pid: to.pid, tid: to.tid, ts: to.ts });
}

/** Earliest parseable timestamp of the report: ts 0 of the trace. */
function originNs(report: TraceReport): bigint | null {
  let min: bigint | null = null;
  for (const d of report.delegations)
    for (const t of d.timeline) {
      const ns = tsNanos(t.ts);
      if (ns !== null && (min === null || BigInt(ns) < min)) min = BigInt(ns);
    }
  return min;
}

export function chromeTrace(report: TraceReport): { traceEvents: TraceEvent[]; displayTimeUnit: 'ms'; otherData: Record<string, string> } {
  const origin = originNs(report) ?? 0n;
  const keys = byKey(report.delegations);
  const order: DelegationReport[] = [];
  const seen = new Set<string>();
  for (const r of [...roots(report.delegations), ...report.delegations]) for (const d of tree(r, keys, seen)) order.push(d);
  const c: Ctx = { origin, keys, events: [], pids: new Map(order.map((d, i) => [d.key, i + 1] as const)), runs: new Map(), delegationSlices: new Map(), flow: 0 };
  order.forEach((d, i) => delegationEvents(c, d, i));
  const originIso = new Date(Number(origin / 1_000_000n)).toISOString();
  return {
    traceEvents: c.events,
    displayTimeUnit: 'ms',
    otherData: { tool: `${report.tool.name} ${report.tool.version}`, origin: originIso, originUnixNano: origin.toString(), note: 'ts is microseconds after origin (the earliest journal timestamp in the report)' },
  };
}

/** One event per line: diffable, and still a single JSON object the viewers load; an event per piece, so a large --all is never one string. */
export const chromeTracePieces: PieceFormatter = function* (report) {
  const { traceEvents, ...rest } = chromeTrace(report);
  // Well-formed strings, as in OTLP: a lone surrogate is not UTF-8 a trace viewer can load.
  const head = Object.entries(rest).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v, wellFormed)}`).join(',\n');
  yield '{"traceEvents":[\n';
  let first = true;
  for (const e of traceEvents) {
    yield `${first ? '' : ',\n'}${JSON.stringify(e, wellFormed)}`;
    first = false;
  }
  yield `\n],\n${head}}\n`;
};

export const formatChromeTrace: Formatter = joinedPieces(chromeTracePieces);
