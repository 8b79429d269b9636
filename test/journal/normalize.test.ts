import { describe, expect, it } from 'vitest';
import { normalizeLine, TYPE_ALIASES } from '../../src/journal/normalize.js';
import { DELEGATION_EVENT_TYPES } from '../../src/journal/types.js';

const origin = { file: 'a.jsonl', line: 7, fileIndex: 2 };
const TS = '2025-11-03T09:15:06.517884203+00:00';

const norm = (value: unknown) => normalizeLine(value, origin);
const event = (value: unknown) => {
  const r = norm(value);
  if (r.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(r)}`);
  return r.event;
};

describe('normalizeLine: type spellings', () => {
  it.each([
    ['delegation_started', 'DelegationStarted'],
    ['delegation_sub_run_started', 'DelegationSubRunStarted'],
    ['delegation_retry', 'DelegationRetry'],
    ['delegation_sub_run_completed', 'DelegationSubRunCompleted'],
    ['delegation_completed', 'DelegationCompleted'],
  ])('%s and %s become the same canonical event', (snake, pascal) => {
    const metadata = { delegation_id: 'd-1', sub_run_id: 'r-1' };
    const a = event({ type: snake, ts: TS, session_id: 's', metadata });
    const b = event({ type: pascal, ts: TS, session_id: 's', metadata });
    expect(a.type).toBe(snake);
    expect(b).toEqual(a);
  });

  it('covers every delegation event type in both spellings', () => {
    for (const t of DELEGATION_EVENT_TYPES) expect(TYPE_ALIASES.get(t)).toBe(t);
    expect([...TYPE_ALIASES.keys()].filter((k) => /^[A-Z]/.test(k))).toHaveLength(TYPE_ALIASES.size / 2);
  });

  it('ignores other event types and lines without a string type', () => {
    expect(norm({ type: 'llm_round', ts: TS, metadata: { delegation_id: 'd-1' } })).toEqual({ kind: 'ignored' });
    expect(norm({ type: 'delegation_Started', ts: TS, metadata: { delegation_id: 'd-1' } })).toEqual({ kind: 'ignored' });
    expect(norm({ ts: TS, metadata: { delegation_id: 'd-1' } })).toEqual({ kind: 'ignored' });
    expect(norm({ type: 42 })).toEqual({ kind: 'ignored' });
  });

  it('calls non-object lines malformed', () => {
    for (const v of [null, 3, 'delegation_started', ['delegation_started']]) expect(norm(v)).toEqual({ kind: 'malformed' });
  });
});

describe('normalizeLine: envelope', () => {
  it('keeps the raw ts, parses it, and carries file, line and file index', () => {
    const e = event({ type: 'delegation_retry', ts: TS, session_id: 'sess-9', metadata: { delegation_id: 'd-1' } });
    expect(e).toMatchObject({ ts: TS, time: { ms: Date.UTC(2025, 10, 3, 9, 15, 6, 517), subNs: 884203 }, file: 'a.jsonl', line: 7, fileIndex: 2, sessionId: 'sess-9' });
  });

  it('keeps an event whose ts does not parse, with time null', () => {
    const e = event({ type: 'delegation_completed', ts: 'soon', metadata: { delegation_id: 'd-1' } });
    expect(e.ts).toBe('soon');
    expect(e.time).toBeNull();
    expect(event({ type: 'delegation_completed', metadata: { delegation_id: 'd-1' } }).ts).toBe('');
  });

  it('session_id is null when absent or not a string', () => {
    expect(event({ type: 'delegation_retry', ts: TS, metadata: { delegation_id: 'd' } }).sessionId).toBeNull();
    expect(event({ type: 'delegation_retry', ts: TS, session_id: 5, metadata: { delegation_id: 'd' } }).sessionId).toBeNull();
  });

  it('a missing metadata is a missing field; a non-object metadata is malformed', () => {
    expect(norm({ type: 'delegation_started', ts: TS })).toEqual({ kind: 'missing-field', field: 'metadata' });
    for (const metadata of [null, 'x', 3, ['delegation_id']]) {
      expect(norm({ type: 'delegation_started', ts: TS, metadata })).toEqual({ kind: 'malformed' });
      expect(norm({ type: 'sync_marker', ts: TS, metadata })).toEqual({ kind: 'malformed' });
    }
  });

  it('a sync_marker without metadata is not a run marker: ignored, not a delegation line missing a field', () => {
    expect(norm({ type: 'sync_marker', ts: TS, session_id: 'x' })).toEqual({ kind: 'ignored' });
    expect(norm({ type: 'SyncMarker', ts: TS })).toEqual({ kind: 'ignored' });
  });

  it('non-object metadata on other event types is none of our business', () => {
    expect(norm({ type: 'turn', ts: TS, metadata: 'x' })).toEqual({ kind: 'ignored' });
  });

  it('needs a string delegation_id, and a sub_run_id on sub-run events', () => {
    expect(norm({ type: 'delegation_started', ts: TS, metadata: { pattern: 'fan_out' } })).toEqual({ kind: 'missing-field', field: 'metadata.delegation_id' });
    expect(norm({ type: 'delegation_started', ts: TS, metadata: { delegation_id: 7 } })).toEqual({ kind: 'missing-field', field: 'metadata.delegation_id' });
    expect(norm({ type: 'delegation_sub_run_started', ts: TS, metadata: { delegation_id: 'd' } })).toEqual({ kind: 'missing-field', field: 'metadata.sub_run_id' });
    expect(norm({ type: 'delegation_sub_run_completed', ts: TS, metadata: { delegation_id: 'd', sub_run_id: null } })).toEqual({ kind: 'missing-field', field: 'metadata.sub_run_id' });
  });
});

describe('normalizeLine: payloads', () => {
  it('delegation_started', () => {
    const e = event({ type: 'delegation_started', ts: TS, metadata: { agent_count: 1, agent_ids: ['tester×3', 7, null], delegation_id: 'd', parent_run_id: 'p', pattern: 'fork' } });
    expect(e).toMatchObject({ type: 'delegation_started', delegationId: 'd', parentRunId: 'p', pattern: 'fork', agentIds: ['tester×3'], agentCount: 1 });
  });

  it('delegation_started with odd values falls back to null / []', () => {
    const e = event({ type: 'delegation_started', ts: TS, metadata: { agent_count: 2.5, agent_ids: 'coder', delegation_id: 'd', parent_run_id: 3 } });
    expect(e).toMatchObject({ parentRunId: null, pattern: null, agentIds: [], agentCount: null });
  });

  it('delegation_sub_run_started', () => {
    const e = event({ type: 'delegation_sub_run_started', ts: TS, metadata: { agent_id: 'coder', delegation_id: 'd', depth: 2, parent_run_id: 'p', retry_of: 'r-0', status: 'running', sub_run_id: 'r-1' } });
    expect(e).toMatchObject({ subRunId: 'r-1', parentRunId: 'p', agentId: 'coder', status: 'running', depth: 2, retryOf: 'r-0' });
    const plain = event({ type: 'delegation_sub_run_started', ts: TS, metadata: { delegation_id: 'd', retry_of: null, sub_run_id: 'r-1' } });
    expect(plain).toMatchObject({ retryOf: null, depth: null, agentId: null });
  });

  it('delegation_retry keeps a missing attempt as null (not the CLI default of 2)', () => {
    const e = event({ type: 'delegation_retry', ts: TS, metadata: { agent_id: 'coder', delegation_id: 'd', original_run_id: 'r-1', reason: 'too short', retry_run_id: 'r-2' } });
    expect(e).toMatchObject({ originalRunId: 'r-1', retryRunId: 'r-2', agentId: 'coder', attempt: null, reason: 'too short' });
  });

  it('sub-run completion keeps absent, null and string previews apart (Gen 0 has no key)', () => {
    const base = { delegation_id: 'd', sub_run_id: 'r', agent_id: 'a', status: 'failed', error: 'boom' };
    const absent = event({ type: 'delegation_sub_run_completed', ts: TS, metadata: base });
    const nulled = event({ type: 'delegation_sub_run_completed', ts: TS, metadata: { ...base, output_preview: null } });
    const text = event({ type: 'delegation_sub_run_completed', ts: TS, metadata: { ...base, output_preview: 'partial output' } });
    expect(absent).toMatchObject({ status: 'failed', error: 'boom', outputPreview: undefined });
    expect('outputPreview' in absent && (absent as { outputPreview: unknown }).outputPreview).toBeUndefined();
    expect(nulled).toMatchObject({ outputPreview: null });
    expect(text).toMatchObject({ outputPreview: 'partial output' });
  });

  it('delegation_completed', () => {
    const e = event({ type: 'delegation_completed', ts: TS, metadata: { aggregated_output_preview: 'a\n---\nb', aggregated_status: 'partial', delegation_id: 'd', failed: 1, pattern: 'fan_out', succeeded: 1, total_sub_runs: 2 } });
    expect(e).toMatchObject({ pattern: 'fan_out', totalSubRuns: 2, succeeded: 1, failed: 1, aggregatedStatus: 'partial', aggregatedOutputPreview: 'a\n---\nb' });
    const gen0 = event({ type: 'delegation_completed', ts: TS, metadata: { delegation_id: 'd', total_sub_runs: '2' } });
    expect(gen0).toMatchObject({ totalSubRuns: null, aggregatedOutputPreview: undefined });
  });

  it('sync_marker: run-scoped markers are kept, others ignored', () => {
    expect(event({ type: 'sync_marker', ts: TS, metadata: { action: 'pause', run_id: 'r-1' } })).toMatchObject({ type: 'sync_marker', action: 'pause', runId: 'r-1' });
    expect(event({ type: 'SyncMarker', ts: TS, metadata: { action: 'cancel_requested', run_id: 'r-1' } })).toMatchObject({ type: 'sync_marker', action: 'cancel_requested' });
    expect(norm({ type: 'sync_marker', ts: TS, metadata: { action: 'checkpoint' } })).toEqual({ kind: 'ignored' });
  });

  it('session_end needs no metadata', () => {
    expect(event({ type: 'session_end', ts: TS, turn: 3 })).toMatchObject({ type: 'session_end', line: 7 });
    expect(event({ type: 'SessionEnd', ts: TS, metadata: 'odd' }).type).toBe('session_end');
  });
});
