import type {
  DelegationCompletedEvent,
  DelegationEvent,
  DelegationStartedEvent,
  RetryEvent,
  SubRunCompletedEvent,
  SubRunStartedEvent,
  SyncMarkerEvent,
} from '../journal/types.js';

/** One sub-run (one attempt): its starts, its completions and its place in a retry chain. */
export interface SubRun {
  runId: string;
  agentId: string | null;
  /** Every start journaled for this run id (a second one can follow a resume). */
  starts: SubRunStartedEvent[];
  /** Every completion, in time order; the last one wins (Gen A re-completes after the gate). */
  completions: SubRunCompletedEvent[];
  /** The run this one retries, from `retry_of` or a `delegation_retry` event. */
  retryOf: string | null;
  /** The `delegation_retry` event that created this run, if any. */
  retryEvent: RetryEvent | null;
  /** 1 for an original run, then 2, 3, … along the chain. */
  attempt: number;
  /** pause / resume / cancel_requested markers naming this run. */
  markers: SyncMarkerEvent[];
  /** Delegations started by this run (nested delegation tree). */
  nested: Delegation[];
}

/** A child as the engine counts it: a retry chain folded into its original run. */
export interface Child {
  /** The original run id (attempt 1). */
  key: string;
  agentId: string | null;
  attempts: SubRun[];
  /** The last attempt: the one whose result counts. */
  final: SubRun;
}

export interface Delegation {
  /** The journaled delegation id. */
  id: string;
  /** Unique key: the id, or `id#2`… when one id was reused by several `delegation_started`. */
  key: string;
  /** Earlier uses of this id by the same parent run that started at the same instant (timestamps in whole seconds): instanceKey tells them apart. */
  startTwin?: number;
  started: DelegationStartedEvent | null;
  /** Every `delegation_completed` (normally one); `completed` is the last of them. */
  completions: DelegationCompletedEvent[];
  completed: DelegationCompletedEvent | null;
  pattern: string | null;
  parentRunId: string | null;
  runs: Map<string, SubRun>;
  children: Child[];
  retries: RetryEvent[];
  /** All delegation events of this delegation in (time, file, line) order. */
  events: DelegationEvent[];
  sessions: string[];
  files: string[];
  /** The outer delegation and sub-run when this delegation was started by a sub-run. */
  parent: { delegation: Delegation; runId: string } | null;
  /** Notes for the Limits section that belong to this delegation only. */
  notes: string[];
  /** Events of an earlier use of this id whose start was lost, grouped apart (its start may be in a file not read). */
  earlierUse?: Delegation;
}

export const TERMINAL_STATUSES = new Set(['completed', 'failed', 'cancelled', 'verification_failed']);
/** Sub-run states that do not settle a run (journal-format §3.2: Gen A forced them through as completions). */
export const NON_TERMINAL_STATUSES = new Set(['created', 'running', 'waiting', 'paused']);

/**
 * Whether a completion with this status settles its run. A status that is no sub-run state (or
 * none at all) does: the engine maps unknown results to failed (Gen C) or falls back to Failed
 * (Gen A `from_str`), so it is a failure, never a run that "never completed".
 */
export const settlesRun = (status: string | null): boolean => status === null || !NON_TERMINAL_STATUSES.has(status);

/** Gen A's forced-through completions that leave a run unfinished, not failed: `paused`, `waiting`. */
export const isPausedStatus = (status: string | null): boolean => status === 'paused' || status === 'waiting';

/** A completion status that is no sub-run state at all (`rejected`, a number, none). */
export const isUnknownStatus = (status: string | null): boolean => status === null || (!TERMINAL_STATUSES.has(status) && !NON_TERMINAL_STATUSES.has(status));

/** Final completion of a run (the last one journaled), or null when it never completed. */
export function finalCompletion(run: SubRun): SubRunCompletedEvent | null {
  return run.completions.length > 0 ? run.completions[run.completions.length - 1] : null;
}

export function finalStatus(run: SubRun): string | null {
  return finalCompletion(run)?.status ?? null;
}

/** Success as the engine counts it: status completed and no error (`is_success()`). */
export function isSuccess(run: SubRun): boolean {
  const c = finalCompletion(run);
  return !!c && c.status === 'completed' && c.error === null; // an empty error string is still an error (is_success)
}

export function firstStart(run: SubRun): SubRunStartedEvent | null {
  return run.starts[0] ?? null;
}

/**
 * Names one use of a delegation id for as long as a process runs (follow mode's bookkeeping): its
 * id, parent run and start `ts`; an orphan, its key. `key`'s `#n` counts uses in start order, so a
 * use that sorts earlier (a session copied in later) renumbers the ones after it; this does not.
 */
export function instanceKey(d: Delegation): string {
  if (!d.started) return orphanInstanceKey(d.key);
  return `${d.id}\u0000${d.parentRunId ?? ''}\u0000${startInstant(d.started)}\u0000${d.startTwin ?? 0}`;
}

/** An orphan's instanceKey: the key, as it has no start to name it by. */
export const orphanInstanceKey = (key: string): string => `\u0001${key}`;

/** A start's instant as text, or its `ts` when that does not parse: `….1Z` and `….100000000+00:00` are the same start. */
export function startInstant(e: DelegationStartedEvent): string {
  return e.time ? `${e.time.ms}.${e.time.subNs}` : e.ts;
}
