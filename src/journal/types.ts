// Canonical journal events: what the rest of the tool sees after normalization.

/** A parsed RFC 3339 instant: epoch milliseconds plus the sub-millisecond nanoseconds Date drops. */
export interface Instant {
  ms: number;
  /** 0..999999: nanoseconds below the millisecond, so 9-digit fractions still order correctly. */
  subNs: number;
}

/** Where an event came from: a journal file (display path) and its 1-based line number. */
export interface Location {
  file: string;
  line: number;
}

export const DELEGATION_EVENT_TYPES = [
  'delegation_started',
  'delegation_sub_run_started',
  'delegation_retry',
  'delegation_sub_run_completed',
  'delegation_completed',
] as const;

export type DelegationEventType = (typeof DELEGATION_EVENT_TYPES)[number];

interface EventBase extends Location {
  /** The `ts` string exactly as written (reports print the journal's own precision). */
  ts: string;
  /** Parsed `ts`; null when it does not parse (the event is then ordered by file position). */
  time: Instant | null;
  /**
   * Only when `time` is null: the time of the last delegation event before it in its file that
   * has one (null when none), where it is ordered. Set by the scan, so every way of reading
   * (whole, indexed, followed) orders it alike.
   */
  after?: Instant | null;
  /** Index of the file in scan order; breaks ties between equal timestamps. */
  fileIndex: number;
  sessionId: string | null;
}

export interface DelegationStartedEvent extends EventBase {
  type: 'delegation_started';
  delegationId: string;
  parentRunId: string | null;
  pattern: string | null;
  agentIds: string[];
  /** null when absent or not an integer. */
  agentCount: number | null;
}

export interface SubRunStartedEvent extends EventBase {
  type: 'delegation_sub_run_started';
  delegationId: string;
  subRunId: string;
  parentRunId: string | null;
  agentId: string | null;
  status: string | null;
  depth: number | null;
  retryOf: string | null;
}

export interface RetryEvent extends EventBase {
  type: 'delegation_retry';
  delegationId: string;
  originalRunId: string | null;
  retryRunId: string | null;
  agentId: string | null;
  /** The attempt number as journaled; null when absent (the CLI projection would assume 2). */
  attempt: number | null;
  reason: string | null;
}

export interface SubRunCompletedEvent extends EventBase {
  type: 'delegation_sub_run_completed';
  delegationId: string;
  subRunId: string;
  agentId: string | null;
  status: string | null;
  error: string | null;
  /** undefined = key absent (Gen 0), null = key present and null. */
  outputPreview: string | null | undefined;
}

export interface DelegationCompletedEvent extends EventBase {
  type: 'delegation_completed';
  delegationId: string;
  pattern: string | null;
  totalSubRuns: number | null;
  succeeded: number | null;
  failed: number | null;
  aggregatedStatus: string | null;
  /** undefined = key absent (Gen 0), null = key present and null. */
  aggregatedOutputPreview: string | null | undefined;
}

/** `sync_marker` events carry pause / resume / cancel_requested for a sub-run. */
export interface SyncMarkerEvent extends EventBase {
  type: 'sync_marker';
  action: string;
  runId: string;
}

export interface SessionEndEvent extends EventBase {
  type: 'session_end';
}

export type DelegationEvent =
  | DelegationStartedEvent
  | SubRunStartedEvent
  | RetryEvent
  | SubRunCompletedEvent
  | DelegationCompletedEvent;

export type JournalEvent = DelegationEvent | SyncMarkerEvent | SessionEndEvent;

/** Per-file reading statistics; every skipped or odd line is counted, never fatal. */
export interface FileStats {
  file: string;
  fileIndex: number;
  bytes: number;
  lines: number;
  candidateLines: number;
  malformedLines: number;
  /** A delegation or sync_marker line that parsed but lacked a required field. */
  missingFieldLines: number;
  /** Candidate events whose `ts` did not parse. */
  badTimestampLines: number;
  /** 1 when the last line has no trailing newline (possibly still being written). */
  partialLines: number;
  /** Candidate lines longer than a JavaScript string can hold (≈ 512 MiB), which cannot be parsed. */
  oversizedLines: number;
  /** Exact repeats of a line already read from another journal of the session (its .jsonl / .jsonl.gz sibling, or its copy in the other layout). */
  duplicateLines: number;
  /** The delegation ids those repeated lines carry (up to DUPLICATE_IDS_KEPT, then MANY_DUPLICATE_IDS): the delegations whose lines were read once, from the other journal. */
  duplicateIds: string[];
  /** Line number of the last non-blank line. */
  lastLine: number;
  /** Line number of the last non-blank line that ended with its newline (a partial last line is not one). */
  lastWholeLine: number;
  /** The newest `ts` among the file's delegation events (turn-buffered lines can end a file with an older one), and its line. */
  newestEventTime: Instant | null;
  newestEventLine: number;
  /** The `ts` of the last non-blank line, when it has one. */
  lastTs: string | null;
  lastTime: Instant | null;
  /** The `ts` of the last whole line (lastWholeLine), when it has one: a partial last line's is lastTime's only. */
  lastWholeTime: Instant | null;
  mtimeMs: number;
  /** Set when the file could not be read at all (or only partly, e.g. a corrupt gzip). */
  error: string | null;
  /** Something wrong that cost no line: an archive whose checksum or trailing bytes are damaged after its data. */
  note: string | null;
}

export interface ScanResult {
  events: JournalEvent[];
  files: FileStats[];
  /** Events counted when `events` was not kept (the streamed `--all` keeps an index instead). */
  eventCount?: number;
}

/** In FileStats.duplicateIds past its cap: the repeated lines carry more ids than were kept, so the note goes to every delegation of the session. */
export const MANY_DUPLICATE_IDS = '\u0000many';
