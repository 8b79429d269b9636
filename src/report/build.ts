import type { Finding } from '../checks/types.js';
import { instantToIso } from '../journal/time.js';
import type { DelegationCompletedEvent, FileStats, Instant, JournalEvent } from '../journal/types.js';
import { finalCompletion, isUnknownStatus, settlesRun, type Delegation, type SubRun } from '../model/delegation.js';
import { everyExpectedChildStarted, hasSubRunEvents, journalsRepeating, loc } from '../model/evidence.js';
import { expectationFor } from '../model/expected.js';
import { sortEvents } from '../model/group.js';
import type { AttemptReport, ChildReport, DelegationReport, TimelineEntry } from './types.js';

const ms = (t: Instant | null): number | null => (t ? t.ms + t.subNs / 1e6 : null);
const show = (v: unknown): string => (v === null || v === undefined ? '?' : String(v));

/** Everything the journal cannot tell, always stated (seed skill: Limits). */
export const STANDARD_LIMITS = [
  'Per-sub-run token counts are not journaled (no delegation event carries tokens).',
  'The aggregation strategy, stop_on_success and timeouts are not journaled.',
  'Sub-run completion timestamps may be recording times, not finish times (some engine versions write all completions after the batch).',
];

export function buildDelegationReport(d: Delegation, findings: Finding[], files: Map<string, FileStats>, extraLimits: string[] = []): DelegationReport {
  const e = expectationFor(d);
  return {
    id: d.id,
    key: d.key,
    pattern: d.pattern,
    parentRunId: d.parentRunId ?? orphanParentRun(d),
    parentDelegation: d.parent?.delegation.key ?? null,
    nested: [...d.runs.values()].flatMap((r) => r.nested.map((n) => n.key)),
    agents: d.started?.agentIds ?? [],
    expected: e.label,
    expectedCount: e.count,
    sessions: d.sessions,
    files: d.files,
    startedTs: d.started?.ts ?? null,
    startedMs: ms(d.started?.time ?? null),
    completedTs: d.completed?.ts ?? null,
    completedMs: ms(d.completed?.time ?? null),
    status: {
      aggregated: d.completed?.aggregatedStatus ?? null,
      totalSubRuns: d.completed?.totalSubRuns ?? null,
      succeeded: d.completed?.succeeded ?? null,
      failed: d.completed?.failed ?? null,
      aggregatedOutputPreview: d.completed?.aggregatedOutputPreview ?? null,
    },
    children: d.children.map(childReport),
    timeline: timeline(d),
    findings,
    limits: delegationLimits(d, files, extraLimits),
  };
}

function childReport(c: Delegation['children'][number]): ChildReport {
  return {
    key: c.key,
    agentId: c.agentId,
    finalRunId: c.final.runId,
    finalStatus: finalCompletion(c.final)?.status ?? null,
    attempts: c.attempts.map(attemptReport),
  };
}

/** With no delegation_started (an orphan), the parent run its sub-run starts name, when they name one. */
function orphanParentRun(d: Delegation): string | null {
  if (d.started) return null;
  let parent: string | null = null;
  for (const run of d.runs.values()) {
    for (const s of run.starts) {
      if (s.parentRunId === null || s.parentRunId === parent) continue;
      if (parent !== null) return null; // they disagree: none is the delegation's
      parent = s.parentRunId;
    }
  }
  return parent;
}

function attemptReport(run: SubRun): AttemptReport {
  const start = run.starts[0] ?? null;
  const end = finalCompletion(run);
  return {
    runId: run.runId,
    agentId: run.agentId,
    attempt: run.attempt,
    retryOf: run.retryOf,
    retryReason: run.retryEvent?.reason ?? null,
    retryAttempt: run.retryEvent?.attempt ?? null,
    depth: start?.depth ?? null,
    status: end?.status ?? null,
    error: end?.error ?? null,
    outputPreview: end?.outputPreview ?? null,
    startTs: start?.ts ?? null,
    startMs: ms(start?.time ?? null),
    endTs: end?.ts ?? null,
    endMs: ms(end?.time ?? null),
    open: !!start && !run.completions.some((c) => settlesRun(c.status)), // a Gen A paused or waiting completion leaves it open
    markers: run.markers.map((m) => ({ action: m.action, ts: m.ts, file: m.file, line: m.line })),
    nested: run.nested.map((n) => n.key),
    evidence: [...(run.retryEvent ? [run.retryEvent] : []), ...run.starts, ...run.completions].map(loc),
  };
}

/** What the CLI projection shows for a delegation_retry without `attempt` (journal-format.md §4, §7); Limits says so. */
const PROJECTED_ATTEMPT = 2;

/** One entry per journaled event, in the skill's wording, plus run markers. */
export function timeline(d: Delegation): TimelineEntry[] {
  const markers = [...d.runs.values()].flatMap((r) => r.markers);
  const events = sortEvents<JournalEvent>([...d.events, ...markers]);
  // Entries are built as one literal (same key order): `{ ...base, kind, … }` is a V8 slow path.
  const entry = (ev: JournalEvent, kind: string, text: string, runId: string | null) => ({ ts: ev.ts, time: ev.time ? instantToIso(ev.time) : null, file: ev.file, line: ev.line, kind, text, runId });
  return events.map((ev) => {
    switch (ev.type) {
      case 'delegation_started':
        return entry(ev, 'started', `started: agents=${ev.agentIds.join(',')}`, null);
      case 'delegation_sub_run_started':
        return entry(ev, 'sub-run started', `sub-run started: ${ev.subRunId} agent=${show(ev.agentId)} depth=${show(ev.depth)} retry_of=${ev.retryOf ?? '-'}`, ev.subRunId);
      case 'delegation_retry':
        return entry(ev, 'retry', `retry: ${show(ev.originalRunId)} -> ${show(ev.retryRunId)} attempt=${ev.attempt ?? PROJECTED_ATTEMPT} reason=${show(ev.reason)}`, ev.retryRunId);
      case 'delegation_sub_run_completed':
        return entry(ev, 'sub-run completed', `sub-run completed: ${ev.subRunId} status=${show(ev.status)}`, ev.subRunId);
      case 'delegation_completed':
        return entry(ev, 'delegation completed', `delegation completed: succeeded=${show(ev.succeeded)} failed=${show(ev.failed)} status=${show(ev.aggregatedStatus)}`, null);
      case 'sync_marker':
        return entry(ev, 'marker', `marker: ${ev.action} run=${ev.runId}`, ev.runId);
      default:
        return entry(ev, 'marker', ev.type, null);
    }
  }) as TimelineEntry[];
}

/**
 * Why a started delegation has no sub-run event. A join that counts no sub-run (total_sub_runs 0:
 * no agent named, or more than 32, or a failed model admission, journal-format §9) had none to
 * journal; otherwise the engine's tracker was not bound to a session (CHECKS.md resolved detail 1).
 */
function noSubRunEventsLimit(d: Delegation): string {
  const skipped = 'start, completion, totals and retry checks were skipped.';
  if (d.completed?.totalSubRuns === 0)
    return `No sub-run event was journaled for this delegation, and its completion counts none (total_sub_runs 0: no agent was started, as when none was named or the delegation failed before starting one); ${skipped}`;
  // Open: delegation-incomplete names the likelier cause (still running, cut short); the tracker is only one of them.
  if (!d.completed) return `No sub-run event was journaled for this delegation, which has no delegation_completed either (its sub-runs may not have been written yet, or the journal was cut short; else the engine's tracker was not bound to a session); ${skipped}`;
  return `No sub-run event was journaled for this delegation (the engine's tracker was not bound to a session); ${skipped}`;
}

function stagesLeftUnstarted(d: Delegation): boolean {
  return !everyExpectedChildStarted(d, expectationFor(d).agentCounts);
}

function delegationLimits(d: Delegation, files: Map<string, FileStats>, extra: string[]): string[] {
  const out = [...STANDARD_LIMITS];
  if (d.started && !hasSubRunEvents(d)) out.push(noSubRunEventsLimit(d));
  // Only a sequential delegation whose later stages never ran says anything about stop_on_success.
  if (d.pattern === 'sequential' && d.completed && stagesLeftUnstarted(d)) out.push('Whether stop_on_success was set is inferred from which stages ran.');
  // journal-format §9: rounds are not journaled, so the expectation comes from the totals.
  if (d.pattern === 'adversarial_review')
    out.push(`max_rounds is not journaled: the expected children are ${d.completed?.totalSubRuns != null ? `total_sub_runs (${d.completed.totalSubRuns}), producer and reviewer alternating` : 'unknown until delegation_completed gives total_sub_runs'}; a round that never started is counted there, not reported as missing-start.`);
  // Loops, not push(...list): a spread passes each item as an argument, and a delegation can
  // carry 100,000s of notes (one per repeated delegation_started), past the call stack's limit.
  for (const note of d.notes) out.push(note);
  for (const run of d.runs.values()) {
    for (const c of run.completions) {
      if (!isUnknownStatus(c.status)) continue;
      const status = c.status === null ? 'is missing or not a string' : `${JSON.stringify(c.status)} is no sub-run state`;
      out.push(`Sub-run ${run.runId}: its completion's status ${status} (${c.file}:${c.line}); it is counted as a failure, as the engine counts an unknown result.`);
    }
  }
  for (const e of d.events) {
    if (e.type === 'delegation_retry' && e.attempt === null)
      out.push(`The delegation_retry at ${e.file}:${e.line} has no attempt number (missing or not an integer); the timeline shows ${PROJECTED_ATTEMPT}, the CLI projection's default, and retry-attempt-gap does not judge it.`);
  }
  const join = d.completed;
  if (join) for (const l of unreadableJoinFields(join)) out.push(l);
  for (const l of missingPreviews(d)) out.push(l);
  if (d.started && d.started.agentCount === null)
    out.push(`The delegation_started at ${d.started.file}:${d.started.line} has agent_count missing or not an integer (the engine writes one): agent-set-mismatch could not compare it with agent_ids.`);
  const untimed = d.events.filter((e) => !e.time).length;
  if (untimed > 0) out.push(`${untimed} ${untimed === 1 ? 'event has' : 'events have'} a timestamp that does not parse; ordered by file position.`);
  for (const f of d.files) {
    const st = files.get(f);
    // Its own untimed events are counted above; the file's count may be another delegation's.
    if (st) for (const l of fileLimits(st, { untimed: false, duplicates: false })) out.push(l);
  }
  // Lines of its own that another journal repeated were read once, from its file: the note names the repeating one.
  for (const st of journalsRepeating(d, files)) out.push(duplicateLimit(st));
  for (const l of extra) out.push(l);
  return out;
}

/** What the engine always writes on delegation_completed (journal-format §2.5, §3.3). */
const AGGREGATED_STATUSES = new Set(['completed', 'partial', 'failed', 'unfinished']);

/** Totals or a status the checks could not read: without this line their silence would read as agreement. */
function unreadableJoinFields(c: DelegationCompletedEvent): string[] {
  const at = `${c.file}:${c.line}`;
  const out: string[] = [];
  const counts = (['total_sub_runs', 'succeeded', 'failed'] as const).filter((k) => (k === 'total_sub_runs' ? c.totalSubRuns : c[k]) === null);
  if (counts.length > 0)
    out.push(`The delegation_completed at ${at} has ${counts.join(', ')} missing or not an integer (the engine writes integers): the checks that compare ${counts.length === 1 ? 'it' : 'them'} with the children could not.`);
  if (c.aggregatedStatus === null) out.push(`The delegation_completed at ${at} has no aggregated_status string: status-mismatch could not judge it.`);
  else if (!AGGREGATED_STATUSES.has(c.aggregatedStatus))
    out.push(`The delegation_completed at ${at} has aggregated_status ${JSON.stringify(c.aggregatedStatus)}, none the engine writes (completed, partial, failed, unfinished): status-mismatch could not judge it.`);
  return out;
}

/** Patterns whose join never carries an aggregate (journal-format §2.5): nothing is lost without the key. */
const NO_AGGREGATE_PATTERNS = new Set(['sequential', 'pipeline', 'adversarial_review', 'fork']);
const OLDEST_ENGINE = 'absent, as journals of the oldest engine version write none, or not a string';

/** Output previews the journal does not carry (Gen 0): without this line the output checks' silence would read as clean outputs. */
function missingPreviews(d: Delegation): string[] {
  const out: string[] = [];
  const lacking = [...d.runs.values()].flatMap((r) => r.completions.filter((c) => c.outputPreview === undefined));
  if (lacking.length > 0) {
    const one = lacking.length === 1;
    const first = lacking.reduce((a, b) => (b.fileIndex - a.fileIndex || b.line - a.line) < 0 ? b : a);
    out.push(`${one ? 'A sub-run completion' : `${lacking.length} sub-run completions`} (${one ? '' : 'first at '}${first.file}:${first.line}) ${one ? 'has' : 'have'} no output_preview (${OLDEST_ENGINE}): silent-failure and failed-in-aggregate could not judge ${one ? 'its output' : 'their outputs'}.`);
  }
  const join = d.completed;
  if (join && join.aggregatedOutputPreview === undefined && !NO_AGGREGATE_PATTERNS.has(join.pattern ?? d.pattern ?? ''))
    out.push(`The delegation_completed at ${join.file}:${join.line} has no aggregated_output_preview (${OLDEST_ENGINE}): failed-in-aggregate could not check what the join published.`);
  return out;
}

/** What one file's reading skipped or could not do, in a sentence each. */
export function fileLimits(st: FileStats, { partial = true, untimed = true, duplicates = true }: { partial?: boolean; untimed?: boolean; duplicates?: boolean } = {}): string[] {
  const out: string[] = [];
  if (st.error) out.push(`${st.file}: ${st.error}; ${st.lines === 0 ? 'not read' : st.lines === 1 ? 'only its first line was read' : `only the first ${st.lines} lines were read`}.`);
  if (st.note) out.push(`${st.file}: ${st.note}; all ${st.lines} lines of its data were read.`);
  if (st.malformedLines > 0) out.push(`${st.file}: ${st.malformedLines} malformed ${st.malformedLines === 1 ? 'line' : 'lines'} skipped.`);
  if (st.oversizedLines > 0) out.push(`${st.file}: ${st.oversizedLines} ${st.oversizedLines === 1 ? 'line that may be a delegation event is' : 'lines that may be delegation events are'} longer than a JavaScript string can hold (about 512 MiB) and could not be read; findings about ${st.oversizedLines === 1 ? 'its event' : 'their events'} may be wrong.`);
  if (st.missingFieldLines > 0) out.push(`${st.file}: ${st.missingFieldLines} delegation ${st.missingFieldLines === 1 ? 'line has' : 'lines have'} a required field (delegation_id, sub_run_id or metadata) missing or of the wrong type and ${st.missingFieldLines === 1 ? 'was' : 'were'} skipped.`);
  if (untimed && st.badTimestampLines > 0) out.push(`${st.file}: ${st.badTimestampLines} ${st.badTimestampLines === 1 ? 'event has' : 'events have'} an unparseable ts (kept, ordered by file position).`);
  // A read that failed part-way (a corrupt archive) already says where it stopped.
  if (partial && st.partialLines > 0 && !st.error) out.push(`${st.file}: the last line has no trailing newline; it may still be being written.`);
  if (duplicates && st.duplicateLines > 0) out.push(duplicateLimit(st));
  return out;
}

/** `n` lines a .jsonl/.jsonl.gz pair (or a copy in the other layout) repeats, and where from: one wording for a file's Limits line and the scan-wide one. */
export const repeatedLines = (n: number): string =>
  `${n} ${n === 1 ? 'line of a delegation event, marker or session end repeats' : 'lines of delegation events, markers or session ends repeat'} another journal of the same session (its .jsonl/.jsonl.gz sibling, or its copy in the other layout) and ${n === 1 ? 'was' : 'were'} read once`;

const duplicateLimit = (st: FileStats) => `${st.file}: ${repeatedLines(st.duplicateLines)}.`;
