import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { validateAnalyzeOptions } from './analyze-options.js';
import type { Readable } from 'node:stream';
import { CHECKS } from './checks/index.js';
import { runChecks, type RuleSettings } from './checks/run.js';
import { DEFAULT_CHECK_OPTIONS, SEVERITY_RANK, type Check, type CheckOptions, type Finding } from './checks/types.js';
import { discoverJournals, InputError, sessionRoots, unreadableFolderNote, type JournalFile } from './journal/discover.js';
import { indexJournalsParallel, scanJournalsParallel } from './journal/parallel.js';
import { compareKeys, type EventIndex, type FileIds } from './journal/event-index.js';
import { MTIME_MARGIN_MS, RECENT_MAX_EVENTS, RECENT_MAX_FILE_EVENTS, scanRecentFirst, stoppedShort } from './journal/recent.js';
import { scanStdin } from './journal/scan.js';
import { NO_SUCH_FILE } from './journal/scan-file.js';
import type { FileStats, ScanResult } from './journal/types.js';
import type { Delegation } from './model/delegation.js';
import { ComponentMaterializer, orderKey, planOf, streamPlan, type ComponentStream, type ReportItem } from './model/component-stream.js';
import { forgetScan } from './model/cross-index.js';
import { hash53 } from './journal/id-hash.js';
import { groupDelegations } from './model/group.js';
import { delegationOrder, filesBySession, isLastTarget, resolveTarget, targetCandidate } from './model/target.js';
import { buildDelegationReport, fileLimits, repeatedLines } from './report/build.js';
import { SCHEMA_VERSION, type DelegationReport, type ReportTargetKind, type ScanStats, type TraceReport } from './report/types.js';
import { compareInstants, monotonicMs } from './journal/time.js';
import { VERSION } from './version.js';
import { abortable } from './abort.js';

export interface AnalyzeOptions {
  /** Directories, files or globs; default $ASTRA_SESSIONS_DIR or ~/.astra/sessions. */
  sessions?: string[];
  /** Read one journal from this stream instead of the sessions tree. */
  stdin?: Readable;
  /** Delegation id, prefix, parent run id, session id or `last` (default). */
  target?: string;
  all?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  checkOptions?: Partial<CheckOptions>;
  rules?: RuleSettings;
  /** Extra checks run after the built-in ones (e.g. contract checks). */
  extraChecks?: readonly Check[];
  /** Extra Limits lines for a delegation's block (e.g. what a contract could not check). */
  extraLimits?: (d: Delegation) => string[];
  /** Progress as files are read; an error it throws stops the run and is rethrown (a way to give up early). */
  onFile?: (done: number, total: number, bytes: number) => void;
  /** Alternative scanner; by default large inputs are read on worker threads (see `jobs`). */
  scan?: (files: JournalFile[]) => Promise<ScanResult>;
  /** Threads for large scans (default: one less than the cores, 1 to 4); 1 reads in this thread only. */
  jobs?: number;
  /** `last` reads only the files modified since the newest delegation started (default true). */
  recentFirst?: boolean;
  /**
   * Stops the run when aborted: the scan at its next file or progress step (its threads too),
   * the report at its next delegation. The run rejects (streamAll's loop throws) with
   * `signal.reason`, an `AbortError` unless the caller gave another; a `stdin` stream is destroyed.
   */
  signal?: AbortSignal;
  /** Called with the journals found, before any is read (the CLI refuses an --output onto one of them). */
  onJournals?: (files: readonly JournalFile[]) => void;
}

export interface Analysis {
  report: TraceReport;
  delegations: Delegation[];
  scan: ScanResult;
}

/** A target that names nothing, or several things: exit 2 with a sentence (and candidates). */
export class TargetError extends InputError {
  override name = 'TargetError';
  /** Lines seen by the scan could not be read back for the report: a journal changed during the run. */
  changedDuringRun = false;
  constructor(message: string, readonly candidates: string[] = []) {
    super(message);
  }
}

const isLastQuery = (options: AnalyzeOptions) => !options.all && isLastTarget(options.target);

/** `notes` are Limits lines about what was read (e.g. the files `last` could skip). */
export async function loadJournals(options: AnalyzeOptions): Promise<{ scan: ScanResult; roots: string[]; notes: string[] }> {
  const { scan, roots, notes } = await readJournals(abortable(options));
  options.signal?.throwIfAborted(); // a read error the abort caused (stdin destroyed) is counted, not thrown
  return { scan, roots, notes };
}

interface JournalsRead {
  scan: ScanResult;
  roots: string[];
  notes: string[];
  /** The discovered journals (none for standard input). */
  files: JournalFile[];
  /** `last` stopped at `maxEvents` before its rule applied: `scan` cannot stand for the tree. */
  cut: boolean;
  /** `last` read only the files modified since the newest start (the recent-first rule applied). */
  subset: boolean;
}

/** The start of the Limits line of a `last` that read only the recent files. */
const SUBSET_NOTE = 'last read ';

/**
 * Progress over the batches of a recent-first read: files and bytes add up from batch to batch,
 * and the total is the files it has decided to read so far (it does not know how many more).
 * Called with each batch's size, returns that batch's onFile.
 */
function batchedProgress(onFile: AnalyzeOptions['onFile']) {
  if (!onFile) return undefined;
  let filesBefore = 0;
  let bytesBefore = 0;
  return (batchFiles: number) => {
    const files0 = filesBefore;
    const bytes0 = bytesBefore;
    filesBefore += batchFiles;
    return (done: number, _total: number, bytes: number) => {
      onFile(files0 + done, filesBefore, bytes0 + bytes);
      if (done === batchFiles) bytesBefore = bytes0 + bytes;
    };
  };
}

/** loadJournals; `last` keeps at most `maxEvents` events before it gives up on reading recent files only. */
async function readJournals(options: AnalyzeOptions, maxEvents = Number.POSITIVE_INFINITY, maxFileEvents = RECENT_MAX_FILE_EVENTS): Promise<JournalsRead> {
  if (options.stdin) {
    validateAnalyzeOptions(options); // discoverTree does it for a tree
    return { scan: await scanStdin(options.stdin), roots: ['<stdin>'], notes: [], files: [], cut: false, subset: false };
  }
  const { roots, files, notes: unreadable } = await discoverTree(options);
  if (options.scan) return { scan: await options.scan(files), roots, notes: unreadable, files, cut: false, subset: false };
  if (isLastQuery(options) && options.recentFirst !== false) {
    const onFile = batchedProgress(options.onFile);
    const r = await scanRecentFirst(files, (subset, maxEventsPerFile) => scanJournalsParallel(subset, { jobs: options.jobs, maxEventsPerFile, onFile: onFile?.(subset.length) }), { maxEvents, maxFileEvents });
    const notes =
      r.read < r.total && r.newestStart
        ? [`${SUBSET_NOTE}${r.read} of ${r.total} journal files, newest first, down to every file modified since the newest delegation started (${r.newestStart}); checks that compare delegations, and the #2 key of a reused delegation id, saw only the files read (use --all or name the delegation to read every file).`]
        : [];
    return { scan: r.scan, roots, notes: [...unreadable, ...notes], files, cut: stoppedShort(r), subset: r.read < r.total && r.newestStart !== null };
  }
  return { scan: await scanJournalsParallel(files, { onFile: options.onFile, jobs: options.jobs }), roots, notes: unreadable, files, cut: false, subset: false };
}

export async function analyze(options: AnalyzeOptions = {}): Promise<Analysis> {
  // As the CLI refuses `--all <target>`: one of them would be silently dropped.
  if (options.all && options.target !== undefined) throw new InputError('all and target cannot be combined: all reports every delegation, target names some');
  const run = abortable(options);
  const prepared = await prepareAnalysis(run);
  options.signal?.throwIfAborted(); // a read error the abort caused (stdin destroyed) is counted, not thrown
  const report = buildTraceReport(prepared.scan, prepared, options, prepared);
  return { report, delegations: prepared.delegations, scan: prepared.scan };
}

/** What a streamed report is written from: the scan's counts and the delegations in report order. */
export interface ReportSource {
  scan: ScanResult;
  kind: ReportTargetKind;
  notes: string[];
  began: number;
  /**
   * Each selected delegation in report order, with the delegations its checks compare it with.
   * Called again, reads them again, in the same order (an html page takes two reads).
   */
  items(): Iterable<ReportItem>;
  /** Limits lines known only once every item of the latest read was read. */
  lateNotes?(): string[];
  /** How far items() has got, in units of work (`last` and small reports have none). */
  progress?(): { done: number; total: number };
}

/** What a report is built from: the scan, every delegation, the selected ones, and how long it took. */
export interface PreparedAnalysis extends ReportSelection, ReportSource {}

/** Reads the journals, groups delegations and resolves the target; the checks run later, per delegation. */
export async function prepareAnalysis(options: AnalyzeOptions = {}, retried = false): Promise<PreparedAnalysis> {
  const began = monotonicMs();
  const read = await readJournals(options);
  // A journal archived between the listing and the scan may hold the target (or the newest delegation): a new listing finds the archive. Once.
  if (!retried && !options.stdin && vanishedSinceListing(read.scan)) return prepareAnalysis(options, true);
  const prepared = analysisOf(read, options, began);
  // A delegation id reused: events of an older delegation whose start is in a file not read.
  if (read.subset && subsetMayMislead(prepared)) return prepareAnalysis({ ...options, recentFirst: false });
  return prepared;
}

/**
 * Whether a delegation read from recent files only may have taken events of an older one with
 * the same id, whose start (and so their true owner) is in a file not read: an event of it
 * stamped before its own start; a sub-run with no start (a tracker
 * wrote an older use's completion later); a second delegation_completed; or events of an
 * earlier use grouped apart (their start may be in a file not read, and take them back).
 */
export function mayHaveUnreadStart(d: Delegation): boolean {
  const start = d.started?.time;
  if (!d.started || d.earlierUse) return true;
  if (d.completions.length > 1 && !sameCompletions(d)) return true; // a repeated identical one is the engine's retry of the write
  for (const run of d.runs.values()) if (run.starts.length === 0) return true;
  if (!start) return false;
  // Stamped before the start, even by a millisecond: a full read gives such an event to the id's
  // latest start before it (a lost start's runs, a clock behind), which may be in a file not read.
  return d.events.some((e) => e.type !== 'delegation_started' && e.time !== null && compareInstants(e.time, start) < 0);
}

/**
 * Whether d's delegation_completed was picked among several open uses of its id: another use,
 * started before that join, has none of its own. The pick weighs their runs and outputs, which
 * may be in files not read (a tracker's), so a full read may give the join to the other use.
 */
function joinContested(d: Delegation, sameId: readonly Delegation[]): boolean {
  const join = d.completions[0]?.time;
  if (!join) return false;
  return sameId.some((o) => o !== d && o.completions.length === 0 && o.started?.time != null && compareInstants(o.started.time, join) <= 0);
}

/** Whether any of `rows` mayHaveUnreadStart, or has a join contested by another open use of its id among `delegations`. */
function rowsMayMislead(rows: readonly Delegation[], delegations: readonly Delegation[]): boolean {
  if (rows.some(mayHaveUnreadStart)) return true;
  // Each row's uses gathered in one pass: `list --limit N` has N rows, not a pass over the tree per row.
  const ids = new Set(rows.map((d) => d.id));
  const sameId = new Map<string, Delegation[]>();
  for (const o of delegations) {
    if (!ids.has(o.id)) continue;
    const list = sameId.get(o.id);
    if (list) list.push(o);
    else sameId.set(o.id, [o]);
  }
  return rows.some((d) => joinContested(d, sameId.get(d.id) ?? []));
}

/** Every delegation_completed of d says the same (status, totals, preview, pattern): one join written twice. */
function sameCompletions(d: Delegation): boolean {
  // Pattern too, as duplicate-completion compares them: another pattern's join is another use's.
  const key = (c: Delegation['completions'][number]) => JSON.stringify([c.aggregatedStatus, c.totalSubRuns, c.succeeded, c.failed, c.aggregatedOutputPreview, c.pattern]);
  const first = key(d.completions[0]);
  return d.completions.every((c) => key(c) === first);
}

/**
 * Whether a recent-first read may show another delegation than a full read would: a selected
 * delegation may hold an older one's events, or events newer than the newest start belong to a
 * delegation whose start was not read (its file's mtime was set back, so it looked old).
 */
function subsetMayMislead(prepared: Pick<PreparedAnalysis, 'selected' | 'delegations'>): boolean {
  if (rowsMayMislead(prepared.selected, prepared.delegations)) return true;
  // An earlier use split off a selected delegation's id (its start may be in a file not read) numbers that id's keys.
  if (prepared.delegations.some((d) => d.earlierUse && prepared.selected.some((s) => s.id === d.id))) return true;
  let newest = Number.NEGATIVE_INFINITY;
  for (const d of prepared.selected) if (d.started?.time) newest = Math.max(newest, d.started.time.ms);
  return prepared.delegations.some((d) => !d.started && d.events.some((e) => e.time !== null && e.time.ms > newest + MTIME_MARGIN_MS));
}

/** Whether `last`'s recent-first read of these events cannot stand for the tree (`--follow last` then indexes it, as `last` does). */
export function recentReadMayMislead(scan: ScanResult): boolean {
  const delegations = groupDelegations(scan.events).sort(delegationOrder);
  const r = resolveTarget(undefined, delegations);
  return r.ok && subsetMayMislead({ selected: r.delegations, delegations });
}

function analysisOf({ scan, roots, notes }: JournalsRead, options: AnalyzeOptions, began: number): PreparedAnalysis {
  const delegations = groupDelegations(scan.events).sort(delegationOrder);
  const sessionFiles = filesBySession(scan.files.map((f) => f.file));
  let selected: Delegation[];
  let kind: ReportTargetKind;
  if (options.all) {
    selected = delegations;
    kind = 'all';
  } else {
    const r = resolveTarget(options.target, delegations, sessionFiles);
    if (!r.ok) throw targetError(r, options.target, roots, scan, subRunOwner(options.target, delegations));
    selected = r.delegations;
    kind = r.kind;
  }
  return { scan, delegations, selected, kind, notes, began, items: () => selected.map((delegation) => ({ delegation, all: delegations })) };
}

/**
 * `--all` over a sessions tree for the streamed formats: the scan keeps an index of the events
 * instead of the events, and delegations are grouped and checked one linked group at a time,
 * so memory follows the largest group, not the tree (docs/performance.md). Same report, same
 * order, as prepareAnalysis + buildTraceReport.
 */
export async function prepareStreamedAll(options: AnalyzeOptions): Promise<ReportSource> {
  let tree: Awaited<ReturnType<typeof indexTree>> | null = await indexTree(options);
  // A journal archived between the listing and its scan (its .jsonl.gz not listed): its
  // delegations would be missing. Listed and read once more; the first index is let go first.
  if (vanishedSinceListing(tree.scan)) {
    tree = null;
    tree = await indexTree(options);
  }
  const { began, files, index, scan, notes } = tree;
  const plan = planOf(index);
  let stream: ComponentStream | null = null;
  return {
    scan,
    kind: 'all',
    notes,
    began,
    // Each call reads the components again (an html page is written from a second read).
    items: () => (stream = streamPlan(plan, files)).items,
    lateNotes: () => {
      const reread = stream?.rereadNote();
      return reread ? [reread] : [];
    },
    progress: () => stream?.progress() ?? { done: 0, total: 0 },
  };
}

/**
 * A named target (delegation id or key, parent run, session, id prefix) over a sessions tree,
 * through the event index. Only the components that can hold a match are rebuilt: those linked
 * to the query as an id (a delegation id, key or parent run id links events), and those with
 * events in a file whose events carry the query as a session id or a delegation id starting with
 * it, or that is named after it (the scan noted each file's ids). Of these, only the components
 * holding a match are kept, and only the matches are checked. Same result as prepareAnalysis,
 * whose resolveTarget it applies to the matching delegations (its rules look at matches only).
 */
export async function prepareStreamedTarget(options: AnalyzeOptions & { target: string }): Promise<ReportSource> {
  let source: ReportSource;
  try {
    source = await prepareStreamedTargetOnce(options);
  } catch (err) {
    // Its journal changed between the scan and the read back (a session archived to .jsonl.gz as
    // the engine rotates it): a second run finds the new file. Once: a tree that keeps changing says so.
    if (err instanceof TargetError && err.changedDuringRun) return prepareStreamedTargetOnce(options);
    throw err;
  }
  // Found, but a journal archived since the listing may hold more matches (another use of the id, a second id of the prefix).
  return vanishedSinceListing(source.scan) ? prepareStreamedTargetOnce(options) : source;
}

async function prepareStreamedTargetOnce(options: AnalyzeOptions & { target: string }): Promise<ReportSource> {
  const { began, roots, files, index, scan, notes } = await indexTree(options, { fileIds: true });
  const query = options.target;
  const sessionFiles = filesBySession(files.map((f) => f.display));
  const { linkedTo, inFiles } = targetLinks(query, index.fileIds, files);
  const plan = { view: index.view(), ...index.components(linkedTo, inFiles) };
  const matches = targetCandidate(query, sessionFiles);
  const m = new ComponentMaterializer(plan, files);
  const groupOf = new Map<Delegation, Delegation[]>();
  const candidates: Delegation[] = [];
  let owner: Delegation | undefined; // the query is a sub-run id (an id that links components): for the error's hint
  for (const c of plan.linked) {
    const all = m.materialize(c);
    owner ??= subRunOwner(query, all);
    const found = all.filter(matches);
    if (found.length === 0) {
      forgetScan(all); // not kept: a broad prefix must not hold every component
      continue;
    }
    for (const d of found) candidates.push(d); // not push(...): a component can hold 100,000s
    for (const d of all) groupOf.set(d, all); // nested delegations are in the same group
  }
  const reread = m.rereadNote;
  m.close();
  const r = resolveTarget(query, candidates, sessionFiles);
  // Found nothing, perhaps because its journal changed after the scan (archived, say): say so, not just "no match".
  if (!r.ok) throw targetError(r, query, roots, scan, owner, reread);
  const selected = r.delegations;
  let done = 0;
  return {
    scan,
    kind: r.kind,
    notes,
    began,
    items: function* () {
      done = 0;
      for (const delegation of selected) {
        done++; // counted as handed out: the report phase asks after checking it
        yield { delegation, all: groupOf.get(delegation)! };
      }
    },
    lateNotes: () => (reread ? [reread] : []),
    // The matches are known: the report phase's bar fills, as it did when they were read into memory.
    progress: () => ({ done, total: selected.length }),
  };
}

/**
 * `last` over a sessions tree. Usually as prepareAnalysis: the files modified since the newest
 * delegation started, read into memory. But journals copied without their modification times
 * (`cp -r`, `scp -r`) all look new, and that rule would then read the whole tree into memory. So
 * once it would keep more than RECENT_MAX_EVENTS events, the whole tree is indexed instead (as for
 * `--all`), and the groups of linked delegations are rebuilt newest start first, only until no
 * group left can hold a newer start than the newest found. Same result as a whole-tree read.
 */
export async function prepareLast(options: AnalyzeOptions, maxEvents = RECENT_MAX_EVENTS, maxFileEvents = RECENT_MAX_FILE_EVENTS, retried = false): Promise<PreparedAnalysis> {
  const began = monotonicMs();
  const read = await readJournals(options, maxEvents, maxFileEvents);
  // A journal archived between the listing and the scan may hold the newest delegation: list again, once.
  if (!retried && vanishedSinceListing(read.scan)) return prepareLast(options, maxEvents, maxFileEvents, true);
  if (!read.cut) {
    const prepared = analysisOf(read, options, began);
    if (!(read.subset && subsetMayMislead(prepared))) return prepared;
    read.notes = read.notes.filter((n) => !n.startsWith(SUBSET_NOTE)); // the subset cannot stand for the tree: it is indexed whole
  }
  read.scan.events.length = 0; // the partial read is not used: free it before the whole tree
  const { roots, files, notes, index, scan } = await indexTree(options, { starts: true, tree: read });
  // The index reuses the first read's listing: a journal archived since may hold the newest delegation.
  if (!retried && vanishedSinceListing(scan)) return prepareLast(options, maxEvents, maxFileEvents, true);
  const newest = newestGroup(index, files);
  // A start without a parseable ts orders by its place in the files (delegationOrder): every delegation is needed.
  if (newest === 'untimed') return prepareAnalysis({ ...options, recentFirst: false });
  const { group, reread } = newest;
  // A journal moved between the scan and the read back (a session archived to .jsonl.gz as the
  // engine rotates it) may have held the newest delegation: a second run finds the new file.
  // Once: a tree that keeps changing says so in the Limits line.
  if (reread !== null && !retried) {
    forgetScan(group);
    return prepareLast(options, maxEvents, maxFileEvents, true);
  }
  const r = resolveTarget(undefined, group);
  if (!r.ok) throw targetError(r, undefined, roots, scan, undefined, reread);
  // Checks compare with the delegations linked to the newest one, as the streamed `--all` does.
  return {
    scan,
    delegations: group,
    selected: r.delegations,
    kind: r.kind,
    notes: reread ? [...notes, reread] : notes, // the lines were read back already
    began,
    items: () => r.delegations.map((delegation) => ({ delegation, all: group })),
  };
}

/**
 * The group of linked delegations that holds the newest started delegation, from a whole-tree
 * index built with `starts` (it ends the index): groups are rebuilt newest start first, only
 * until no group left can hold a newer start than the newest delegation found. `files`: the
 * journals its events are in. 'untimed' when a start has no parseable ts: its place in the
 * order then depends on every delegation (delegationOrder). An empty group: no start at all.
 */
export function newestGroup(index: EventIndex, files: readonly JournalFile[]): { group: Delegation[]; files: Set<number>; reread: string | null } | 'untimed' {
  const plan = { view: index.view(), ...index.components() };
  const newest = plan.newest!;
  if (newest.untimed > 0) return 'untimed';
  const m = new ComponentMaterializer(plan, files);
  let best: Delegation | null = null;
  let group: Delegation[] = [];
  let component = -1;
  for (let k = 0; k < newest.components.length; k++) {
    if (best && compareKeys(newest.keys[k], orderKey(best)) < 0) break; // no delegation there starts later
    const all = m.materialize(newest.components[k]);
    const top = newestStarted(all);
    if (top && (!best || delegationOrder(top, best) > 0)) {
      if (best) forgetScan(group);
      best = top;
      group = all;
      component = newest.components[k];
    } else forgetScan(all);
  }
  const reread = m.rereadNote;
  m.close();
  const inFiles = new Set<number>();
  if (component >= 0) for (const r of plan.components.recordsOf(component)) inFiles.add(plan.view.fileIndex.get(r));
  return { group, files: inFiles, reread };
}

function newestStarted(all: readonly Delegation[]): Delegation | null {
  let newest: Delegation | null = null;
  for (const d of all) if (d.started && (!newest || delegationOrder(d, newest) > 0)) newest = d;
  return newest;
}

/**
 * What can hold a named target's matches, for EventIndex.components: the id hashes of the query
 * (and of a key's delegation id: `id#2`), and the files that carry it as a session or id prefix.
 */
export function targetLinks(query: string, fileIds: readonly FileIds[], files: readonly JournalFile[]): { linkedTo: number[]; inFiles: Set<number> } {
  const hash = query.indexOf('#');
  return { linkedTo: hash > 0 ? [hash53(query), hash53(query.slice(0, hash))] : [hash53(query)], inFiles: filesNaming(query, fileIds, files) };
}

/** Files whose events carry `query` as a session id or as the start of a delegation id, or named after it as a session. */
function filesNaming(query: string, fileIds: readonly FileIds[], files: readonly JournalFile[]): Set<number> {
  const out = new Set<number>();
  for (const f of fileIds) if (f.sessionIds.includes(query) || f.delegationIds.some((id) => id.startsWith(query))) out.add(f.fileIndex);
  files.forEach((f, i) => {
    if (f.sessionId === query) out.add(i);
  });
  return out;
}

/** The sessions roots and their journals; Limits lines for layout folders that cannot be listed. */
async function discoverTree(options: AnalyzeOptions): Promise<{ roots: string[]; files: JournalFile[]; notes: string[] }> {
  validateAnalyzeOptions(options);
  const { roots, defaultOrigin } = sessionRoots(options.sessions, options.env ?? process.env);
  const folders: string[] = [];
  const files = await discoverJournals(roots, options.cwd ?? process.cwd(), folders, defaultOrigin);
  options.onJournals?.(files);
  const notes = folders.map(unreadableFolderNote);
  // A root one level off (`…/v1/users`, an owner's folder) reads nothing: say where journals are looked for.
  if (files.length === 0 && folders.length === 0 && roots.some((r) => holdsSomething(path.resolve(options.cwd ?? process.cwd(), r)))) notes.push(OFF_LEVEL_NOTE(roots));
  return { roots, files, notes };
}

/** Where a root's journals are looked for (the two layouts), for a root one level off. */
const LAYOUTS_HINT = 'a folder is read as <folder>/*.jsonl and <folder>/v1/users/*/sessions/*.jsonl';
const OFF_LEVEL_NOTE = (roots: string[]) => `no journal file (*.jsonl, *.jsonl.gz) found under ${roots.join(', ')}: ${LAYOUTS_HINT}; name the sessions folder itself, not one above or inside it.`;

/** A folder that is not empty (a root that reads no journal yet holds something is likely one level off). */
function holdsSomething(folder: string): boolean {
  try {
    return readdirSync(folder).length > 0;
  } catch {
    return false;
  }
}

/** Discovers the sessions tree (unless `tree` is it) and scans it into an event index (the streamed paths' first step). */
async function indexTree(
  options: AnalyzeOptions,
  { fileIds = false, starts = false, tree }: { fileIds?: boolean; starts?: boolean; tree?: { roots: string[]; files: JournalFile[]; notes: string[] } } = {},
) {
  const began = monotonicMs();
  const { roots, files, notes } = tree ?? (await discoverTree(options));
  const { files: stats, index } = await indexJournalsParallel(files, { onFile: options.onFile, jobs: options.jobs, fileIds, starts });
  const scan: ScanResult = { events: [], files: stats, eventCount: index.eventCount };
  return { began, roots, files, index, scan, notes };
}

/** The newest delegations of a tree, read recent-first (newestRecentFirst). */
export interface RecentRows {
  /** The reports, oldest first. */
  newest: DelegationReport[];
  /** Journal files read, of all of them. */
  read: number;
  files: number;
  /** The `ts` of the oldest of these delegations' starts: every file modified since was read. */
  since: string;
  /** The scan-wide Limits lines of the files read (unreadable files and folders, skipped lines). */
  limits: string[];
}

/**
 * `list` without reading months of journals: the `count` newest delegations, from the files
 * modified since the count-th newest `delegation_started` (journal/recent.ts; the rule that lets
 * `last` read a few files). Their reports are the full scan's, except for checks that compare
 * delegations, which see only the files read. Null when the subset cannot stand for the tree:
 * every file had to be read, or one of the rows would be a group of events without its
 * `delegation_started` (its start, and its place in the order, may be in an older file); the
 * caller then reads the whole tree.
 */
export async function newestRecentFirst(options: AnalyzeOptions, count: number, retried = false): Promise<RecentRows | null> {
  const { files, notes } = await discoverTree(options);
  const r = await scanRecentFirst(files, (subset, maxEventsPerFile) => scanJournalsParallel(subset, { jobs: options.jobs, maxEventsPerFile }), { count, maxEvents: RECENT_MAX_EVENTS, maxFileEvents: RECENT_MAX_FILE_EVENTS });
  // A journal archived between the listing and the scan may hold the newest rows: list again, once, then read the whole tree.
  if (vanishedSinceListing(r.scan)) return retried ? null : newestRecentFirst(options, count, true);
  if (r.read === r.total || !r.newestStart) return null;
  const delegations = groupDelegations(r.scan.events).sort(delegationOrder);
  const rows = delegations.slice(-count);
  // Fewer than asked (a start journaled twice counts once), or a row that may hold an older same-id delegation's events or join.
  if (rows.length < count || rowsMayMislead(rows, delegations)) return null;
  const assembler = new ReportAssembler(r.scan, { kind: 'all' }, options, { notes });
  const newest = rows.map((d) => assembler.delegationReport(d, delegations));
  return { newest, read: r.read, files: r.total, since: r.newestStart, limits: assembler.tail().limits };
}

/** What streamAll would otherwise drop without a word, and what to use instead. */
const STREAM_ALL_REFUSES: readonly (readonly ['target' | 'stdin' | 'scan', string])[] = [
  ['target', 'analyze({ target }) reports some'],
  ['stdin', 'analyze({ stdin, all: true }) reads a stream'],
  ['scan', 'analyze({ scan, all: true }) takes another scanner'],
];

/** A whole-tree report delivered one delegation at a time (see streamAll). */
export interface StreamedReport {
  head: Pick<TraceReport, 'schemaVersion' | 'tool' | 'target'>;
  /**
   * Each delegation's block, checked when reached, in report order. Read once: it is built as
   * it is read (a second loop gets nothing); leaving the loop early closes the journals.
   */
  delegations: Iterable<DelegationReport>;
  /** Summary, Limits and stats: complete once `delegations` has been read to the end. */
  tail(): Pick<TraceReport, 'summary' | 'limits' | 'stats'>;
}

/**
 * `--all` for library users with large trees: the report of analyze({ all: true }), the same
 * blocks in the same order, but built one delegation at a time from the event index, so memory
 * follows the largest group of linked delegations instead of the tree (docs/performance.md).
 */
export async function streamAll(options: Omit<AnalyzeOptions, 'all' | 'target' | 'stdin' | 'scan' | 'recentFirst'> = {}): Promise<StreamedReport> {
  // Options it cannot honour, passed in an AnalyzeOptions object: dropped, they would report another tree or other delegations.
  for (const [key, instead] of STREAM_ALL_REFUSES) {
    if ((options as AnalyzeOptions)[key] !== undefined) throw new InputError(`streamAll does not take ${key}: it reads every delegation of a sessions tree (${instead})`);
  }
  const all: AnalyzeOptions = abortable({ ...options, all: true });
  const source = await prepareStreamedAll(all);
  const assembler = new ReportAssembler(source.scan, source, all, source);
  function* delegations(): Generator<DelegationReport> {
    for (const { delegation, all: group } of source.items()) yield assembler.delegationReport(delegation, group);
  }
  return { head: assembler.head(), delegations: delegations(), tail: () => assembler.tail() };
}

export interface ReportSelection {
  /** Every delegation found (cross-delegation checks compare against them). */
  delegations: Delegation[];
  selected: Delegation[];
  kind: ReportTargetKind;
}

/** Runs the checks on the selected delegations and builds the report document (analyze, --follow). */
export function buildTraceReport(
  scan: ScanResult,
  selection: ReportSelection,
  options: AnalyzeOptions,
  context: { notes?: string[]; began?: number; onDelegation?: (checked: number) => void } = {},
): TraceReport {
  const items = selection.selected.map((delegation) => ({ delegation, all: selection.delegations }));
  return reportOf(new ReportAssembler(scan, selection, options, context), items, context.onDelegation);
}

/**
 * The whole report of a source's items, checked in order. Holds the report blocks, not the
 * events: what a whole-document format (html, sarif, …) is rendered from. `keep` is what the
 * report holds of each block (all of it by default): a format that reads less can hold less.
 */
export function assembleReport(source: ReportSource, options: AnalyzeOptions, onDelegation?: (checked: number) => void, keep?: (block: DelegationReport) => DelegationReport): TraceReport {
  return reportOf(new ReportAssembler(source.scan, source, options, source), source.items(), onDelegation, keep);
}

function reportOf(assembler: ReportAssembler, items: Iterable<ReportItem>, onDelegation?: (checked: number) => void, keep?: (block: DelegationReport) => DelegationReport): TraceReport {
  const delegations: DelegationReport[] = [];
  for (const { delegation, all } of items) {
    const block = assembler.delegationReport(delegation, all);
    delegations.push(keep ? keep(block) : block);
    onDelegation?.(delegations.length);
  }
  return { ...assembler.head(), delegations, ...assembler.tail() };
}

/**
 * Builds the report document piece by piece, so a large one can be written as it is made
 * (memory bounded by one delegation's report): head(), then delegationReport() for each
 * selected delegation in order, then tail(). Keys come out in the documented order.
 */
export class ReportAssembler {
  private readonly files: Map<string, FileStats>;
  private readonly checkOptions: CheckOptions;
  private readonly summary = { delegations: 0, error: 0, warning: 0, info: 0 };
  /** The built-in checks, then any extra ones (contract checks), run in one pass per delegation. */
  private readonly checks: readonly Check[];
  /** Files named by the blocks written so far: their skipped lines are reported there, not at the end. */
  private readonly mentioned = new Set<string>();

  constructor(
    private readonly scan: ScanResult,
    private readonly selection: Pick<ReportSelection, 'kind'>,
    private readonly options: AnalyzeOptions,
    private readonly context: { notes?: string[]; began?: number; lateNotes?: () => string[] } = {},
  ) {
    this.files = new Map(scan.files.map((f) => [f.file, f] as const));
    this.checkOptions = { ...DEFAULT_CHECK_OPTIONS, nowMs: Date.now(), ...options.checkOptions };
    this.checks = [...CHECKS, ...(options.extraChecks ?? [])];
  }

  head(): Pick<TraceReport, 'schemaVersion' | 'tool' | 'target'> {
    return {
      schemaVersion: SCHEMA_VERSION,
      tool: { name: 'trace-delegation', version: VERSION },
      target: { query: this.options.all ? '--all' : this.options.target ?? 'last', kind: this.selection.kind },
    };
  }

  /** Checks one delegation against `all` and builds its block; counts its findings for the summary. */
  delegationReport(d: Delegation, all: Delegation[]): DelegationReport {
    const { options, files } = this;
    options.signal?.throwIfAborted();
    for (const f of d.files) this.mentioned.add(f);
    const { findings, errors } = runChecks({ delegation: d, all, files, options: this.checkOptions, rules: options.rules, checks: this.checks });
    const report = buildDelegationReport(d, sortFindings(findings), files, [...errors, ...(options.extraLimits?.(d) ?? [])]);
    this.summary.delegations++;
    for (const f of report.findings) this.summary[f.severity]++;
    return report;
  }

  tail(): Pick<TraceReport, 'summary' | 'limits' | 'stats'> {
    const now = monotonicMs(); // once: without a start (follow mode) the duration is 0, never −1
    return {
      summary: { ...this.summary },
      limits: [...scanLimits(this.scan.files, this.mentioned), ...(this.context.notes ?? []), ...(this.context.lateNotes?.() ?? [])],
      stats: scanStats(this.scan, now - (this.context.began ?? now)),
    };
  }
}

function sortFindings(findings: Finding[]): Finding[] {
  return findings.map((f, i) => [f, i] as const).sort((a, b) => SEVERITY_RANK[b[0].severity] - SEVERITY_RANK[a[0].severity] || a[1] - b[1]).map(([f]) => f);
}

/** A prefix of several delegation ids: the candidates are listed, and nothing is reported. */
export function ambiguousTarget(target: string | undefined, candidates: readonly Delegation[]): TargetError {
  const ids = [...new Set(candidates.map((d) => d.id))];
  return new TargetError(`target ${target} is ambiguous: it is a prefix of ${ids.length} delegation ids`, ids);
}

/** The delegation that has a sub-run of this id (an engineer often holds a sub-run id, not its delegation's). */
function subRunOwner(query: string | undefined, delegations: readonly Delegation[]): Delegation | undefined {
  return query === undefined ? undefined : delegations.find((d) => d.runs.has(query));
}

/** The commands a mistyped first word may have meant (a target is tried first, as an id may be any word). */
const COMMANDS = ['list', 'check', 'rules', 'contract', 'help'];

/** One edit (insert, delete, replace or swap of neighbours) or fewer apart. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return a === b;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const [ra, rb] = [a.slice(i), b.slice(i)];
  return ra.slice(1) === rb.slice(1) || ra.slice(1) === rb || ra === rb.slice(1) || (ra.length > 1 && ra[0] === rb[1] && ra[1] === rb[0] && ra.slice(2) === rb.slice(2));
}

/** The command a mistyped first word (`lsit`, `chek`) most likely meant, if any. */
export function commandMeant(word: string | undefined): string | undefined {
  // The command itself was run, or `last`, a target one letter from `list`.
  if (word === undefined || COMMANDS.includes(word) || isLastTarget(word) || word.toLowerCase() === 'last') return undefined;
  return COMMANDS.find((c) => oneEditApart(word.toLowerCase(), c));
}

/** `; did you mean the command list? (…)` after an error about a mistyped command (`lsit`), or ''. */
export function commandHint(word: string | undefined): string {
  const command = commandMeant(word);
  if (command) return `; did you mean the command ${command}? (trace-delegation ${command} --help)`;
  // `LAST`, `lastt`: the keyword for the newest delegation, which is lower case.
  if (word !== undefined && !isLastTarget(word) && !COMMANDS.includes(word.toLowerCase()) && (word.toLowerCase() === 'last' || oneEditApart(word.toLowerCase(), 'last'))) return '; did you mean last (the newest delegation)?';
  return '';
}

/** A target as given, quoted when blanks around it (a pasted id) would not show. */
const shownTarget = (target: string | undefined) => (target !== undefined && target !== target.trim() ? JSON.stringify(target) : target);

/** A hint for a target that matched nothing: the delegation of a sub-run id, or the command meant. */
function unknownTargetHint(target: string | undefined, owner: Delegation | undefined): string {
  if (owner) return `; ${target} is a sub-run of delegation ${owner.key}: name that delegation instead`;
  // An unquoted --sessions glob, expanded by the shell: its second path became the target.
  if (target !== undefined && target.includes('/') && existsSync(target)) return `; ${target} is a path: quote a --sessions glob (--sessions '…/*/sessions') or give --sessions once per path`;
  return commandHint(target) || caseHint(target);
}

/** An upper-case paste of a UUID-like id (`2E6B8F47`) or of a reused id's key (`…#2`): the engine writes ids in lower case, and matching (whole id, key or prefix) is case-sensitive. */
function caseHint(target: string | undefined): string {
  // Id-like only: 6 or more hex digits and dashes with a digit among them (not a word such as CAFE or FACADE; a key's #n is no such digit).
  if (target === undefined || !/^[0-9a-f-]{6,}(#\d+)?$/i.test(target) || !/\d/.test(target.replace(/#\d+$/, '')) || target === target.toLowerCase()) return '';
  return `; ids are case-sensitive and the engine writes them in lower case: try ${target.toLowerCase()}`;
}

function targetError(r: Exclude<ReturnType<typeof resolveTarget>, { ok: true }>, target: string | undefined, roots: string[], scan: ScanResult, owner?: Delegation, reread: string | null = null): TargetError {
  const unread = scan.files.filter((f) => f.error !== null);
  // Say why when a file was not read: "found nothing" alone reads as "it was read and holds nothing".
  const notRead = unread.length === 0 ? '' : `; ${unread.length === scan.files.length ? (unread.length === 1 ? 'it' : `all ${unread.length}`) : `${unread.length} of them`} could not be read (${unread[0].file}: ${unread[0].error}${unread.length > 1 ? ', …' : ''})`;
  const noneThere = scan.files.length === 0 && roots.some((r) => r !== '<stdin>' && holdsSomething(r)) ? ` (${LAYOUTS_HINT}: name the sessions folder itself)` : '';
  const where = `${scan.files.length} journal ${scan.files.length === 1 ? 'file' : 'files'} under ${roots.join(', ')}${noneThere}${notRead}`;
  // The scan saw lines that the report could not read back: the journals changed during the run.
  const moved = reread ? `; ${reread.replace(/\.$/, '')}` : '';
  if (r.reason === 'ambiguous') return ambiguousTarget(target, r.candidates);
  const err = new TargetError(r.reason === 'empty' ? `no delegation_started event found in ${where}${moved}${mistypedLinesNote(scan)}` : `no delegation, parent run or session matches ${shownTarget(target)} in ${where}${moved}${unknownTargetHint(target, owner)}`);
  err.changedDuringRun = reread !== null || vanishedSinceListing(scan);
  return err;
}

/** Delegation lines skipped as mistyped: one may be the delegation_started that "none found" would deny. */
function mistypedLinesNote(scan: ScanResult): string {
  let n = 0;
  for (const f of scan.files) n += f.missingFieldLines;
  if (n === 0) return '';
  return `; ${n} delegation ${n === 1 ? 'line was' : 'lines were'} skipped, a required field (delegation_id, sub_run_id or metadata) missing or of the wrong type (trace-delegation --all names ${n === 1 ? 'its file' : 'their files'})`;
}

/** A journal listed but gone when the scan opened it: the engine archived or removed it meanwhile. */
function vanishedSinceListing(scan: ScanResult): boolean {
  return scan.files.some((f) => f.error === NO_SUCH_FILE);
}

/** Scan-wide limits: files that could not be read, and lines skipped in files no block mentions. */
function scanLimits(files: FileStats[], mentioned: ReadonlySet<string>): string[] {
  const out: string[] = [];
  // Every partial last line gets its Limits line (CHECKS.md resolved detail 4), here when no block names its file.
  const listed = files.filter((f) => f.error || !mentioned.has(f.file));
  // A tree of .jsonl/.jsonl.gz pairs repeats lines in every session: one line, not one per file.
  const repeating = listed.filter((f) => f.duplicateLines > 0);
  const summarize = repeating.length > DUPLICATE_LINES_LISTED;
  for (const f of listed) for (const l of fileLimits(f, { duplicates: !summarize })) out.push(l);
  if (summarize) {
    const lines = repeating.reduce((n, f) => n + f.duplicateLines, 0);
    const some = repeating.slice(0, 3).map((f) => f.file).join(', ');
    out.push(`${repeating.length} files: ${repeatedLines(lines)} (${some}, …).`);
  }
  return out;
}

/** Past this many files with repeated lines, the scan-wide Limits say so in one line. */
const DUPLICATE_LINES_LISTED = 10;

/** The report's `stats`: every file's counts summed. */
export function scanStats(scan: ScanResult, durationMs: number): ScanStats {
  const s: ScanStats = { files: scan.files.length, bytes: 0, lines: 0, candidateLines: 0, events: scan.eventCount ?? scan.events.length, malformedLines: 0, partialLines: 0, missingFieldLines: 0, badTimestampLines: 0, duplicateLines: 0, unreadableFiles: 0, oversizedLines: 0, durationMs: Math.round(durationMs) };
  for (const f of scan.files) {
    s.bytes += f.bytes;
    s.lines += f.lines;
    s.candidateLines += f.candidateLines;
    s.malformedLines += f.malformedLines;
    s.partialLines += f.partialLines;
    s.missingFieldLines += f.missingFieldLines;
    s.badTimestampLines += f.badTimestampLines;
    s.duplicateLines += f.duplicateLines;
    s.oversizedLines += f.oversizedLines;
    if (f.error) s.unreadableFiles++;
  }
  return s;
}
