// `--format otlp`: OTLP/JSON (the body of POST /v1/traces). One trace per delegation tree:
// the delegation is the root span, each sub-run attempt a child, nested delegations under
// the sub-run that started them, findings as span events.
import { createHash } from 'node:crypto';
import type { Finding } from '../checks/types.js';
import type { AttemptReport, DelegationReport, TraceReport } from '../report/types.js';
import { byKey, FAILED_STATUSES, lastEventSeen, roots, tree, tsNanos as epochNanos } from './lanes.js';
import { joinedPieces, type Formatter, type PieceFormatter } from './types.js';
import { wellFormed } from './well-formed.js';

/** OTLP times are fixed64: an instant before 1970 or after 2554 cannot be sent, so it counts as untimed. */
const MAX_FIXED64 = (1n << 64n) - 1n;
function tsNanos(ts: string | null): string | null {
  const ns = epochNanos(ts);
  return ns !== null && BigInt(ns) >= 0n && BigInt(ns) <= MAX_FIXED64 ? ns : null;
}

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean } | { arrayValue: { values: AnyValue[] } };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface SpanEvent {
  timeUnixNano: string;
  name: string;
  attributes: KeyValue[];
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** SPAN_KIND_INTERNAL: the journal does not say who called whom over which transport. */
  kind: 1;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  events: SpanEvent[];
  links: { traceId: string; spanId: string; attributes: KeyValue[] }[];
  status: { code: 0 | 1 | 2; message?: string };
}

/** SHA-256 prefix: the same ids give the same trace and span ids on every export. */
function hexId(kind: string, parts: string[], length: 32 | 16): string {
  const id = createHash('sha256').update([kind, ...parts].join('\u0000')).digest('hex').slice(0, length);
  // All-zero ids are invalid in OTLP; a hash prefix of zeros is astronomically unlikely but cheap to rule out.
  return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
}

export const traceIdFor = (rootKey: string): string => hexId('trace', [rootKey], 32);
export const delegationSpanId = (key: string): string => hexId('delegation', [key], 16);
export const attemptSpanId = (key: string, runId: string): string => hexId('sub-run', [key, runId], 16);

function kv(key: string, value: string | number | boolean | string[] | null | undefined): KeyValue | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return { key, value: { arrayValue: { values: value.map((v) => ({ stringValue: v })) } } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  // int64 travels as a decimal string: only a safe integer is written as one ("1e+21" is no int64).
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { key, value: { intValue: String(value) } };
    return { key, value: Number.isFinite(value) ? { doubleValue: value } : { stringValue: String(value) } };
  }
  return { key, value: { stringValue: value } };
}

const attrs = (...list: (KeyValue | null)[]): KeyValue[] => list.filter((x): x is KeyValue => x !== null);
const minNs = (xs: (string | null)[]): string | null => xs.filter((x): x is string => x !== null).reduce<string | null>((a, b) => (a === null || BigInt(b) < BigInt(a) ? b : a), null);
const maxNs = (a: string, b: string): string => (BigInt(a) >= BigInt(b) ? a : b);

interface Tree {
  traceId: string;
  keys: Map<string, DelegationReport>;
  /** Span id and end time of every attempt in the tree, by run id (nested parents, findings). */
  runSpans: Map<string, { spanId: string; endNs: string }>;
  spans: OtlpSpan[];
  /** The tree's spans by id (a finding's event goes on the span of a run it names). */
  spanById: Map<string, OtlpSpan>;
  visited: Set<string>;
  /** Delegations with no timestamp to place a span at (shared by every tree of the report). */
  untimed: string[];
}

function findingEvent(f: Finding, timeUnixNano: string): SpanEvent {
  return {
    timeUnixNano,
    name: f.id,
    attributes: attrs(
      kv('astra.finding.id', f.id),
      kv('astra.finding.severity', f.severity),
      kv('astra.finding.message', f.message),
      kv('astra.finding.symptom', f.symptom),
      kv('astra.finding.check', f.check),
      kv('astra.finding.evidence', f.evidence.map((e) => `${e.file}:${e.line}`)),
      kv('astra.finding.runs', f.runs),
    ),
  };
}

/** Root span times: start at delegation_started, end at the join or the last event seen. */
function delegationTimes(d: DelegationReport, lastNs: string | null): { start: string; end: string; open: boolean } | null {
  const firstAttempt = minNs(d.children.flatMap((c) => c.attempts.flatMap((a) => [tsNanos(a.startTs), tsNanos(a.endTs)])));
  const start = tsNanos(d.startedTs) ?? firstAttempt ?? minNs(d.timeline.map((t) => tsNanos(t.ts)));
  if (start === null) return null;
  const joined = tsNanos(d.completedTs);
  return { start, end: maxNs(start, joined ?? lastNs ?? start), open: joined === null };
}

function attemptSpan(t: Tree, d: DelegationReport, a: AttemptReport, parentSpanId: string, fallbackNs: string, lastNs: string | null): OtlpSpan {
  const startNs = tsNanos(a.startTs);
  const endNs = tsNanos(a.endTs);
  const open = a.open && startNs !== null;
  const start = startNs ?? endNs ?? fallbackNs;
  const rawEnd = open ? lastNs ?? start : endNs ?? start;
  const end = maxNs(start, rawEnd);
  const failed = FAILED_STATUSES.has(a.status ?? '');
  const spanId = attemptSpanId(d.key, a.runId);
  t.runSpans.set(a.runId, { spanId, endNs: end });
  const events: SpanEvent[] = a.markers.flatMap((m) => {
    const at = tsNanos(m.ts);
    return at ? [{ timeUnixNano: at, name: `sync_marker ${m.action}`, attributes: attrs(kv('astra.marker.action', m.action), kv('astra.evidence', `${m.file}:${m.line}`)) }] : [];
  });
  const retried = a.retryOf ? t.runSpans.get(a.retryOf) : undefined;
  return {
    traceId: t.traceId,
    spanId,
    parentSpanId,
    name: `${a.agentId ?? '?'} attempt ${a.attempt}`,
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes: attrs(
      kv('astra.delegation.id', d.id),
      kv('astra.delegation.pattern', d.pattern),
      kv('astra.sub_run.id', a.runId),
      kv('astra.agent.id', a.agentId),
      kv('astra.sub_run.attempt', a.attempt),
      kv('astra.sub_run.retry_of', a.retryOf),
      kv('astra.sub_run.retry_reason', a.retryReason),
      kv('astra.sub_run.depth', a.depth),
      kv('astra.sub_run.status', a.status ?? (open ? 'running' : null)),
      kv('astra.sub_run.error', a.error),
      kv('astra.sub_run.output_preview', a.outputPreview),
      kv('astra.open_ended', open || null),
      kv('astra.end_source', open ? 'last_event_seen' : null),
      kv('astra.start_missing', startNs === null || null),
      kv('astra.untimed', (startNs === null && endNs === null) || null),
      kv('astra.end_before_start', (rawEnd !== end) || null),
      kv('astra.evidence', a.evidence.map((e) => `${e.file}:${e.line}`)),
    ),
    events,
    links: retried ? [{ traceId: t.traceId, spanId: retried.spanId, attributes: attrs(kv('astra.link', 'retry_of')) }] : [],
    status: failed ? { code: 2, message: a.error ?? a.status ?? 'failed' } : { code: 0 },
  };
}

/** Spans of a delegation tree, depth first; a work list, not recursion: nesting can be thousands deep. */
function delegationSpans(t: Tree, top: DelegationReport, topParent: string | undefined): void {
  const work: [DelegationReport, string | undefined][] = [[top, topParent]];
  while (work.length > 0) {
    const [d, parentSpanId] = work.pop()!;
    const nested = delegationSpan(t, d, parentSpanId);
    for (let i = nested.length - 1; i >= 0; i--) work.push(nested[i]);
  }
}

/** One delegation's spans; returns its nested delegations with the span each hangs under. */
function delegationSpan(t: Tree, d: DelegationReport, parentSpanId: string | undefined): [DelegationReport, string | undefined][] {
  if (t.visited.has(d.key)) return [];
  t.visited.add(d.key);
  const last = lastEventSeen(d, t.keys);
  const lastNs = last ? tsNanos(last.ts) : null;
  const times = delegationTimes(d, lastNs);
  if (!times) {
    // No instant to place it at; its nested delegations may have theirs, under the span above it.
    t.untimed.push(d.key);
    return d.nested.flatMap((key): [DelegationReport, string | undefined][] => {
      const n = t.keys.get(key);
      return n ? [[n, parentSpanId]] : [];
    });
  }
  const spanId = delegationSpanId(d.key);
  const root: OtlpSpan = {
    traceId: t.traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name: `delegation ${d.pattern ?? '?'}`,
    kind: 1,
    startTimeUnixNano: times.start,
    endTimeUnixNano: times.end,
    attributes: attrs(
      kv('astra.delegation.id', d.id),
      kv('astra.delegation.key', d.key === d.id ? null : d.key),
      kv('astra.delegation.pattern', d.pattern),
      kv('astra.delegation.parent_run_id', d.parentRunId),
      kv('astra.delegation.agents', d.agents),
      kv('astra.delegation.expected', d.expected),
      kv('astra.delegation.status', d.status.aggregated),
      kv('astra.delegation.total_sub_runs', d.status.totalSubRuns),
      kv('astra.delegation.succeeded', d.status.succeeded),
      kv('astra.delegation.failed', d.status.failed),
      kv('astra.delegation.aggregated_output_preview', d.status.aggregatedOutputPreview),
      kv('astra.session.ids', d.sessions),
      kv('astra.open_ended', times.open || null),
      kv('astra.end_source', times.open ? 'last_event_seen' : null),
    ),
    events: [],
    links: [],
    status: d.status.aggregated === 'failed' ? { code: 2, message: 'aggregated_status failed' } : { code: 0 },
  };
  const add = (span: OtlpSpan) => {
    t.spans.push(span);
    t.spanById.set(span.spanId, span);
  };
  add(root);
  for (const c of d.children) for (const a of c.attempts) add(attemptSpan(t, d, a, spanId, times.start, lastNs));
  // Findings after all attempts exist, so a finding may point at any run of the delegation.
  // One event per finding, on the first run it names (its `runs` attribute lists the others):
  // copying it onto every run would grow with the square of a long retry chain.
  // Only this delegation's own runs: a finding of a nested delegation can name its parent run,
  // which is a span of the outer delegation.
  const own = new Set(d.children.flatMap((c) => c.attempts.map((a) => a.runId)));
  for (const f of d.findings) {
    const target = f.runs.filter((r) => own.has(r)).map((r) => t.runSpans.get(r)).find((x) => x !== undefined);
    const span = target ? t.spanById.get(target.spanId) : undefined;
    if (span && target) span.events.push(findingEvent(f, target.endNs));
    else root.events.push(findingEvent(f, root.endTimeUnixNano));
  }
  const nested: [DelegationReport, string | undefined][] = [];
  for (const key of d.nested) {
    const n = t.keys.get(key);
    if (!n) continue;
    const parentRun = n.parentRunId ? t.runSpans.get(n.parentRunId) : undefined;
    nested.push([n, parentRun?.spanId ?? spanId]);
  }
  return nested;
}

/** All spans of the report, one trace per delegation tree; `untimed` collects the delegations left without one. */
export function otlpSpans(report: TraceReport, untimed: string[] = []): OtlpSpan[] {
  const keys = byKey(report.delegations);
  const spans: OtlpSpan[] = [];
  const done = new Set<string>();
  for (const d of [...roots(report.delegations), ...report.delegations]) {
    if (done.has(d.key)) continue;
    for (const x of tree(d, keys)) done.add(x.key);
    const t: Tree = { traceId: traceIdFor(d.key), keys, runSpans: new Map(), spans, spanById: new Map(), visited: new Set(), untimed };
    delegationSpans(t, d, undefined);
  }
  return spans;
}

/**
 * The OTLP/JSON document in pieces: the envelope, then each span indented to its place (as
 * JSON.stringify(body, wellFormed, 2) indents it), so a large --all is never one string.
 */
export const otlpPieces: PieceFormatter = function* (report) {
  const untimed: string[] = [];
  const spans = otlpSpans(report, untimed);
  // Senders should not send empty envelopes: no span, no resource.
  if (!spans.length) {
    yield `${JSON.stringify({ resourceSpans: [] }, wellFormed, 2)}\n`;
    return;
  }
  const marker = `@@spans-${Math.random().toString(36).slice(2)}@@`;
  const body = {
    resourceSpans: [
      {
        resource: { attributes: attrs(kv('service.name', 'astra-delegation'), kv('astra.journal.files', report.stats.files), kv('astra.untimed_delegations', untimed.length ? untimed : null)) },
        scopeSpans: [{ scope: { name: report.tool.name, version: report.tool.version }, spans: [marker] }],
      },
    ],
  };
  const [head, tail] = JSON.stringify(body, wellFormed, 2).split(JSON.stringify(marker));
  const pad = head.slice(head.lastIndexOf('\n') + 1); // the indent of an element of spans
  yield head;
  let first = true;
  for (const span of spans) {
    // Newlines in JSON text are structure only (a string's are escaped): each line takes the element's indent.
    yield `${first ? '' : `,\n${pad}`}${JSON.stringify(span, wellFormed, 2).replaceAll('\n', `\n${pad}`)}`;
    first = false;
  }
  yield `${tail}\n`;
};

export const formatOtlp: Formatter = joinedPieces(otlpPieces);
