import { parseTimestamp } from './time.js';
import type { DelegationEventType, JournalEvent } from './types.js';

/** Both spellings the field has seen (engine snake_case, skill PascalCase) → one canonical type. */
export const TYPE_ALIASES: ReadonlyMap<string, JournalEvent['type']> = new Map([
  ['delegation_started', 'delegation_started'],
  ['DelegationStarted', 'delegation_started'],
  ['delegation_sub_run_started', 'delegation_sub_run_started'],
  ['DelegationSubRunStarted', 'delegation_sub_run_started'],
  ['delegation_retry', 'delegation_retry'],
  ['DelegationRetry', 'delegation_retry'],
  ['delegation_sub_run_completed', 'delegation_sub_run_completed'],
  ['DelegationSubRunCompleted', 'delegation_sub_run_completed'],
  ['delegation_completed', 'delegation_completed'],
  ['DelegationCompleted', 'delegation_completed'],
  ['sync_marker', 'sync_marker'],
  ['SyncMarker', 'sync_marker'],
  ['session_end', 'session_end'],
  ['SessionEnd', 'session_end'],
]);

export type NormalizeResult =
  | { kind: 'event'; event: JournalEvent }
  | { kind: 'ignored' }
  | { kind: 'malformed' }
  | { kind: 'missing-field'; field: string };

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
/**
 * Keeps the absent / null / string distinction previews need (Gen 0 has no preview keys). A
 * preview of another type (a number, an object) is unknown, as absent is: it is not a null output.
 */
const preview = (m: Record<string, unknown>, key: string): string | null | undefined => {
  const v = m[key];
  return typeof v === 'string' ? v : v === null ? null : undefined;
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface LineOrigin {
  file: string;
  line: number;
  fileIndex: number;
}

/** Turns one parsed journal line into a canonical event, or says why it cannot be one. */
export function normalizeLine(value: unknown, origin: LineOrigin): NormalizeResult {
  if (!isObject(value)) return { kind: 'malformed' };
  const type = typeof value.type === 'string' ? TYPE_ALIASES.get(value.type) : undefined;
  if (!type) return { kind: 'ignored' };
  const ts = typeof value.ts === 'string' ? value.ts : '';
  // Built field by field: `{ ...origin, ts, … }` hits a slow path in V8 (~6 µs a call on the scan's hot path).
  const base = {
    file: origin.file,
    line: origin.line,
    fileIndex: origin.fileIndex,
    ts,
    time: parseTimestamp(ts),
    sessionId: str(value.session_id),
  };
  if (type === 'session_end') return { kind: 'event', event: { type, ...base } };
  const m = value.metadata;
  // A sync_marker without metadata is not a run marker (Option fields are omitted when None): not ours.
  if (m === undefined && type === 'sync_marker') return { kind: 'ignored' };
  if (!isObject(m)) return m === undefined ? { kind: 'missing-field', field: 'metadata' } : { kind: 'malformed' };
  if (type === 'sync_marker') {
    const action = str(m.action);
    const runId = str(m.run_id);
    // Only run-scoped markers (pause / resume / cancel_requested) matter; others are not ours.
    if (!action || !runId) return { kind: 'ignored' };
    return { kind: 'event', event: { type, ...base, action, runId } };
  }
  const delegationId = str(m.delegation_id);
  if (!delegationId) return { kind: 'missing-field', field: 'metadata.delegation_id' };
  return normalizeDelegation(type, m, { file: base.file, line: base.line, fileIndex: base.fileIndex, ts, time: base.time, sessionId: base.sessionId, delegationId });
}

function normalizeDelegation(
  type: DelegationEventType,
  m: Record<string, unknown>,
  base: Omit<JournalEvent, 'type'> & { delegationId: string },
): NormalizeResult {
  switch (type) {
    case 'delegation_started':
      return {
        kind: 'event',
        event: {
          type,
          ...base,
          parentRunId: str(m.parent_run_id),
          pattern: str(m.pattern),
          agentIds: Array.isArray(m.agent_ids) ? m.agent_ids.filter((a): a is string => typeof a === 'string') : [],
          agentCount: int(m.agent_count),
        },
      };
    case 'delegation_sub_run_started': {
      const subRunId = str(m.sub_run_id);
      if (!subRunId) return { kind: 'missing-field', field: 'metadata.sub_run_id' };
      return {
        kind: 'event',
        event: {
          type,
          ...base,
          subRunId,
          parentRunId: str(m.parent_run_id),
          agentId: str(m.agent_id),
          status: str(m.status),
          depth: int(m.depth),
          retryOf: str(m.retry_of),
        },
      };
    }
    case 'delegation_retry':
      return {
        kind: 'event',
        event: {
          type,
          ...base,
          originalRunId: str(m.original_run_id),
          retryRunId: str(m.retry_run_id),
          agentId: str(m.agent_id),
          attempt: int(m.attempt),
          reason: str(m.reason),
        },
      };
    case 'delegation_sub_run_completed': {
      const subRunId = str(m.sub_run_id);
      if (!subRunId) return { kind: 'missing-field', field: 'metadata.sub_run_id' };
      return {
        kind: 'event',
        event: {
          type,
          ...base,
          subRunId,
          agentId: str(m.agent_id),
          status: str(m.status),
          error: str(m.error),
          outputPreview: preview(m, 'output_preview'),
        },
      };
    }
    case 'delegation_completed':
      return {
        kind: 'event',
        event: {
          type,
          ...base,
          pattern: str(m.pattern),
          totalSubRuns: int(m.total_sub_runs),
          succeeded: int(m.succeeded),
          failed: int(m.failed),
          aggregatedStatus: str(m.aggregated_status),
          aggregatedOutputPreview: preview(m, 'aggregated_output_preview'),
        },
      };
  }
}
