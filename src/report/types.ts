import type { Finding } from '../checks/types.js';
import type { Location } from '../journal/types.js';

/** Bumped on any breaking change to the JSON document (docs/json.md). */
export const SCHEMA_VERSION = 1;

export type TimelineKind = 'started' | 'sub-run started' | 'retry' | 'sub-run completed' | 'delegation completed' | 'marker';

export interface TimelineEntry {
  /** The journal's own timestamp string, in its own precision. */
  ts: string;
  /** ISO instant (milliseconds) for machines; null when `ts` did not parse. */
  time: string | null;
  kind: TimelineKind;
  /** The rest of the skill's timeline line after the timestamp, e.g. `sub-run completed: r-1 status=failed`. */
  text: string;
  runId: string | null;
  file: string;
  line: number;
}

/** A sync_marker naming a run, in journal order. */
export interface Marker {
  action: string;
  ts: string;
  file: string;
  line: number;
}

export interface AttemptReport {
  runId: string;
  agentId: string | null;
  /** 1 for the original run, 2, 3 … for retries. */
  attempt: number;
  retryOf: string | null;
  retryReason: string | null;
  /** `attempt` as journaled on the delegation_retry that created this run (null without one). */
  retryAttempt: number | null;
  depth: number | null;
  status: string | null;
  error: string | null;
  outputPreview: string | null;
  startTs: string | null;
  /** Epoch ms (fractional), for timelines; null when not journaled or not parseable. */
  startMs: number | null;
  endTs: string | null;
  endMs: number | null;
  /** Started but never settled: drawn as an open-ended bar. */
  open: boolean;
  markers: Marker[];
  nested: string[];
  evidence: Location[];
}

export interface ChildReport {
  key: string;
  agentId: string | null;
  finalRunId: string;
  finalStatus: string | null;
  attempts: AttemptReport[];
}

export interface DelegationReport {
  id: string;
  key: string;
  pattern: string | null;
  parentRunId: string | null;
  /** Key of the outer delegation when this one was started by a sub-run. */
  parentDelegation: string | null;
  nested: string[];
  agents: string[];
  expected: string;
  expectedCount: number | null;
  sessions: string[];
  files: string[];
  startedTs: string | null;
  startedMs: number | null;
  completedTs: string | null;
  completedMs: number | null;
  status: {
    aggregated: string | null;
    totalSubRuns: number | null;
    succeeded: number | null;
    failed: number | null;
    aggregatedOutputPreview: string | null;
  };
  children: ChildReport[];
  timeline: TimelineEntry[];
  findings: Finding[];
  limits: string[];
}

export interface ScanStats {
  files: number;
  bytes: number;
  lines: number;
  candidateLines: number;
  events: number;
  malformedLines: number;
  partialLines: number;
  missingFieldLines: number;
  badTimestampLines: number;
  duplicateLines: number;
  unreadableFiles: number;
  /** Lines that may be delegation events, too long for a JavaScript string (≈ 512 MiB): not parsed. */
  oversizedLines: number;
  durationMs: number;
}

/** What the query named (docs/json.md `target.kind`); `follow` is a report --follow prints. */
export type ReportTargetKind = 'delegation' | 'parent-run' | 'session' | 'prefix' | 'last' | 'all' | 'follow';

export interface TraceReport {
  schemaVersion: typeof SCHEMA_VERSION;
  tool: { name: 'trace-delegation'; version: string };
  target: { query: string; kind: ReportTargetKind };
  delegations: DelegationReport[];
  summary: { delegations: number; error: number; warning: number; info: number };
  /** Limits that concern the whole scan (unreadable files, skipped lines). */
  limits: string[];
  stats: ScanStats;
}
