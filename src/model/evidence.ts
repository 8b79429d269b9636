import path from 'node:path';
import { isTrackerJournal, sessionIdOfPath, TRACKER_STEM } from '../journal/discover.js';
import { compareInstants, diffMs } from '../journal/time.js';
import { aggregateContains } from '../journal/preview.js';
import type { DelegationCompletedEvent, FileStats, Instant, JournalEvent, Location, SubRunCompletedEvent } from '../journal/types.js';
import { MANY_DUPLICATE_IDS } from '../journal/types.js';
import { finalCompletion, isPausedStatus, isSuccess, settlesRun, type Child, type Delegation, type SubRun } from './delegation.js';
import { placeOf } from './target.js';
import { filesBySession } from './target.js';

export const loc = (e: Location): Location => ({ file: e.file, line: e.line });

/**
 * Whether `later` happened after `earlier`: a later instant, or the same instant journaled on a
 * later line of the same file (the writer appended it after). The same instant in two files
 * cannot be ordered, nor can an event without a time, so neither is "after".
 */
export function happenedAfter(later: Location & { time: Instant | null }, earlier: Location & { time: Instant | null }): boolean {
  if (!later.time || !earlier.time) return false;
  const c = compareInstants(later.time, earlier.time);
  return c > 0 || (c === 0 && later.file === earlier.file && later.line > earlier.line);
}

export type OpenCause = 'paused' | 'cancelled' | 'still running' | 'engine error' | 'crashed' | 'journal cut short' | 'unknown';

/** Terminal completions only: a Gen A `paused` (or `waiting`) completion does not settle a run. */
export function terminalCompletions(run: SubRun) {
  return run.completions.filter((c) => settlesRun(c.status));
}

/**
 * The run's last terminal completion at or before the join (`delegation_completed`): a child that
 * settles after the join was still running when the totals were taken (a late result).
 */
export function settledAtJoin(run: SubRun, join: { time: Instant | null } | null): SubRunCompletedEvent | null {
  const done = terminalCompletions(run).filter((c) => !join?.time || !c.time || compareInstants(c.time, join.time) <= 0);
  return done.length ? done[done.length - 1] : null;
}

/**
 * `ts` is taken before the journal's lock, so concurrent writers invert by microseconds
 * (journal-format.md §8.1): a completion this close after the join may have been in it.
 */
export const JOIN_INVERSION_MS = 1;

/**
 * The completion the join counted a run by: its last terminal completion by the join, else a
 * later one the join evidently had, its `ts` inverted with the join's: at most
 * JOIN_INVERSION_MS later, or its output is in the aggregate and no run of `d` that had settled
 * by the join produced the same text (an "ok" in the aggregate is that run's). late-result still
 * reports it: CHECKS.md compares the times strictly.
 */
export function countedAtJoin(run: SubRun, join: Pick<DelegationCompletedEvent, 'time' | 'aggregatedOutputPreview'> | null, d: Delegation): SubRunCompletedEvent | null {
  const settled = settledAtJoin(run, join);
  const at = join?.time;
  if (settled || !at) return settled;
  return terminalCompletions(run).find((c) => !!c.time && (diffMs(c.time, at) <= JOIN_INVERSION_MS || joinedOutput(c, join, d))) ?? null;
}

/** A completion after the join whose output only the join's aggregate can have taken from it. */
export function joinedOutput(c: SubRunCompletedEvent, join: Pick<DelegationCompletedEvent, 'time' | 'aggregatedOutputPreview'>, d: Delegation): boolean {
  const aggregate = join.aggregatedOutputPreview;
  const text = c.outputPreview?.trim();
  if (typeof aggregate !== 'string' || !text || !aggregateContains(aggregate, text)) return false;
  for (const other of d.runs.values()) {
    const done = settledAtJoin(other, join);
    if (done && done !== c && done.outputPreview?.trim() === text) return false;
  }
  return true;
}

/** Success as the engine counted it at the join: completed without error (countedAtJoin). */
export function succeededAtJoin(run: SubRun, join: Pick<DelegationCompletedEvent, 'time' | 'aggregatedOutputPreview'> | null, d: Delegation): boolean {
  const c = countedAtJoin(run, join, d);
  return !!c && c.status === 'completed' && c.error === null; // an empty error string is still an error (is_success)
}

export function lastMarker(run: SubRun, action: string) {
  const ms = run.markers.filter((m) => m.action === action);
  return ms.length ? ms[ms.length - 1] : null;
}

/**
 * The run's last pause marker, unless it was running again later: a resume marker for it, or a
 * second delegation_sub_run_started of the same run (a resume through transition_state, journal-format §5.1).
 */
export function pauseNotResumed(run: SubRun) {
  const pause = lastMarker(run, 'pause');
  const resume = lastMarker(run, 'resume');
  return pause && ((resume && happenedAfter(resume, pause)) || restartedAfter(run, pause)) ? null : pause;
}

/** Whether the run journaled a start after `e`: it went back to Running. */
const restartedAfter = (run: SubRun, e: Location & { time: Instant | null }): boolean => run.starts.some((s) => happenedAfter(s, e));

/** The run's last pause marker, unless a completion other than `paused` came after it (the run resumed and settled). */
export function pauseThatHeld(run: SubRun) {
  const pause = lastMarker(run, 'pause');
  const last = run.completions.at(-1);
  if (!pause || !last || isPausedStatus(last.status)) return pause;
  const settled = placeOf(last);
  const paused = placeOf(pause);
  return settled && paused && compareInstants(settled, paused) > 0 ? null : pause;
}

/** Whether d has events in a session file of its own, not only in Gen A's shared delegation.jsonl. */
const hasOwnSessionFile = (d: Delegation): boolean => d.files.some((f) => !isTrackerJournal(f));

/** The delegation's newest timed event. */
export function newestEvent(d: Delegation): JournalEvent | null {
  let newest: JournalEvent | null = null;
  for (const e of d.events) if (e.time && (!newest || compareInstants(e.time, newest.time!) > 0)) newest = e;
  return newest;
}

/**
 * The newest time a journal shows: its last line's `ts` or its newest delegation event's, which
 * can be newer (a turn-buffered line may end the file with an older `ts`), and the line holding it.
 */
export function newestTimeIn(st: FileStats, { wholeLinesOnly = false } = {}): { time: Instant; line: number } | null {
  // wholeLinesOnly: the session went on only if a whole line says so; a partial one was cut short.
  const lastTime = wholeLinesOnly ? st.lastWholeTime : st.lastTime;
  const last = lastTime ? { time: lastTime, line: wholeLinesOnly ? st.lastWholeLine : st.lastLine } : null;
  const eventIsWhole = !wholeLinesOnly || st.newestEventLine <= st.lastWholeLine;
  const event = st.newestEventTime && eventIsWhole ? { time: st.newestEventTime, line: st.newestEventLine } : null;
  if (!last || !event) return last ?? event;
  return compareInstants(event.time, last.time) > 0 ? event : last;
}

const sessionsOfFiles = new WeakMap<Map<string, FileStats>, Map<string, string[]>>();

/** A scan's journals by session id, listed once per scan. */
function sessionFiles(files: Map<string, FileStats>): Map<string, string[]> {
  let bySession = sessionsOfFiles.get(files);
  if (!bySession) sessionsOfFiles.set(files, (bySession = filesBySession([...files.keys()])));
  return bySession;
}

/**
 * The other journals of the delegation's sessions: a plain `<sid>.jsonl` that goes on after its
 * `.jsonl.gz` archive, a copy in the other layout or owner folder. A session that went on in one
 * of them went on, whichever file the delegation's own lines are in.
 */
function sessionSiblings(d: Delegation, files: Map<string, FileStats>): FileStats[] {
  const bySession = sessionFiles(files);
  const own = new Set(d.files);
  const out: FileStats[] = [];
  // Gen A's shared delegation.jsonl names no session, but its archive and live file are one journal too.
  const trackerFolders = new Set(d.files.filter(isTrackerJournal).map((f) => path.dirname(f)));
  for (const sid of new Set(d.files.map(sessionIdOfPath))) {
    for (const f of bySession.get(sid) ?? []) {
      // Another root's delegation.jsonl is another engine's tracker, not this one's archive or live file.
      if (sid === TRACKER_STEM && !trackerFolders.has(path.dirname(f))) continue;
      const st = files.get(f);
      if (st && !own.has(f)) out.push(st);
    }
  }
  return out;
}

/**
 * The journals of the delegation's sessions whose lines repeated some of its own (a `.jsonl.gz`
 * and its `.jsonl`, a copy in the other layout): those lines were read once, from another file.
 */
export function journalsRepeating(d: Delegation, files: Map<string, FileStats>): FileStats[] {
  const bySession = sessionFiles(files);
  const out: FileStats[] = [];
  for (const sid of new Set(d.files.map(sessionIdOfPath))) {
    for (const f of bySession.get(sid) ?? []) {
      const st = files.get(f);
      if (st && (st.duplicateIds.includes(d.id) || st.duplicateIds.includes(MANY_DUPLICATE_IDS))) out.push(st);
    }
  }
  return out;
}

/**
 * The newest activity of an open delegation: its own newest event, or the newest time any of
 * `journals` (its files and its sessions' other journals) shows, with the line holding it.
 * The one-off report and follow mode's stale notice judge "still running" on it alike.
 */
export function newestActivity(d: Delegation, journals: Iterable<FileStats>): { time: Instant; at: Location } | null {
  const lastEvent = newestEvent(d);
  let newest: { time: Instant; at: Location } | null = lastEvent ? { time: lastEvent.time!, at: loc(lastEvent) } : null;
  // Gen A's shared delegation.jsonl is written by every session: with a session file of its own,
  // another session's recent line there says nothing about this one (its own lines count above).
  const ownSession = hasOwnSessionFile(d);
  for (const st of journals) {
    if (ownSession && isTrackerJournal(st.file)) continue;
    const shown = newestTimeIn(st);
    if (shown && (!newest || compareInstants(shown.time, newest.time) > 0)) newest = { time: shown.time, at: { file: st.file, line: shown.line } };
  }
  return newest;
}

/**
 * Why a delegation has no `delegation_completed`: still running (recent activity), engine error
 * (its sessions went on writing after it), or crashed (its events are the last thing written).
 * The evidence is the line the verdict rests on.
 */
export function openDelegationCause(d: Delegation, files: Map<string, FileStats>, nowMs: number, staleAfterMs: number): { cause: OpenCause; detail: string; evidence: Location[] } {
  const siblings = sessionSiblings(d, files);
  const lastEvent = newestEvent(d);
  const own = d.files.flatMap((f) => files.get(f) ?? []);
  const newest = newestActivity(d, [...own, ...siblings]);
  if (newest && nowMs - newest.time.ms < staleAfterMs) {
    const age = Math.round((nowMs - newest.time.ms) / 1000);
    // A line stamped after "now" (a --now in the past, or a clock ahead): no negative age.
    const detail = age < 0 ? `the newest line in its files is ${-age}s in the future` : `the newest line in its files is ${age}s old`;
    return { cause: 'still running', detail, evidence: [newest.at] };
  }
  // Went on: whole lines after its last event. A partial last line is not an event (a write cut short).
  const lastLineByFile = new Map<string, number>();
  for (const e of d.events) lastLineByFile.set(e.file, Math.max(lastLineByFile.get(e.file) ?? 0, e.line));
  // Gen A's shared delegation.jsonl goes on with every session's delegations: with a session file
  // of its own, what that file does is what its session did.
  const hasSessionFile = hasOwnSessionFile(d);
  let sharedGoesOn: string | null = null;
  for (const [file, line] of lastLineByFile) {
    const st = files.get(file);
    if (!st || st.lastWholeLine <= line) continue;
    // Its newest event is in another file: lines after its last one here went on only if written after that event.
    if (lastEvent && file !== lastEvent.file && !lineAfter(st, lastEvent)) continue;
    if (hasSessionFile && isTrackerJournal(file)) sharedGoesOn ??= file;
    else return { cause: 'engine error', detail: `${file} goes on to line ${st.lastWholeLine} after its last event`, evidence: [{ file, line: st.lastWholeLine }] };
  }
  for (const st of siblings) {
    const shown = lastEvent && lineAfter(st, lastEvent);
    if (!shown) continue;
    if (hasSessionFile && isTrackerJournal(st.file)) sharedGoesOn ??= st.file;
    else return { cause: 'engine error', detail: `its session goes on in ${st.file} to line ${shown.line}, after its last event`, evidence: [{ file: st.file, line: shown.line }] };
  }
  const last = [...lastLineByFile].map(([file, line]) => ({ file, line }));
  // Its last events are the last lines that could be read (a damaged archive): what came after
  // them is not known, so not a crash either.
  for (const { file, line } of last) {
    const st = files.get(file);
    if (st?.error) return { cause: 'journal cut short', detail: `${file} could not be read after line ${st.lines} (${st.error}): what followed its last event is not known`, evidence: [{ file, line }] };
  }
  if (sharedGoesOn) {
    const own = last.filter((l) => !isTrackerJournal(l.file));
    return { cause: 'crashed', detail: `its session's files end with its events; ${sharedGoesOn}, which every session writes, goes on with other delegations`, evidence: own };
  }
  // A line cut short after them is the write the crash interrupted: they are the last whole lines.
  const cutAfter = last.some(({ file }) => {
    const st = files.get(file);
    return !!st && st.lastLine > st.lastWholeLine;
  });
  return { cause: 'crashed', detail: cutAfter ? 'its events are the last whole lines of their files; a line cut short follows, the write the crash interrupted' : 'its events are the last lines of their files', evidence: last };
}

/** The journal's newest whole line when it is stamped after `e` (another file than e's cannot be ordered by position), or null. */
function lineAfter(st: FileStats, e: JournalEvent): { time: Instant; line: number } | null {
  const shown = newestTimeIn(st, { wholeLinesOnly: true });
  return shown && compareInstants(shown.time, e.time!) > 0 ? shown : null;
}

/** Probable cause for a started run with no terminal completion (CHECKS.md resolved detail 2). */
export function missingCompletionCause(d: Delegation, run: SubRun, files: Map<string, FileStats>, nowMs: number, staleAfterMs: number): { cause: OpenCause; detail: string; evidence: Location[] } {
  const pause = pauseNotResumed(run); // paused, then resumed: the pause does not explain the missing completion
  // A Gen A paused completion that a later start of the run followed was resumed too.
  const pausedCompletion = run.completions.filter((c) => isPausedStatus(c.status)).at(-1);
  if (pause) return { cause: 'paused', detail: 'a pause marker names it', evidence: [loc(pause)] };
  if (pausedCompletion && !restartedAfter(run, pausedCompletion)) return { cause: 'paused', detail: `a Gen A completion says ${pausedCompletion.status}, which is not terminal`, evidence: [loc(pausedCompletion)] };
  // A cancel marker names this run; "ended unfinished" is the delegation's: the run's own evidence
  // wins (a cancel whose reconciliation ran out of budget leaves the run waiting, journal-format §5.2).
  const cancel = lastMarker(run, 'cancel_requested');
  if (cancel) return { cause: 'cancelled', detail: 'cancel was requested and no cancelled completion followed', evidence: [loc(cancel)] };
  if (d.completed?.aggregatedStatus === 'unfinished') return { cause: 'paused', detail: 'the delegation ended unfinished', evidence: [loc(d.completed)] };
  if (!d.completed) {
    return openDelegationCause(d, files, nowMs, staleAfterMs);
  }
  return { cause: 'unknown', detail: 'the delegation completed without it', evidence: [loc(d.completed)] };
}

/** `5s`, `1.5s`: milliseconds from a second up; below, down to the nanosecond the journals carry (`0.000000001s`, never `0s` for a real gap). */
export function seconds(ms: number): string {
  const s = ms / 1000;
  if (Number.isInteger(s)) return `${s}s`;
  return `${s.toFixed(Math.abs(s) >= 1 ? 3 : 9).replace(/\.?0+$/, '')}s`;
}

/** Children whose original run journaled a start, in the order those starts happened. */
export function startedChildren(d: Delegation) {
  return inJournalOrder(d, d.children.filter((c) => c.attempts[0].starts.length > 0));
}

/**
 * Children the journal shows ran: a start, or a completion whose start line was lost (a failed
 * write drops an event silently, journal-format §1.2), in the order they happened.
 */
export function journaledChildren(d: Delegation) {
  return inJournalOrder(d, d.children.filter((c) => c.attempts[0].starts.length > 0 || c.attempts[0].completions.length > 0));
}

/** `children` in the order of their original run's first start, or first completion when its start line is missing. */
export function inJournalOrder(d: Delegation, children: readonly Child[]): Child[] {
  const order = new Map(d.events.map((e, i) => [e, i] as const));
  const first = (c: Child) => order.get(c.attempts[0].starts[0] ?? c.attempts[0].completions[0]) ?? 0;
  return [...children].sort((a, b) => first(a) - first(b));
}

/** A child whose start names, as retry_of, a run this delegation does not have: a retry that could not be folded. */
export const retriesUnknownRun = (d: Delegation, c: Child): boolean => c.attempts[0].retryOf !== null && !d.runs.has(c.attempts[0].retryOf);

/** How many of `children` each agent has. */
function perAgent(children: readonly Child[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const c of children) if (c.agentId) by.set(c.agentId, (by.get(c.agentId) ?? 0) + 1);
  return by;
}

/** How many children of each agent started (startedChildren). */
export const startedPerAgent = (d: Delegation): Map<string, number> => perAgent(startedChildren(d));

/** How many children of each agent the journal shows ran (journaledChildren). */
export const journaledPerAgent = (d: Delegation): Map<string, number> => perAgent(journaledChildren(d));

/** Whether `counted` (runs per agent) covers every child the pattern starts (per agent, ×N counted); false when that is unknowable. */
function coversExpected(counted: ReadonlyMap<string, number>, expected: ReadonlyMap<string, number> | null): boolean {
  if (!expected) return false;
  for (const [agent, n] of expected) if ((counted.get(agent) ?? 0) < n) return false;
  return true;
}

/** Whether every child the pattern starts has a journaled start. */
export const everyExpectedChildStarted = (d: Delegation, expected: ReadonlyMap<string, number> | null): boolean => coversExpected(startedPerAgent(d), expected);

/** Whether every child the pattern starts has a journaled start or, its start line lost, a completion. */
export const everyExpectedChildJournaled = (d: Delegation, expected: ReadonlyMap<string, number> | null): boolean => coversExpected(journaledPerAgent(d), expected);

/** Whether any sub-run event (start or completion) was journaled for the delegation. */
export function hasSubRunEvents(d: Delegation): boolean {
  return d.events.some((e) => e.type === 'delegation_sub_run_started' || e.type === 'delegation_sub_run_completed');
}

// Whole words only: "runtime output" contains "time out" but is not a timeout. Exception names
// and errno count (TimeoutError, TimeoutException, DEADLINE_EXCEEDED, DeadlineExceeded, ETIMEDOUT).
const TIMEOUT_WORDING = /\btime-?\s?out(?:s|error|exception)?\b|\btimed[\s-]?out\b|\bdeadline[\s_]?exceeded\b|\betimedout\b/i;
// Class names that end in Timeout: ReadTimeout, ConnectTimeout, SocketTimeoutException (a
// capital first: readTimeout=30s is a setting, not an error).
const CAMEL_CASE_TIMEOUT = /\b[A-Z][A-Za-z0-9]*[a-z0-9]Timeout(?:Error|Exception)?\b/;
// Spaced or a class name (ModelAdmissionTimeout): the agent never ran.
const ADMISSION_TIMEOUT = /(?:\b|(?<=[a-z0-9]))admission\s*(?:timed[\s-]?out|time-?\s?out)(?:s|error|exception)?\b/gi;

/** Timeouts leave the outcome unknown; an admission timeout means the agent never ran (another timeout beside it still counts). */
export function isTimeoutError(error: string | null): boolean {
  if (!error) return false;
  const rest = error.replace(ADMISSION_TIMEOUT, '');
  return TIMEOUT_WORDING.test(rest) || CAMEL_CASE_TIMEOUT.test(rest);
}

/**
 * A sequential delegation whose last started stage failed, and whose next stage never started
 * with nothing to explain it: a failed stage falls through to the next (journal-format §9), and
 * an admission or start failure of that stage would be counted in total_sub_runs. Null when it
 * stopped another way (success, pause, cancel, a stage left unfinished) or the totals leave room for it.
 */
export function unexplainedSequentialStop(d: Delegation): { last: Child; next: string; started: number } | null {
  if (d.pattern !== 'sequential' || !d.completed || !d.started || !hasSubRunEvents(d)) return null;
  const started = journaledChildren(d); // a stage whose start line was lost still ran
  const ids = d.started.agentIds;
  if (started.length === 0 || started.length >= ids.length) return null;
  const last = started[started.length - 1];
  const status = finalCompletion(last.final)?.status ?? null;
  // A stage that completed with an error failed (is_success) and falls through like a failed one.
  if (status === null || isSuccess(last.final) || status === 'paused' || status === 'cancelled' || status === 'waiting') return null;
  // Not `unfinished`: it names no stage, and this one settled as a failure, which falls through (§5.1).
  if (pauseThatHeld(last.final) || lastMarker(last.final, 'cancel_requested')) return null;
  const total = d.completed.totalSubRuns;
  if (total === null || total > started.length) return null; // a start failure of the next stage, counted
  return { last, next: ids[started.length], started: started.length };
}