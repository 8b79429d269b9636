import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

interface AnyValue {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: AnyValue }[];
  events: { timeUnixNano: string; name: string; attributes: { key: string; value: AnyValue }[] }[];
  links: { traceId: string; spanId: string }[];
  status: { code: number; message?: string };
}

async function otlp(args: string[], input?: string): Promise<{ doc: { resourceSpans: { resource: { attributes: unknown[] }; scopeSpans: { scope: { name: string }; spans: Span[] }[] }[] }; spans: Span[]; raw: string }> {
  const r = await runBin([...args, '--format', 'otlp', '--fail-on', 'none'], { input });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout);
  return { doc, spans: doc.resourceSpans.flatMap((rs: { scopeSpans: { spans: Span[] }[] }) => rs.scopeSpans.flatMap((ss) => ss.spans)), raw: r.stdout };
}

const attr = (s: Span, key: string): AnyValue | undefined => s.attributes.find((a) => a.key === key)?.value;
const str = (s: Span, key: string) => attr(s, key)?.stringValue;
const byRun = (spans: Span[], run: string): Span => {
  const s = spans.find((x) => str(x, 'astra.sub_run.id') === run);
  if (!s) throw new Error(`no span for run ${run}`);
  return s;
};
const root = (spans: Span[], id: string): Span => spans.find((s) => str(s, 'astra.delegation.id') === id && !str(s, 'astra.sub_run.id'))!;
/** Nanoseconds since the epoch of a whole-second-or-millisecond RFC 3339 time, computed independently. */
const nanos = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();

const JOIN = path.join(FIXTURES, 'formats', 'join-late.jsonl');
const NESTED = path.join(FIXTURES, 'formats', 'nested-retry.jsonl');
const JOIN_ID = '5a1f0c2e-8b3d-4e79-a6c4-0d2e9f7b1a38';

describe('--format otlp', () => {
  it("files a nested delegation's finding under that delegation, though it names the outer delegation's run", async () => {
    // inner-d (started by run R1 of outer-d) joined R1's output: failed-in-aggregate, runs [R1].
    const { spans } = await otlp(['--sessions', path.join(FIXTURES, 'formats', 'nested-finding-on-parent-run.jsonl'), '--all']);
    const withEvents = spans.filter((s) => s.events.length > 0);
    expect(withEvents.map((s) => [str(s, 'astra.delegation.id'), str(s, 'astra.sub_run.id') ?? null, s.events.map((e) => e.name)])).toEqual([['inner-d', null, ['failed-in-aggregate']]]);
    expect(byRun(spans, 'R1').events).toEqual([]);
  });

  it('has the OTLP/JSON shape with valid ids, kinds and decimal-string nanosecond times', async () => {
    const { doc, spans } = await otlp(['--sessions', NESTED, '--all']);
    expect(doc.resourceSpans).toHaveLength(1);
    expect(doc.resourceSpans[0].resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'astra-delegation' } });
    expect(doc.resourceSpans[0].scopeSpans[0].scope.name).toBe('trace-delegation');
    // 2 delegation spans + 4 attempts in the outer one (coder twice) + 2 in the nested one.
    expect(spans).toHaveLength(8);
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(s.startTimeUnixNano).toMatch(/^\d+$/);
      expect(s.endTimeUnixNano).toMatch(/^\d+$/);
      expect(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano)).toBe(true);
      expect(s.kind).toBe(1);
      expect([0, 1, 2]).toContain(s.status.code);
    }
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
  });

  it('join contract: one trace, delegation as root, attempts as children, the failure as status 2, late-result as an event', async () => {
    const { spans } = await otlp(['--sessions', JOIN, '--all']);
    expect(spans).toHaveLength(4);
    const r = root(spans, JOIN_ID);
    expect(r.parentSpanId).toBeUndefined();
    expect(str(r, 'astra.delegation.pattern')).toBe('fan_out');
    expect(r.startTimeUnixNano).toBe(nanos('2025-11-03T10:00:00Z'));
    expect(r.endTimeUnixNano).toBe(nanos('2025-11-03T10:00:20Z'));
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([r.traceId]));
    for (const run of ['r42-eu', 'r42-us', 'r42-apac']) expect(byRun(spans, run).parentSpanId).toBe(r.spanId);

    const us = byRun(spans, 'r42-us');
    expect(us.status).toEqual({ code: 2, message: 'upstream price feed returned 503' });
    expect(str(us, 'astra.sub_run.error')).toBe('upstream price feed returned 503');
    expect(str(us, 'astra.agent.id')).toBe('us');
    expect(attr(us, 'astra.sub_run.attempt')).toEqual({ intValue: '1' });
    expect(byRun(spans, 'r42-eu').status.code).toBe(0);

    // APAC outlives the root span: its result arrived 5 s after the join.
    const apac = byRun(spans, 'r42-apac');
    expect(apac.endTimeUnixNano).toBe(nanos('2025-11-03T10:00:25Z'));
    expect(BigInt(apac.endTimeUnixNano) > BigInt(r.endTimeUnixNano)).toBe(true);
    const late = apac.events.find((e) => e.name === 'late-result');
    expect(late).toBeDefined();
    expect(late!.timeUnixNano).toBe(apac.endTimeUnixNano);
    expect(late!.attributes).toContainEqual({ key: 'astra.finding.severity', value: { stringValue: 'warning' } });
  });

  it('nested delegations hang under the sub-run that started them; retries and open runs are marked', async () => {
    const { spans } = await otlp(['--sessions', NESTED, '--all']);
    const outer = root(spans, 'c7e2b9a4-1d6f-4a3c-8e5b-2f9d0a7c4e18');
    const inner = root(spans, 'f1a8d3c6-4b2e-4f90-a7d5-9e3c1b6a0d27');
    const planner = byRun(spans, 'run-planner');
    expect(inner.parentSpanId).toBe(planner.spanId);
    expect(inner.traceId).toBe(outer.traceId);
    expect(byRun(spans, 'run-writer').parentSpanId).toBe(inner.spanId);

    const first = byRun(spans, 'run-coder-1');
    const retry = byRun(spans, 'run-coder-2');
    expect(first.status.code).toBe(2);
    expect(str(first, 'astra.sub_run.status')).toBe('verification_failed');
    expect(attr(retry, 'astra.sub_run.attempt')).toEqual({ intValue: '2' });
    expect(str(retry, 'astra.sub_run.retry_of')).toBe('run-coder-1');
    expect(retry.links).toEqual([expect.objectContaining({ traceId: outer.traceId, spanId: first.spanId })]);

    // The reviewer never completed: it ends at the last event seen (the join at 17 s) and says so.
    const reviewer = byRun(spans, 'run-reviewer');
    expect(reviewer.endTimeUnixNano).toBe(nanos('2025-11-03T11:30:17Z'));
    expect(attr(reviewer, 'astra.open_ended')).toEqual({ boolValue: true });
    expect(str(reviewer, 'astra.end_source')).toBe('last_event_seen');
    expect(reviewer.events.map((e) => e.name)).toEqual(expect.arrayContaining(['sync_marker pause', 'missing-completion']));
    expect(attr(planner, 'astra.open_ended')).toBeUndefined();
  });

  it('ids are stable sha256 prefixes of the delegation and run ids', async () => {
    const a = await otlp(['--sessions', JOIN, '--all']);
    const b = await otlp(['--sessions', JOIN, '--all']);
    expect(a.raw).toBe(b.raw);
    const r = root(a.spans, JOIN_ID);
    const sha = (parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex');
    expect(r.traceId).toBe(sha(['trace', JOIN_ID]).slice(0, 32));
    expect(r.spanId).toBe(sha(['delegation', JOIN_ID]).slice(0, 16));
    expect(byRun(a.spans, 'r42-us').spanId).toBe(sha(['sub-run', JOIN_ID, 'r42-us']).slice(0, 16));
  });

  it('keeps nine-digit timestamps exact and ends a delegation without a join at its last event', async () => {
    const input = journal(
      ev.started('2025-11-03T09:00:00.123456789+00:00', { delegation_id: 'open-d', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted('2025-11-03T09:00:01.000000001+00:00', { delegation_id: 'open-d', sub_run_id: 'ra', parent_run_id: 'p', agent_id: 'a' }),
    );
    const { spans } = await otlp(['--stdin'], input);
    const r = root(spans, 'open-d');
    expect(r.startTimeUnixNano).toBe(`${Date.parse('2025-11-03T09:00:00Z') / 1000}123456789`);
    const ra = byRun(spans, 'ra');
    expect(ra.startTimeUnixNano).toBe(`${Date.parse('2025-11-03T09:00:01Z') / 1000}000000001`);
    expect(ra.endTimeUnixNano).toBe(ra.startTimeUnixNano);
    expect(r.endTimeUnixNano).toBe(ra.startTimeUnixNano);
    expect(attr(r, 'astra.open_ended')).toEqual({ boolValue: true });
    expect(attr(ra, 'astra.open_ended')).toEqual({ boolValue: true });
  });

  it('writes intValue only for an int64 it can hold exactly; a larger number is a doubleValue', async () => {
    const input = journal(
      ev.started('2025-11-03T09:00:00Z', { delegation_id: 'big-d', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted('2025-11-03T09:00:01Z', { delegation_id: 'big-d', sub_run_id: 'ra', parent_run_id: 'p', agent_id: 'a', depth: 1e21 }),
      ev.subCompleted('2025-11-03T09:00:02Z', { delegation_id: 'big-d', sub_run_id: 'ra', agent_id: 'a', status: 'completed', output_preview: 'done' }),
      ev.completed('2025-11-03T09:00:03Z', { delegation_id: 'big-d', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1e300, failed: 0, aggregated_status: 'completed' }),
    );
    const { spans, raw } = await otlp(['--stdin'], input);
    expect(attr(root(spans, 'big-d'), 'astra.delegation.succeeded')).toEqual({ doubleValue: 1e300 });
    expect(attr(root(spans, 'big-d'), 'astra.delegation.failed')).toEqual({ intValue: '0' });
    // Every intValue is a decimal int64 (protobuf JSON decoders refuse "1e+21").
    const ints = [...raw.matchAll(/"intValue": "([^"]*)"/g)].map((m) => m[1]);
    expect(ints.length).toBeGreaterThan(0);
    for (const v of ints) {
      expect(v).toMatch(/^-?\d+$/);
      expect(BigInt(v) <= 2n ** 63n - 1n).toBe(true);
    }
  });

  it('replaces a lone surrogate with U+FFFD in span names and attributes (protobuf strings are UTF-8)', async () => {
    const input = journal(
      ev.started('2025-11-03T09:00:00Z', { delegation_id: 'sur-d', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['agent\ud800'] }),
      ev.subStarted('2025-11-03T09:00:01Z', { delegation_id: 'sur-d', sub_run_id: 'ra', parent_run_id: 'p', agent_id: 'agent\ud800' }),
      ev.subCompleted('2025-11-03T09:00:02Z', { delegation_id: 'sur-d', sub_run_id: 'ra', agent_id: 'agent\ud800', status: 'completed', output_preview: 'cut \ud83d' }),
    );
    const { spans, raw } = await otlp(['--stdin'], input);
    expect(raw).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    const ra = byRun(spans, 'ra');
    expect(ra.name).toBe('agent\ufffd attempt 1');
    expect(str(ra, 'astra.sub_run.output_preview')).toBe('cut \ufffd');
    expect(str(ra, 'astra.agent.id')).toBe('agent\ufffd');
  });

  it('sends no empty envelope: a report without spans is {"resourceSpans": []}', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-otlp-'));
    try {
      writeFileSync(path.join(dir, 'empty.jsonl'), '');
      const { doc } = await otlp(['--sessions', dir, '--all']);
      expect(doc).toEqual({ resourceSpans: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
