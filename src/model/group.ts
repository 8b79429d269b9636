import { compareInstants } from '../journal/time.js';
import type { DelegationCompletedEvent, DelegationEvent, DelegationStartedEvent, Instant, JournalEvent, SubRunCompletedEvent, SubRunStartedEvent, SyncMarkerEvent } from '../journal/types.js';
import { startInstant, type Child, type Delegation, type SubRun } from './delegation.js';

/**
 * Orders events by parsed time, then file and line. An event whose `ts` does not parse takes
 * the time of the event before it in the same file (`after`, from the scan), so it stays at its
 * file position.
 */
export function sortEvents<T extends JournalEvent>(events: T[]): T[] {
  const byFile = [...events].sort((a, b) => a.fileIndex - b.fileIndex || a.line - b.line);
  // Each event with its effective time and its file's place as plain numbers: sorting on them is
  // several times faster than a Map lookup per comparison (this sort runs on every event of a large scan).
  const keyed = new Array<{ e: T; ms: number; subNs: number; place: number }>(byFile.length);
  const placeOf = journalPlaces(byFile);
  let prevFile = -1;
  let place = 0;
  let prevMs = -8.64e15;
  let prevSubNs = 0;
  for (let i = 0; i < byFile.length; i++) {
    const e = byFile[i];
    if (e.fileIndex !== prevFile) {
      place = placeOf.get(e.fileIndex)!;
      prevFile = e.fileIndex;
      prevMs = -8.64e15;
      prevSubNs = 0;
    }
    if (e.time) {
      prevMs = e.time.ms;
      prevSubNs = e.time.subNs;
    }
    // The scan placed an untimed event after the last timed one of its whole file (`after`),
    // which this set may not hold: the same place whichever events are grouped together.
    if (!e.time && e.after !== undefined) keyed[i] = { e, ms: e.after ? e.after.ms : -8.64e15, subNs: e.after ? e.after.subNs : 0, place };
    else keyed[i] = { e, ms: prevMs, subNs: prevSubNs, place };
  }
  keyed.sort((a, b) => a.ms - b.ms || a.subNs - b.subNs || a.place - b.place || a.e.line - b.e.line);
  return keyed.map((k) => k.e);
}

/**
 * The file order for events at the same instant, by file index: the files' order, except that a
 * `<sid>.jsonl.gz` comes right before its `<sid>.jsonl`, as the archive is the journal's earlier
 * part (archived, then written on). Otherwise splitting a journal into the pair could move an
 * archived line after a live one written later at the same instant, and change how a reused id is
 * folded. By name, not by index: follow mode gives an archive created while following a later
 * index than its live file's. `byFile`: events ordered by file index.
 */
function journalPlaces(byFile: readonly JournalEvent[]): Map<number, number> {
  const indexByName = new Map<string, number>();
  for (let i = 0; i < byFile.length; i++) if (i === 0 || byFile[i].fileIndex !== byFile[i - 1].fileIndex) indexByName.set(byFile[i].file, byFile[i].fileIndex);
  const places = new Map<number, number>();
  for (const [name, index] of indexByName) {
    const live = name.endsWith('.gz') ? indexByName.get(name.slice(0, -3)) : undefined;
    places.set(index, live === undefined ? 3 * index + 1 : 3 * live);
  }
  return places;
}

function newDelegation(id: string, key: string, started: DelegationStartedEvent | null): Delegation {
  return {
    id,
    key,
    started,
    completions: [],
    completed: null,
    pattern: started?.pattern ?? null,
    parentRunId: started?.parentRunId ?? null,
    runs: new Map(),
    children: [],
    retries: [],
    events: [],
    sessions: [],
    files: [],
    parent: null,
    notes: [],
  };
}

function runOf(d: Delegation, runId: string, agentId: string | null): SubRun {
  let run = d.runs.get(runId);
  if (!run) {
    run = { runId, agentId, starts: [], completions: [], retryOf: null, retryEvent: null, attempt: 1, markers: [], nested: [] };
    d.runs.set(runId, run);
  }
  if (!run.agentId && agentId) run.agentId = agentId;
  return run;
}

/** Groups all files' events into delegations, folds retries and links nested delegations. */
export function groupDelegations(allEvents: JournalEvent[]): Delegation[] {
  const events = sortEvents(allEvents);
  const markers = events.filter((e): e is SyncMarkerEvent => e.type === 'sync_marker');
  const byId = new Map<string, Delegation[]>();
  const delegations: Delegation[] = [];

  // Pass 1: one delegation per distinct (id, parent_run_id) start, and one more each time the same
  // parent run starts the id again after it completed, or after it ended without a completion
  // (the engine's Err) with every sub-run it started settled; a reused id becomes id#2….
  const lastCompletion = new Map<string, number>(); // delegation id → position of its latest delegation_completed so far
  const openRuns = new OpenSubRuns();
  // Uses ended by an Err and started again: no delegation_completed of a later use is theirs.
  const superseded = new Set<Delegation>();
  // (id, parent run, start instant) → uses so far: two uses in the same second differ by a count (instanceKey).
  const startsAt = new Map<string, number>();
  const startAt = new Map<Delegation, number>();
  // delegation id → parent_run_id → its latest delegation: an id started thousands of times
  // must not scan its list on every start.
  const latestByParent = new Map<string, Map<string | null, Delegation>>();
  events.forEach((e, at) => {
    if (e.type === 'delegation_completed') lastCompletion.set(e.delegationId, at);
    openRuns.note(e);
    if (e.type !== 'delegation_started') return;
    const list = byId.get(e.delegationId) ?? [];
    let latest = latestByParent.get(e.delegationId);
    if (!latest) {
      latest = new Map();
      latestByParent.set(e.delegationId, latest);
    }
    const same = latest.get(e.parentRunId);
    // Completed since that start: the engine writes one start per execute call, so this is a new one.
    const again = same !== undefined && (lastCompletion.get(e.delegationId) ?? -1) > startAt.get(same)!;
    // One start per execute call: a later start (not a copy of the line) once the first use has no
    // sub-run left running is the id submitted again after an Err, not the first start repeated.
    const resubmitted = same !== undefined && !again && startedLater(same.started, e) && !openRuns.has(e.delegationId, e.parentRunId);
    // A copy of the line repeats its session, pattern and agents (one execute call writes one
    // start): a start that differs is another call, even with runs of the first left open (a crash).
    const anotherCall = same !== undefined && !again && !resubmitted && same.started !== null && !sameCall(same.started, e);
    if (same && !again && !resubmitted && !anotherCall) {
      same.notes.push(`delegation_started is journaled more than once for this id (${e.file}:${e.line}); the first one is used.`);
      same.events.push(e);
      return;
    }
    const d = newDelegation(e.delegationId, list.length === 0 ? e.delegationId : `${e.delegationId}#${list.length + 1}`, e);
    startAt.set(d, at);
    if (resubmitted || anotherCall) superseded.add(same!);
    // Runs still open under this parent belong to an earlier use (paused, crashed): not this one's.
    // Only then: a first use's own runs may be journaled just before its start (clock skew).
    if (same) openRuns.close(e.delegationId, e.parentRunId);
    const twinKey = `${e.delegationId}\u0000${e.parentRunId ?? ''}\u0000${startInstant(e)}`;
    const twins = startsAt.get(twinKey) ?? 0;
    startsAt.set(twinKey, twins + 1);
    if (twins > 0) d.startTwin = twins;
    if (list.length > 0) {
      const note = again
        ? `delegation id reused: ${list.length + 1} delegation_started events, the same parent run starting it again after it completed; each event was attached to the start before it.`
        : resubmitted
          ? `delegation id reused: ${list.length + 1} delegation_started events, the same parent run starting it again after it ended without a delegation_completed, none of its sub-runs still running; each event was attached to the start before it.`
          : anotherCall
            ? `delegation id reused: ${list.length + 1} delegation_started events, the same parent run starting it again in another session or with another pattern or agents while sub-runs of the first were still open (a crash or a lost write); each event was attached to the start before it.`
          : `delegation id reused by ${list.length + 1} delegation_started events with different parent runs; sub-run events were attached by parent_run_id, each delegation_completed (it names no parent run) to the open one whose outputs its aggregate holds or whose runs its totals count.`;
      // Each delegation keeps the first such note: the ones after the first got theirs when they
      // were added (as d), so only the first one of the list and d can lack it.
      if (list.length === 1 && !list[0].notes.some((n) => n.startsWith('delegation id reused'))) list[0].notes.push(note);
      d.notes.push(note);
    }
    list.push(d);
    latest.set(d.parentRunId, d);
    byId.set(e.delegationId, list);
    delegations.push(d);
    d.events.push(e);
  });

  // Pass 2: attach every other delegation event to its delegation (orphans get one without a start).
  const owners = new ReusedIdOwners(events, byId, superseded);
  // id → the earlier use of an id started once, whose own start was lost (opensEarlierUse), and its runs.
  const earlierUses = new Map<string, Delegation>();
  const earlierRuns = new Set<string>();
  const joinsBefore = earlyJoins(events, byId);
  // Runs with a journaled start: a completion of any other run has no start to place it by.
  // Gathered only when a completion well before its id's start asks (rare): not a key per run of every scan.
  let startedRuns: Set<string> | undefined;
  const neverStarted: RunNeverStarted = (id, run) => {
    startedRuns ??= new Set(events.flatMap((s) => (s.type === 'delegation_sub_run_started' ? [runKey(s.delegationId, s.subRunId)] : [])));
    return !startedRuns.has(runKey(id, run));
  };
  for (let at = 0; at < events.length; at++) {
    const e = events[at];
    if (e.type === 'delegation_started' || e.type === 'sync_marker' || e.type === 'session_end') continue;
    let list = byId.get(e.delegationId);
    if (!list) {
      list = [newDelegation(e.delegationId, e.delegationId, null)];
      byId.set(e.delegationId, list);
      delegations.push(list[0]);
    }
    // Up to a join journaled before the id's only start (and another after it): an earlier use's.
    const earlyEnd = joinsBefore.get(e.delegationId);
    const beforeEarlyJoin = earlyEnd !== undefined && at <= earlyEnd.at;
    // An earlier use whose start was lost: for an id started several times, judged against its first
    // start and keyed after the started uses; for one started once, also found by a join before its start.
    const many = list.length > 1;
    const ofEarlierUse = many
      ? ofEarlierUseOfReusedId(list, e, earlierUses.has(e.delegationId), (run) => earlierRuns.has(runKey(e.delegationId, run)), neverStarted)
      : opensEarlierUse(list[0], e) || lostRunCompletion(list[0], e, neverStarted) || (beforeEarlyJoin && (e.type === 'delegation_sub_run_started' || e.type === 'delegation_completed'));
    if (many && !ofEarlierUse) owners.attach(list, owners.pick(list, e), e);
    else if (ofEarlierUse) {
      let use = earlierUses.get(e.delegationId);
      if (!use) {
        use = many ? earlierUse(list[0], e, undefined, `${e.delegationId}#${list.length + 1}`) : earlierUse(list[0], e, earlyEnd?.join);
        earlierUses.set(e.delegationId, use);
        delegations.push(use);
      }
      use.events.push(e);
      if (e.type === 'delegation_sub_run_started') earlierRuns.add(runKey(e.delegationId, e.subRunId));
    } else {
      const use = earlierUses.get(e.delegationId);
      const earlierRun = (run: string) => earlierRuns.has(runKey(e.delegationId, run));
      const earlier = use !== undefined && (belongsToEarlierUse(list[0], e, earlierRun) || (beforeEarlyJoin && e.type === 'delegation_retry' && e.originalRunId !== null && earlierRun(e.originalRunId)));
      (earlier ? use : list[0]).events.push(e);
    }
  }
  for (const [id, use] of earlierUses) byId.get(id)!.push(use); // its key kept apart from ids too

  const markersByRun = new Map<string, SyncMarkerEvent[]>();
  for (const m of markers) {
    const list = markersByRun.get(m.runId);
    if (list) list.push(m);
    else markersByRun.set(m.runId, [m]);
  }
  for (const d of delegations) buildRuns(d, markersByRun);
  keepKeysApartFromIds(byId);
  linkNested(delegations);
  return delegations;
}

/**
 * The engine journals a delegation's start before any of its other events, so an event more
 * than this before the start cannot be that use's (clocks of one host, or the tracker's, differ
 * by far less): it is an earlier use of the id whose delegation_started was lost.
 */
const EARLIER_USE_MS = 60_000;

/** How far before the start a join earlier in the start's journal must be to end another use. */
const EARLY_JOIN_MS = 1000;

/** Whether instant t is more than `margin` ms before `ref` (false when either is unknown). */
const wellBefore = (t: Instant | null | undefined, ref: Instant | null | undefined, margin = EARLIER_USE_MS): boolean => !!t && !!ref && t.ms < ref.ms - margin;

/** Whether d was started well after event e. */
function startedWellAfter(d: Delegation, e: DelegationEvent): boolean {
  return wellBefore(e.time, d.started?.time);
}

/**
 * A sub-run started well before d, under another parent run: an earlier use's (a clock behind
 * would not change the parent run; time-order reports such a clock).
 */
function opensEarlierUse(d: Delegation, e: DelegationEvent): boolean {
  return e.type === 'delegation_sub_run_started' && e.parentRunId !== null && d.parentRunId !== null && e.parentRunId !== d.parentRunId && startedWellAfter(d, e);
}

/**
 * A sub-run completion well before d, of a run with no journaled start: no start places it with
 * d, and the engine journals a use's start first, so it is an earlier use's whose start lines
 * were lost (folded into d, list and last, reading recent files, showed d without it).
 */
function lostRunCompletion(d: Delegation, e: DelegationEvent, neverStarted: RunNeverStarted): boolean {
  // The time first: it is two numbers; the start lookup is a key per completion.
  return e.type === 'delegation_sub_run_completed' && startedWellAfter(d, e) && neverStarted(e.delegationId, e.subRunId);
}

/** Whether no delegation_sub_run_started of that id and run is journaled. */
type RunNeverStarted = (delegationId: string, runId: string) => boolean;

/**
 * For an id started several times: whether e is an earlier use's whose start was lost, judged
 * against the first start as for an id started once (opensEarlierUse, belongsToEarlierUse), with
 * the sub-run that opens it under none of the starts' parent runs. Without it, that use's events
 * were folded into the first start (foreign parent, totals, time order), and only while the
 * later start was in the tree: `list`, reading the recent files, disagreed with `--all`.
 */
function ofEarlierUseOfReusedId(list: readonly Delegation[], e: DelegationEvent, opened: boolean, isEarlierRun: (runId: string) => boolean, neverStarted: RunNeverStarted): boolean {
  const first = list[0];
  if (!first.started) return false;
  if (opened && belongsToEarlierUse(first, e, isEarlierRun)) return true;
  if (lostRunCompletion(first, e, neverStarted)) return true;
  // Every sub-run it opened counts (a fan-out), not only the first, as for an id started once.
  return opensEarlierUse(first, e) && e.type === 'delegation_sub_run_started' && list.every((d) => d.parentRunId !== e.parentRunId);
}

/** Whether e belongs to the earlier use: an event of one of its runs, or a join well before d's start. */
function belongsToEarlierUse(d: Delegation, e: DelegationEvent, isEarlierRun: (runId: string) => boolean): boolean {
  switch (e.type) {
    case 'delegation_sub_run_completed':
      return isEarlierRun(e.subRunId);
    case 'delegation_sub_run_started':
      return isEarlierRun(e.subRunId) && startedWellAfter(d, e);
    case 'delegation_retry':
      return e.originalRunId !== null && isEarlierRun(e.originalRunId) && startedWellAfter(d, e);
    case 'delegation_completed':
      return startedWellAfter(d, e);
    default:
      return false;
  }
}

/**
 * For each id started once and joined more than once, the last join placed before that start:
 * earlier in the same journal (its file, or that file's archive pair) and over a second earlier
 * by the clock (the engine writes a use's start before its join; the tracker's lines can swap by
 * microseconds), or well before it by the clock alone; untimed lines stay where they are. It
 * ended an earlier use whose delegation_started was lost, under any parent run. One join alone
 * before the start stays with it: a clock behind (time-order reports it).
 */
function earlyJoins(events: readonly JournalEvent[], byId: ReadonlyMap<string, Delegation[]>): Map<string, { join: DelegationCompletedEvent; at: number }> {
  const joins = new Map<string, number[]>();
  events.forEach((e, at) => {
    if (e.type !== 'delegation_completed') return;
    const list = joins.get(e.delegationId);
    if (list) list.push(at);
    else joins.set(e.delegationId, [at]);
  });
  const out = new Map<string, { join: DelegationCompletedEvent; at: number }>();
  for (const [id, ats] of joins) {
    const uses = byId.get(id);
    const start = uses?.length === 1 ? uses[0].started : null;
    if (ats.length < 2 || !start) continue;
    const placedBefore = (j: DelegationCompletedEvent) => wellBefore(j.time, start.time, earlierInJournal(j, start) ? EARLY_JOIN_MS : EARLIER_USE_MS);
    const before = ats.filter((at) => placedBefore(events[at] as DelegationCompletedEvent));
    if (before.length === 0 || before.length === ats.length) continue; // the start's own join is after it
    const at = before[before.length - 1];
    out.set(id, { join: events[at] as DelegationCompletedEvent, at });
  }
  return out;
}

/**
 * Whether a may have been written before b in one journal: an earlier line of b's file, or a line
 * of the other file of its `.jsonl` / `.jsonl.gz` pair (an archive can also repeat the live file's
 * lines, and the copy kept is the one read first, so lines are not compared across the pair).
 */
const earlierInJournal = (a: DelegationEvent, b: DelegationEvent): boolean =>
  a.file === b.file ? a.line < b.line : a.file === `${b.file}.gz` || b.file === `${a.file}.gz`;

/**
 * The delegation (without a start) holding the events of an earlier use of d's id whose
 * delegation_started was not journaled, made at its first event e. Without it, a month-old
 * use's sub-runs were folded into the new one (foreign parents, totals and time order all
 * wrong), and `last`, reading the recent file only, showed another delegation than `--all`.
 * `join`: the earlier use was found by its join, placed before d's start (earlyJoins).
 */
function earlierUse(d: Delegation, e: DelegationEvent, join?: DelegationCompletedEvent, key = `${d.id}#2`): Delegation {
  const use = newDelegation(d.id, key, null);
  const why = join
    ? `a delegation_completed of ${d.id} is journaled before its only delegation_started (${join.file}:${join.line}) and another after it`
    : e.type === 'delegation_sub_run_completed'
      ? `a sub-run of ${d.id} completed more than a minute before its first delegation_started, its own start not journaled (${e.file}:${e.line})`
      : `a sub-run of ${d.id} started under another parent run more than a minute before its first delegation_started (${e.file}:${e.line})`;
  const note = `delegation id reused: ${why}: an earlier use whose delegation_started was not journaled; its events are shown as ${use.key}, not attached to the later start.`;
  use.notes.push(note);
  d.notes.push(note);
  d.earlierUse = use;
  return use;
}

/**
 * A reuse key `<id>#<n>` that is also a journaled delegation id (ids are any string) takes the next
 * free number instead, so that a key names one block. Such an id is linked to `<id>` (linkIds),
 * so every set of events grouped together holds both, and gives the same keys.
 */
function keepKeysApartFromIds(byId: Map<string, Delegation[]>): void {
  let taken: Set<string> | null = null;
  for (const [id, list] of byId) {
    if (list.length < 2 || !list.some((d, i) => i > 0 && byId.has(d.key))) continue; // the usual case: no id of that shape
    taken ??= new Set(byId.keys());
    let n = 2;
    for (let i = 1; i < list.length; i++) {
      while (taken.has(`${id}#${n}`)) n++;
      list[i].key = `${id}#${n}`;
      taken.add(list[i].key);
      n++;
    }
  }
}

/** The started delegations of a candidate list by start time, then list order; open ones linked. */
interface ByStart {
  delegations: Delegation[];
  times: Instant[];
  /**
   * Skip links over completed delegations: next[i] === i while delegations[i] is not known to be
   * completed, else a later index to go on from (union-find with path compression).
   */
  next: Int32Array;
}

/** One run of one delegation id, as a map key (ids are any string: NUL separates them). */
const runKey = (delegationId: string, runId: string) => `${delegationId}\u0000${runId}`;

/** Whether two starts of one id and parent run could be one execute call's line written twice: the same session, pattern and agents. */
function sameCall(a: DelegationStartedEvent, b: DelegationStartedEvent): boolean {
  return a.sessionId === b.sessionId && a.pattern === b.pattern && a.agentIds.length === b.agentIds.length && a.agentIds.every((x, i) => x === b.agentIds[i]);
}

/** What ReusedIdOwners looks up in one list of delegations sharing an id. */
interface ListIndex {
  /** Position of each delegation in the list. */
  position: Map<Delegation, number>;
  /** parent_run_id → the delegations it started, in list order. */
  byParent: Map<string, Delegation[]>;
  /** Per candidate array (the list or one of byParent's), its ByStart (built when first needed). */
  byStart: Map<Delegation[], ByStart>;
  /**
   * sub_run_id → the first position (in the list, and among each parent run's delegations) of a
   * delegation a delegation_sub_run_started for it was attached to so far.
   */
  starters: Map<string, { first: number; byParent: Map<string | null, number> }>;
}

/** Whether `later` starts strictly after `first` (both timed): a copy of the same line does not. */
function startedLater(first: DelegationStartedEvent | null, later: DelegationStartedEvent): boolean {
  return !!first?.time && !!later.time && compareInstants(later.time, first.time) > 0;
}

/**
 * The sub-runs started and not yet completed so far in event order, by delegation id, with the
 * parent runs that started them. Counted per parent, so a lookup does not walk the runs.
 */
class OpenSubRuns {
  private readonly runs = new Map<string, Map<string, { parents: Set<string | null>; open: boolean }>>();
  /** delegation id → parent run (null: named none) → open sub-runs it started. */
  private readonly openBy = new Map<string, Map<string | null, number>>();

  note(e: JournalEvent): void {
    if (e.type === 'delegation_sub_run_started') {
      let runs = this.runs.get(e.delegationId);
      if (!runs) this.runs.set(e.delegationId, (runs = new Map()));
      const parent = e.parentRunId ?? null;
      let run = runs.get(e.subRunId);
      if (!run) runs.set(e.subRunId, (run = { parents: new Set(), open: false }));
      const isNew = !run.parents.has(parent);
      run.parents.add(parent);
      if (!run.open) {
        run.open = true;
        for (const p of run.parents) this.count(e.delegationId, p, 1);
      } else if (isNew) this.count(e.delegationId, parent, 1);
    } else if (e.type === 'delegation_sub_run_completed') {
      const run = this.runs.get(e.delegationId)?.get(e.subRunId);
      if (!run?.open) return;
      run.open = false;
      for (const p of run.parents) this.count(e.delegationId, p, -1);
    }
  }

  /** Closes the runs of `id` started under `parentRunId`: a new use of the pair starts with none of its own. */
  close(id: string, parentRunId: string | null): void {
    const runs = this.runs.get(id);
    if (!runs || !this.has(id, parentRunId)) return;
    for (const run of runs.values()) {
      if (!run.open || !run.parents.has(parentRunId)) continue;
      run.open = false;
      for (const p of run.parents) this.count(id, p, -1);
    }
  }

  /** A sub-run of `id` still running under `parentRunId` (one that names no parent run counts for every parent). */
  has(id: string, parentRunId: string | null): boolean {
    const open = this.openBy.get(id);
    if (!open) return false;
    if (parentRunId === null) {
      for (const n of open.values()) if (n > 0) return true;
      return false;
    }
    return (open.get(parentRunId) ?? 0) > 0 || (open.get(null) ?? 0) > 0;
  }

  private count(id: string, parent: string | null, by: number): void {
    let open = this.openBy.get(id);
    if (!open) this.openBy.set(id, (open = new Map()));
    open.set(parent, (open.get(parent) ?? 0) + by);
  }
}

/**
 * Which of several delegations sharing a reused id an event belongs to. Sub-run events name
 * their parent run, or a run whose start does; a retry names its runs; what is left (and a
 * tie between starts of the same parent run) goes to the latest start before the event, and a
 * delegation_completed to the latest one still without its completion.
 *
 * Every lookup is indexed (by parent run, by start time, by started sub-run): an id reused
 * thousands of times must not make each of its events scan every delegation of the id.
 */
class ReusedIdOwners {
  /** sub_run_id → parent_run_id of its start, for the reused ids only (built when first needed). */
  private parentOfRun: Map<string, string> | null = null;
  private firstStartOf: Map<string, SubRunStartedEvent> | null = null;
  private readonly completed = new Set<Delegation>();
  private readonly lists = new Map<Delegation[], ListIndex>();

  constructor(
    private readonly events: readonly JournalEvent[],
    private readonly byId: Map<string, Delegation[]>,
    /** Uses superseded by a start after their Err: closed for delegation_completed, as a completed one is. */
    superseded: ReadonlySet<Delegation> = new Set(),
  ) {
    for (const d of superseded) this.completed.add(d);
  }

  pick(list: Delegation[], e: DelegationEvent): Delegation {
    const index = this.indexOf(list);
    let candidates = list;
    const parent = this.parentOf(e);
    if (parent !== null) {
      const same = index.byParent.get(parent);
      if (same) candidates = same;
    }
    if ((e.type === 'delegation_sub_run_completed' || e.type === 'delegation_sub_run_started') && candidates.length > 1) {
      // Between starts of the same parent run: the one that started this sub-run (the first in list order);
      // a second start of a run (after a resume, journal-format §5.1) stays with the use that started it.
      const starter = index.starters.get(e.subRunId);
      const at = starter === undefined ? undefined : candidates === list ? starter.first : starter.byParent.get(parent);
      if (at !== undefined) return list[at];
      // A completion journaled before its run's start (clock inversion) goes where that start goes.
      const start = e.type === 'delegation_sub_run_completed' && starter === undefined ? this.firstStarts().get(runKey(e.delegationId, e.subRunId)) : undefined;
      if (start) return this.pick(list, start);
    }
    const byStart = this.byStart(index, candidates);
    const latest = latestStartedBefore(byStart, e);
    // A sub-run started under a start written before it in its journal, its clock a little behind.
    const next = e.type === 'delegation_sub_run_started' ? byStart.delegations[latest + 1] : undefined;
    if (next && startedJustAfterAbove(next.started!, e)) return next;
    if (e.type === 'delegation_completed') {
      const open = bestJoinMatch(sameRequest(this.openBefore(byStart, latest), e), e);
      const owner = open ?? (latest === -1 ? null : byStart.delegations[latest]) ?? candidates[0];
      this.completed.add(owner);
      return owner;
    }
    return latest === -1 ? candidates[0] : byStart.delegations[latest];
  }

  /** Attaches `e` to `d`, one of `list` (the delegations `pick` chose among). */
  attach(list: Delegation[], d: Delegation, e: DelegationEvent): void {
    d.events.push(e);
    if (e.type !== 'delegation_sub_run_started') return;
    const index = this.indexOf(list);
    const at = index.position.get(d)!;
    let starter = index.starters.get(e.subRunId);
    if (!starter) {
      starter = { first: at, byParent: new Map() };
      index.starters.set(e.subRunId, starter);
    }
    if (at < starter.first) starter.first = at;
    const inParent = starter.byParent.get(d.parentRunId);
    if (inParent === undefined || at < inParent) starter.byParent.set(d.parentRunId, at);
  }

  private indexOf(list: Delegation[]): ListIndex {
    let index = this.lists.get(list);
    if (index) return index;
    index = { position: new Map(), byParent: new Map(), byStart: new Map(), starters: new Map() };
    list.forEach((d, i) => {
      index!.position.set(d, i);
      if (d.parentRunId === null) return;
      const same = index!.byParent.get(d.parentRunId);
      if (same) same.push(d);
      else index!.byParent.set(d.parentRunId, [d]);
    });
    this.lists.set(list, index);
    return index;
  }

  private byStart(index: ListIndex, candidates: Delegation[]): ByStart {
    let b = index.byStart.get(candidates);
    if (b) return b;
    const timed = candidates.filter((d) => d.started?.time);
    // A stable sort: a tie in start time keeps list order (the later one wins the tie).
    timed.sort((x, y) => compareInstants(x.started!.time!, y.started!.time!));
    b = { delegations: timed, times: timed.map((d) => d.started!.time!), next: Int32Array.from({ length: timed.length + 1 }, (_, i) => i) };
    index.byStart.set(candidates, b);
    return b;
  }

  /** The delegations of byStart up to position `last` without a delegation_completed yet, in start order. */
  private openBefore(b: ByStart, last: number): Delegation[] {
    const open: Delegation[] = [];
    for (let i = this.nextOpen(b, 0); i <= last; i = this.nextOpen(b, i + 1)) open.push(b.delegations[i]);
    return open;
  }

  /** The first position at or after i whose delegation is not completed (b.delegations.length if none). */
  private nextOpen(b: ByStart, i: number): number {
    const { next, delegations } = b;
    let j = i;
    while (j < delegations.length && (next[j] !== j || this.completed.has(delegations[j]))) {
      if (next[j] === j) next[j] = j + 1;
      j = next[j];
    }
    for (let k = i; k < j; ) {
      const n = next[k];
      next[k] = j;
      k = n;
    }
    return j;
  }

  /** The parent run an event's sub-run was started under, when a start says so. */
  private parentOf(e: DelegationEvent): string | null {
    if (e.type === 'delegation_sub_run_started') return e.parentRunId ?? this.runParents().get(e.subRunId) ?? null;
    if (e.type === 'delegation_sub_run_completed') return this.runParents().get(e.subRunId) ?? null;
    if (e.type === 'delegation_retry') {
      const runs = this.runParents();
      return (e.originalRunId && runs.get(e.originalRunId)) || (e.retryRunId && runs.get(e.retryRunId)) || null;
    }
    return null;
  }

  /** (delegation id, sub_run_id) → its first delegation_sub_run_started, for the reused ids only (built when first needed). */
  private firstStarts(): Map<string, SubRunStartedEvent> {
    if (this.firstStartOf) return this.firstStartOf;
    this.firstStartOf = new Map();
    for (const e of this.events) {
      if (e.type !== 'delegation_sub_run_started' || (this.byId.get(e.delegationId)?.length ?? 0) <= 1) continue;
      const key = runKey(e.delegationId, e.subRunId);
      if (!this.firstStartOf.has(key)) this.firstStartOf.set(key, e);
    }
    return this.firstStartOf;
  }

  private runParents(): Map<string, string> {
    if (this.parentOfRun) return this.parentOfRun;
    this.parentOfRun = new Map();
    for (const e of this.events)
      if (e.type === 'delegation_sub_run_started' && e.parentRunId && (this.byId.get(e.delegationId)?.length ?? 0) > 1 && !this.parentOfRun.has(e.subRunId))
        this.parentOfRun.set(e.subRunId, e.parentRunId);
    return this.parentOfRun;
  }
}

/**
 * The open uses a delegation_completed can close: the execute call writes its start and its
 * completion with the same pattern into the same session (journal-format §2.1, §2.5), so a use
 * started in another session or with another pattern is not its own (unless none is left).
 */
function sameRequest(open: Delegation[], e: DelegationCompletedEvent): Delegation[] {
  let out = open;
  for (const same of [(d: Delegation) => d.started?.sessionId === e.sessionId, (d: Delegation) => d.started?.pattern === e.pattern]) {
    const kept = out.filter(same);
    if (kept.length > 0) out = kept;
  }
  return out;
}

/**
 * The open delegation a delegation_completed (which names no parent run) most likely joins:
 * one whose sub-run output its aggregate holds, then one whose runs have all settled; a tie
 * goes to the latest start. Its events so far are attached already: events come in time order.
 */
function bestJoinMatch(open: readonly Delegation[], e: DelegationCompletedEvent): Delegation | null {
  const segments = new Set(typeof e.aggregatedOutputPreview === 'string' ? e.aggregatedOutputPreview.split('\n---\n').map((s) => s.trim()).filter(Boolean) : []);
  let best: Delegation | null = null;
  let bestScore = -1;
  for (const d of open) {
    const score = joinMatchScore(d.events, e, segments);
    if (score > bestScore || (score === bestScore && best && compareInstants(d.started!.time!, best.started!.time!) >= 0)) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/**
 * How well a join fits an open use of its id, strongest evidence first: its aggregate is made of
 * this use's outputs (16); its totals are exactly this use's runs (8) or can be (4: setup failures
 * without events count in failed too); one output is in it (2); every started run has settled (1).
 * A run started and not settled counts as failed, as the engine counts a paused one. Ties go to
 * the later start (bestJoinMatch).
 */
export function joinMatchScore(events: readonly JournalEvent[], e: DelegationCompletedEvent, segments: ReadonlySet<string>): number {
  const started = new Set<string>();
  const replaced = new Set<string>(); // originals a retry took over: the totals count the retry
  const last = new Map<string, SubRunCompletedEvent>();
  for (const x of events) {
    if (x.type === 'delegation_sub_run_started') {
      started.add(x.subRunId);
      if (x.retryOf) replaced.add(x.retryOf);
    } else if (x.type === 'delegation_retry' && x.originalRunId) replaced.add(x.originalRunId);
    else if (x.type === 'delegation_sub_run_completed') last.set(x.subRunId, x);
  }
  const outputs = new Set<string>();
  for (const c of last.values()) if (c.outputPreview) outputs.add(c.outputPreview.trim());
  let succeeded = 0;
  let failed = 0;
  for (const run of new Set([...started, ...last.keys()])) {
    if (replaced.has(run)) continue;
    const c = last.get(run);
    if (c && c.status === 'completed' && c.error === null) succeeded++;
    else failed++;
  }
  let joined = 0;
  for (const s of segments) if (outputs.has(s)) joined++;
  const counted = succeeded + failed > 0 && e.succeeded === succeeded && e.failed !== null;
  const exact = counted && e.failed === failed && (e.totalSubRuns === null || e.totalSubRuns === succeeded + failed);
  const possible = counted && e.failed! >= failed && (e.totalSubRuns === null || e.totalSubRuns >= succeeded + failed);
  // More final children than the join's total_sub_runs (journal-format §2.5): not this use's join.
  if (e.totalSubRuns !== null && succeeded + failed > e.totalSubRuns) return -1;
  return (segments.size > 0 && joined === segments.size ? 16 : 0) + (exact ? 8 : 0) + (possible ? 4 : 0) + (joined > 0 ? 2 : 0) + (started.size > 0 && [...started].every((r) => last.has(r)) ? 1 : 0);
}

/** How far before a start a sub-run start on a later line of its journal may be stamped and still be its (the default --clock-skew). */
const SAME_JOURNAL_LEAD_MS = 1000;

/**
 * Whether `start`, stamped after `e`, is written above it in the same journal, at most
 * SAME_JOURNAL_LEAD_MS later: the journal's order wins over a clock that lags a little (a parent
 * run starting an id again, its first sub-run stamped 1 ms before the new start).
 */
export function startedJustAfterAbove(start: DelegationStartedEvent, e: DelegationEvent): boolean {
  return start.file === e.file && start.line < e.line && !!start.time && !!e.time && start.time.ms - e.time.ms <= SAME_JOURNAL_LEAD_MS;
}

/**
 * The position in `b` of the delegation whose start is the latest at or before `e` (a tie goes to
 * the later one in list order), or -1 when none started before it (or `e` has no time nor place).
 */
function latestStartedBefore(b: ByStart, e: DelegationEvent): number {
  // An untimed event is where the scan placed it in its file, as sortEvents orders it.
  const at = e.time ?? e.after ?? null;
  if (!at) return -1;
  let lo = 0;
  let hi = b.times.length; // the first position starting after e is in [lo, hi]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareInstants(b.times[mid], at) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function buildRuns(d: Delegation, markersByRun: ReadonlyMap<string, SyncMarkerEvent[]>): void {
  d.events = sortEvents(d.events);
  const sessions = new Set<string>();
  const files = new Set<string>();
  for (const e of d.events) {
    if (e.sessionId) sessions.add(e.sessionId);
    files.add(e.file);
    switch (e.type) {
      case 'delegation_sub_run_started': {
        const run = runOf(d, e.subRunId, e.agentId);
        run.starts.push(e);
        if (e.retryOf && !run.retryOf) run.retryOf = e.retryOf;
        break;
      }
      case 'delegation_sub_run_completed':
        runOf(d, e.subRunId, e.agentId).completions.push(e);
        break;
      case 'delegation_retry':
        d.retries.push(e);
        if (e.retryRunId) {
          const run = runOf(d, e.retryRunId, e.agentId);
          run.retryEvent = e;
          if (!run.retryOf && e.originalRunId) run.retryOf = e.originalRunId;
        }
        break;
      case 'delegation_completed':
        d.completions.push(e);
        d.completed = e;
        if (!d.pattern) d.pattern = e.pattern;
        break;
    }
  }
  d.sessions = [...sessions];
  d.files = [...files];
  for (const run of d.runs.values()) {
    const markers = markersByRun.get(run.runId);
    if (!markers) continue;
    // A marker well before the run started is another run's that had the same id (a sub_run_id reused).
    const started = run.starts.find((s) => s.time !== null)?.time;
    for (const m of markers) if (!wellBefore(m.time, started)) run.markers.push(m);
  }
  d.children = foldChains(d);
}

/** Folds each retry chain (original → retry → retry …) into one child, in attempt order. */
function foldChains(d: Delegation): Child[] {
  const next = new Map<string, SubRun>();
  for (const run of d.runs.values()) {
    if (run.retryOf && d.runs.has(run.retryOf) && run.retryOf !== run.runId && !next.has(run.retryOf)) next.set(run.retryOf, run);
  }
  const children: Child[] = [];
  const placed = new Set<string>();
  for (const run of d.runs.values()) {
    // Roots: not a linked retry of a known run (an unlinkable retry still stands as its own child).
    if (run.retryOf && d.runs.has(run.retryOf) && next.get(run.retryOf) === run) continue;
    const attempts: SubRun[] = [];
    for (let cur: SubRun | undefined = run; cur && !placed.has(cur.runId); cur = next.get(cur.runId)) {
      placed.add(cur.runId);
      if (attempts.length > 0) cur.attempt = attempts.length + 1;
      attempts.push(cur);
    }
    children.push({ key: run.runId, agentId: run.agentId, attempts, final: attempts[attempts.length - 1] });
  }
  // A cycle of retry_of links has no root; keep its runs visible rather than dropping them.
  for (const run of d.runs.values()) {
    if (!placed.has(run.runId)) {
      placed.add(run.runId);
      children.push({ key: run.runId, agentId: run.agentId, attempts: [run], final: run });
    }
  }
  return children;
}

/** A delegation whose parent_run_id is another delegation's sub-run is that run's child. */
function linkNested(delegations: Delegation[]): void {
  const owner = new Map<string, { delegation: Delegation; run: SubRun }>();
  for (const d of delegations) for (const run of d.runs.values()) if (!owner.has(run.runId)) owner.set(run.runId, { delegation: d, run });
  for (const d of delegations) {
    if (!d.parentRunId) continue;
    const o = owner.get(d.parentRunId);
    if (!o || o.delegation === d) continue;
    if (isAncestor(d, o.delegation)) continue; // never build a cycle from inconsistent ids
    d.parent = { delegation: o.delegation, runId: o.run.runId };
    o.run.nested.push(d);
  }
}

function isAncestor(candidate: Delegation, of: Delegation): boolean {
  for (let cur: Delegation | null = of; cur; cur = cur.parent?.delegation ?? null) if (cur === candidate) return true;
  return false;
}

/** The delegation and its nested descendants, depth first (a loop: journals can nest thousands deep). */
export function delegationTree(d: Delegation): Delegation[] {
  const out: Delegation[] = [];
  const stack = [d];
  while (stack.length > 0) {
    const x = stack.pop()!;
    out.push(x);
    const kids = [...x.runs.values()].flatMap((run) => run.nested);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}
