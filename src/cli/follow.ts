import { closeSync, createReadStream, existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { ambiguousTarget, buildTraceReport, newestGroup, recentReadMayMislead, targetLinks, type AnalyzeOptions } from '../analyze.js';
import { DEFAULT_CHECK_OPTIONS, type Severity } from '../checks/types.js';
import type { Formatter } from '../format/types.js';
import { discoverJournals, pathIdentity, sessionRoots, TRACKER_STEM, type JournalFile } from '../journal/discover.js';
import { newestActivity } from '../model/evidence.js';
import { compareKeys, EventIndex, IndexChunkBuilder, type OrderKey } from '../journal/event-index.js';
import { humanDuration } from '../journal/time.js';
import { safeTerminalText } from '../format/terminal.js';
import { indexJournalsParallel } from '../journal/parallel.js';
import { RECENT_MAX_EVENTS, RECENT_MAX_FILE_EVENTS, scanRecentFirst } from '../journal/recent.js';
import { scanJournals } from '../journal/scan.js';
import { inflateArchive } from '../journal/archive.js';
import { describeError, isGzipPath, LineScanner, noteReadFailure, openJournal, readPlainInto, startsWithGzipMagic, type EventSink } from '../journal/scan-file.js';
import type { FileStats, JournalEvent } from '../journal/types.js';
import { instanceKey, orphanInstanceKey, type Delegation } from '../model/delegation.js';
import { registerForeignPreviews, type PreviewRef } from '../model/cross-index.js';
import { DormantComponents } from '../model/dormant-components.js';
import { orderKey } from '../model/component-stream.js';
import { LinkedGroups } from '../model/linked-groups.js';
import { SleepingGroups } from '../model/sleeping-groups.js';
import type { TraceReport } from '../report/types.js';
import { delegationOrder, resolveTarget } from '../model/target.js';
import { EXIT, type CliIO } from './io.js';
import { createProgress } from './progress.js';
import { reportDigest, reportInputs } from './follow-digest.js';
import { endsAt, isDirectory, isLink, readAt, readHead, safeReaddir, startsWith } from './follow-files.js';

export interface FollowSettings {
  options: AnalyzeOptions;
  formatter: Formatter;
  /** The formatter's name (text reports are separated by a blank line). */
  format: string;
  color: boolean;
  failOn: Severity | 'none';
  /** Polling period, the fallback when file-system events are missed (default 1000 ms). */
  pollMs?: number;
  /** Watch the tree for file-system events (default true); false polls only, as on a file system that sends none. */
  watch?: boolean;
  /** Stops following (in-process callers; the CLI stops on SIGINT / SIGTERM). */
  signal?: AbortSignal;
  /** No "following …" notice on stderr once the replay is done. */
  quiet?: boolean;
  /** How long a group of delegations with nothing left to print stays in memory with no new event before it sleeps (default 30 s). */
  sleepAfterMs?: number;
}

/** One journal being tailed: plain files are read from `offset` on; archives are re-read whole. */
interface Tail {
  file: JournalFile;
  fileIndex: number;
  scanner: LineScanner;
  offset: number;
  size: number;
  mtimeMs: number;
  /** Its first bytes as read (up to HEAD_BYTES): different bytes there mean it was rewritten, not appended to. */
  head?: Buffer;
  /** The last bytes read (up to HEAD_BYTES before `offset`): different bytes there mean an earlier line changed length or content. */
  last?: Buffer;
  /** The file's identity when last read: another one under the same name (moved into place) is read from the start. */
  dev?: number;
  ino?: number;
  /**
   * Set while a file the replay of `last` did not need is unread: its size then. Its bytes up to
   * there are read, as replay, once it changes.
   */
  unreadUpTo?: number;
}

/** Least time between two evaluations (regrouping what changed, printing what completed). */
const MIN_EVALUATION_GAP_MS = 200;
/**
 * Rediscover the tree (new sessions, new owner folders) every this many polls without a directory
 * event, and one more poll for every 1,000 journals: listing 20,000 of them takes ≈ 25 ms.
 */
const REDISCOVER_EVERY = 5;
const rediscoverEvery = (files: number) => REDISCOVER_EVERY + Math.floor(files / 1000);
/** Files each poll looks at beyond those with news, in turn: idle polling costs the same on 400 journals as on 20,000. */
const POLL_SLICE = 256;
/** A file that changed this recently is looked at on every poll and every watch event. */
const ACTIVE_MS = 10 * 60_000;

/**
 * `--follow [target]`: replays what the journals hold, then watches the tree. Each followed
 * delegation's report is printed once it has `delegation_completed`; one that stays open with
 * no new event for --stale-after gets its report (with the missing-completion /
 * delegation-incomplete findings) and a notice on stderr. Resolves with exit code 0 when stopped.
 */
export async function runFollow(target: string | undefined, io: CliIO, settings: FollowSettings): Promise<number> {
  const follower = new Follower(target, io, settings);
  let stopped!: () => void;
  const stopping = new Promise<void>((resolve) => (stopped = resolve));
  // Ours from the start: Ctrl-C during the replay stops it after the report being written. A
  // second signal within SECOND_SIGNAL_GRACE_MS is the same request (timeout(1) signals the process
  // and then its group); a later one ends the run the default way.
  let stopAt = 0;
  const stop = () => {
    stopAt ||= Date.now();
    follower.stopRequested = true;
    stopped();
  };
  const removeSignalHandlers = () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopAt && Date.now() - stopAt > SECOND_SIGNAL_GRACE_MS) {
      removeSignalHandlers();
      process.kill(process.pid, signal);
      return;
    }
    io.stoppedBySignal?.();
    stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, onSignal);
    // The binary's exit-0 handlers for the start-up (bin/trace-delegation.cjs) give way to ours,
    // after ours is added: a signal with no listener left for a moment would be dropped.
    for (const l of process.listeners(signal)) if ((l as { untilFollowStarts?: boolean }).untilFollowStarts) process.removeListener(signal, l);
  }
  settings.signal?.addEventListener('abort', stop, { once: true });
  if (settings.signal?.aborted) stop();
  try {
    await follower.start();
    if (follower.stopRequested) return EXIT.ok;
    follower.announce();
    await stopping;
  } finally {
    // Kept a moment: the group's copy of the signal may still be on its way.
    if (stopAt) setTimeout(removeSignalHandlers, SECOND_SIGNAL_GRACE_MS).unref();
    else removeSignalHandlers();
    follower.close();
  }
  return EXIT.ok;
}

/** A second SIGINT/SIGTERM this soon after the first is the same stop request. */
const SECOND_SIGNAL_GRACE_MS = 1000;

class Follower {
  /** Ctrl-C (or the caller's signal) came: the replay stops at its next breath, following never starts. */
  stopRequested = false;
  /** When the replay last let the event loop run (a signal is only seen then). */
  private breathedAt = performance.now();
  private readonly roots: string[];
  /** Where the roots came from when the user named none (the hint after a missing one). */
  private readonly defaultOrigin: string | undefined;
  private readonly cwd: string;
  private readonly tails = new Map<string, Tail>();
  /** Journals with a plain name, by path: whether their first bytes are gzip's (looked at once they hold two bytes). */
  private readonly gzipUnderPlainName = new Map<string, boolean>();
  /** Digests of the delegation lines read, by `.jsonl`/`.jsonl.gz` pair with two files (see newScanner). */
  private readonly seenByPair = new Map<string, Map<string, number>>();
  /** Files known per pair: a lone journal's lines are not digested (a SHA-1 a delegation line). */
  private readonly pairFiles = new Map<string, number>();
  /** Reading the files found at start (counted in pairFiles at once); later ones count as they come. */
  private replaying = true;
  /** Every event held, in groups of linked delegations: a change regroups only the groups it touches. */
  private readonly groups = new LinkedGroups();
  /** While the replay of every file is read (all but `last`): where its events go instead of memory. */
  private index: EventIndex | null = null;
  /** The index records of the file being read (a chunk a file, as the streamed `--all` adds them). */
  private builder: IndexChunkBuilder | null = null;
  /** The replay's groups that are not held in memory, woken by a new event that links to them. */
  private dormant: DormantComponents | null = null;
  /** Live groups with nothing left to print, quiet for sleepAfterMs: deflated, woken as the dormant ones are. */
  private readonly sleeping = new SleepingGroups();
  /** Tails dropped by a sibling's reset, to read again in the same refresh. */
  private readonly rereads = new Set<Tail>();
  /** Warnings printed once (a failure that repeats at every poll). */
  private readonly warned = new Set<string>();
  private delegations: Delegation[] = [];
  /**
   * Printed delegations, with how many events, markers and nested delegations they had then
   * (later ones, a late result, a retry, a cancel marker, print it again) and a hash of the report printed (a journal read again from its start
   * prints it again only if its report changed), by instanceKey.
   */
  private readonly printed = new Map<string, { events: number; report: number }>();
  /** Journals read again from their start (rewritten, replaced, archived) since the last evaluation. */
  private readonly forgottenFiles = new Set<number>();
  /** Delegations that had events in those journals when they were dropped (moved elsewhere since, maybe). */
  private readonly forgottenKeys = new Set<string>();
  /** Delegation (instanceKey: `key` renumbers when a reused id's earlier use arrives late) → its newest activity and report inputs when the stale notice was printed, and what that report said. */
  private readonly staleAt = new Map<string, { newest: number; digest: number; inputs: number }>();
  /** The delegation a named target that is a sub-run id belongs to, when the replay ended (the no-match warning names it). */
  private subRunOwner: string | null = null;
  /** For target `last`: the newest delegation when replay ended, and where it orders. */
  private newestAtReplay: string | null = null;
  private newestKeyAtReplay: OrderKey | null = null;
  /** Delegations that existed when replay ended (null during replay). */
  private replayKeys: Set<string> | null = null;
  /** Events of files read after the replay but written before it ended: the delegations whose start they hold join replayKeys. */
  private readonly lateReplay = new Set<JournalEvent>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** The folder each watcher was set on (device:inode): one removed and made again needs a new watcher. */
  private readonly watchedIds = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  /** The id a prefix target resolved to once the replay was over (null: not a prefix, or not yet). */
  private prefixId: string | null = null;
  /** Other ids the prefix came to match, already named on stderr. */
  private readonly prefixOthers = new Set<string>();
  /** Files a watch event named since the last look. */
  private readonly dirty = new Set<string>();
  /** A watch event named no file (or one not followed): the next look takes every file. */
  private lookAtAll = false;
  /** The poll's turn: the next look also takes the next POLL_SLICE files in turn. */
  private sweepWanted = false;
  private sweepOrder: Tail[] | null = null;
  private sweepAt = 0;
  /** Files that changed lately (or could not be read), with when: looked at every time. */
  private readonly active = new Map<Tail, number>();
  /** Journals that are symbolic links: looked at every time (their writes are watched nowhere). */
  private readonly linked = new Set<Tail>();
  private kickTimer: NodeJS.Timeout | null = null;
  private polls = 0;
  private lastEvaluation = 0;
  /** Journal files found at start (the notice counts them). */
  private fileCount = 0;
  private evaluationTimer: NodeJS.Timeout | null = null;
  private reportsPrinted = 0;
  /** Tails by display path, rebuilt after a journal is added (statsOf). */
  private tailsByDisplay: Map<string, Tail> | null = null;
  /** Session id → its journals' display paths, rebuilt after a journal is added (withSessionSiblings). */
  private displaysBySession: Map<string, string[]> | null = null;
  /** Reports not written yet: the replay writes them in batches (output()). */
  private pending: string[] = [];
  private pendingLength = 0;
  private batching = false;
  private busy = false;
  private again = false;
  private rediscoverWanted = false;
  private closed = false;
  private readonly startedAt = Date.now();
  private readonly nowBase: number;
  private readonly staleAfterMs: number;
  /** The options each report is built with (its `nowMs` set at print). */
  private readonly reportOptions: AnalyzeOptions;

  constructor(
    private readonly target: string | undefined,
    private readonly io: CliIO,
    private readonly settings: FollowSettings,
  ) {
    const o = settings.options;
    ({ roots: this.roots, defaultOrigin: this.defaultOrigin } = sessionRoots(o.sessions, o.env ?? process.env));
    this.cwd = o.cwd ?? process.cwd();
    this.nowBase = o.checkOptions?.nowMs ?? Date.now();
    this.staleAfterMs = o.checkOptions?.staleAfterMs ?? DEFAULT_CHECK_OPTIONS.staleAfterMs;
    // target.query names what is followed ("--all" without a target), not "last".
    const all = target === undefined || target === '';
    this.reportOptions = { ...o, all, target: all ? undefined : target };
  }

  /** "now" moves with the wall clock, from --now / TRACE_DELEGATION_NOW when given. */
  private now(): number {
    return this.nowBase + (Date.now() - this.startedAt);
  }

  async start(): Promise<void> {
    const files = await discoverJournals(this.roots, this.cwd, [], this.defaultOrigin);
    for (const f of files) this.pairFiles.set(f.pairKey, (this.pairFiles.get(f.pairKey) ?? 0) + 1);
    // A long replay shows the scan's progress line on a terminal, erased before the first report.
    const progress = createProgress(this.io.stderr, { quiet: this.settings.quiet, env: this.settings.options.env });
    // `last` replays a few files; any other replay may be the whole tree: indexed, not held.
    const indexed = this.target !== 'last';
    if (indexed) this.index = new EventIndex();
    try {
      const replayed = await this.replaySet(files, progress?.onFile);
      let bytes = 0;
      for (let i = 0; i < files.length; i++) {
        if (await this.breathe()) return;
        if (replayed.has(i)) {
          if (indexed) this.builder = new IndexChunkBuilder({ fileIds: !this.all() });
          bytes += (await this.add(files[i])).scanner.stats.bytes;
          if (indexed) this.index!.add(this.builder!.finish());
        } else this.addUnread(files[i]);
        progress?.onFile(i + 1, files.length, bytes);
      }
    } finally {
      progress?.finish();
    }
    this.replaying = false;
    if (indexed) await this.replayIndexed(files);
    else this.collect();
    if (this.stopRequested) return;
    this.rejectAmbiguousTarget();
    // Before anything sleeps: a sub-run id links the replay's groups, so its delegation is held now.
    const t = this.target;
    if (t !== undefined && t !== '' && t !== 'last') this.subRunOwner = this.delegations.find((d) => d.runs.has(t))?.key ?? null;
    this.evaluate();
    this.replayKeys = new Set(this.delegations.map(instanceKey));
    this.watchTree();
    // What was written while the replay ran (after its file was read, or in a new file) raised no
    // watch event: one look at every journal and for new ones, rather than waiting for the polls' turn.
    this.lookAtAll = true;
    this.kick(true);
    const pollMs = this.settings.pollMs ?? 1000;
    this.timer = setInterval(() => {
      this.sweepWanted = true;
      this.kick(++this.polls % rediscoverEvery(this.tails.size) === 0);
    }, pollMs);
    this.fileCount = files.length;
  }

  private all(): boolean {
    return this.target === undefined || this.target === '';
  }

  /**
   * Ends an indexed replay. Without a target, every delegation of the replay is considered in
   * report order (reported when complete, or stale), one group of linked delegations at a time,
   * and only the groups with an open delegation stay in memory. A named target holds the groups
   * that can hold its matches (as the streamed named target finds them); evaluate() picks them.
   */
  private async replayIndexed(files: readonly JournalFile[]): Promise<void> {
    // The replay's reports go out in 64 KiB writes, and before each breath: thousands of
    // reports written one by one cost a write each (≈ 0.3 s of a 1 GiB replay).
    this.batching = true;
    try {
      await this.replayGroups(files);
    } finally {
      this.batching = false;
      this.flushOutput();
    }
  }

  private async replayGroups(files: readonly JournalFile[]): Promise<void> {
    const index = this.index!;
    this.index = this.builder = null;
    for (const tail of this.tails.values()) tail.scanner.detachSink(); // from now on, events are live
    const named = this.all() ? null : targetLinks(this.target!, index.fileIds, files);
    const dormant = (this.dormant = new DormantComponents(index, files, named?.linkedTo, named?.inFiles));
    if (named) {
      for (const c of dormant.linked) this.groups.add(this.wakeOrWarn(dormant, c));
      return;
    }
    const now = this.now();
    const open = new Set<number>();
    for (const { delegation, all, component } of dormant.replay()) {
      if (await this.breathe()) return; // Ctrl-C: no report cut short
      this.consider(delegation, now, all);
      if (delegation.started && !delegation.completed) open.add(component); // it may go stale: evaluated at each poll
    }
    for (const c of open) this.groups.add(this.wakeOrWarn(dormant, c));
  }

  /** Component c's events, or none with a warning when its lines cannot be read back now (it stays dormant, and is woken at its next event). */
  private wakeOrWarn(dormant: DormantComponents, c: number): JournalEvent[] {
    try {
      return dormant.wake(c);
    } catch (err) {
      this.warnReadBack(err);
      return [];
    }
  }

  /** Out of file descriptors, or a journal unreadable for now: said once; the group is woken at its next event. */
  private warnReadBack(err: unknown): void {
    this.warnOnce(`could not read replayed lines back (${describeError(err)}): reports may miss events until it can`);
  }

  /** A prefix of several ids when the replay ends is refused as the plain command refuses it (exit 2, candidates listed). */
  private rejectAmbiguousTarget(): void {
    const t = this.target;
    if (t === undefined || t === '' || t === 'last') return;
    this.delegations = this.groups.delegations();
    const r = resolveTarget(t, this.delegations, this.sessionFiles());
    if (!r.ok && r.reason === 'ambiguous') throw ambiguousTarget(t, r.candidates);
  }

  /** The replay is over: say so, so on-call (and scripts) know that what follows is live. */
  announce(): void {
    const n = this.fileCount;
    if (!this.settings.quiet) this.io.stderr.write(`trace-delegation: following ${n} journal ${n === 1 ? 'file' : 'files'} under ${this.roots.join(', ')} (Ctrl-C to stop)\n`);
    // A mistyped id would be followed in silence forever: say that nothing matches it yet (a warning, even with --quiet).
    const t = this.target;
    if (t !== undefined && t !== '' && t !== 'last' && this.followed().length === 0) {
      const owner = this.subRunOwner;
      const hint = owner ? `; ${safeTerminalText(t)} is a sub-run of delegation ${safeTerminalText(owner)}: follow that` : '';
      this.io.stderr.write(`trace-delegation: nothing matches ${safeTerminalText(t)} yet (no delegation id or prefix, parent run or session): its delegations are reported if they appear${hint}\n`);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.kickTimer) clearTimeout(this.kickTimer);
    if (this.evaluationTimer) clearTimeout(this.evaluationTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Lets the event loop run (signals, timers) every 50 ms of replay; true once asked to stop. */
  private async breathe(): Promise<boolean> {
    if (performance.now() - this.breathedAt >= 50) {
      this.flushOutput(); // what was printed drains while the loop runs
      await new Promise((resolve) => setImmediate(resolve));
      this.breathedAt = performance.now();
    }
    return this.stopRequested;
  }

  /** Coalesces bursts of file-system events into one refresh. */
  private kick(rediscover: boolean): void {
    if (this.closed) return;
    this.rediscoverWanted ||= rediscover;
    if (this.kickTimer) return;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = null;
      void this.refresh();
    }, 25);
  }

  private async refresh(): Promise<void> {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      do {
        this.again = false;
        if (this.rediscoverWanted) {
          this.rediscoverWanted = false;
          let files: JournalFile[] = [];
          try {
            files = await discoverJournals(this.roots, this.cwd);
          } catch {
            // a root that disappeared: keep following what we have
          }
          for (const f of files) if (!this.tails.has(f.path) && !this.linksToFollowed(f.path)) await this.add(f);
          this.watchTree();
        }
        for (const tail of this.tailsToLookAt()) await this.update(tail);
        await this.reread();
        this.collect();
        // Regrouping the changed groups of delegations: at most a few times a second, however busy the writers.
        const wait = this.lastEvaluation + MIN_EVALUATION_GAP_MS - Date.now();
        if (wait > 0) this.evaluateLater(wait);
        else if (!this.closed) this.evaluate();
      } while (this.again && !this.closed);
    } finally {
      this.busy = false;
    }
  }

  /**
   * The files to look at now: those a watch event named, those that changed in the last
   * ACTIVE_MS, and on a poll the next POLL_SLICE of the others in turn (a file system without
   * watch events still has every file looked at, at least every files / POLL_SLICE polls).
   */
  private tailsToLookAt(): Tail[] {
    if (this.lookAtAll) {
      this.lookAtAll = this.sweepWanted = false;
      this.dirty.clear();
      return [...this.tails.values()];
    }
    const out = new Set<Tail>();
    for (const p of this.dirty) {
      const tail = this.tails.get(p);
      if (tail) out.add(tail);
    }
    this.dirty.clear();
    for (const tail of this.linked) if (this.tails.get(tail.file.path) === tail) out.add(tail);
    const now = Date.now();
    for (const [tail, at] of this.active) {
      if (now - at > ACTIVE_MS || this.tails.get(tail.file.path) !== tail) this.active.delete(tail);
      else out.add(tail);
    }
    if (this.sweepWanted) {
      this.sweepWanted = false;
      const order = (this.sweepOrder ??= [...this.tails.values()]);
      for (let n = Math.min(POLL_SLICE, order.length); n > 0; n--) out.add(order[this.sweepAt++ % order.length]);
      this.sweepAt %= Math.max(1, order.length);
    }
    return [...out];
  }

  /**
   * Which files (indexes into `files`) the replay reads. For `last`, only those modified since
   * the newest delegation started, as `last` reads them (journal/recent.ts): neither that
   * delegation nor any that starts later can have events in the others, which are read if they
   * change. When that rule does not apply (every file was just copied, say), finding out reads
   * at most an eighth of the tree's bytes; then the tree is indexed, as `last` does, and only
   * the files of the newest delegation's group are replayed: held in memory, the whole tree
   * would stay there while following. Every file for other targets.
   */
  private async replaySet(files: JournalFile[], onFile?: (done: number, total: number, bytes: number) => void): Promise<Set<number>> {
    const every = new Set(files.keys());
    if (this.target !== 'last' || this.settings.options.recentFirst === false) return every;
    // Paced as the replay is (breathe): this read can take seconds, and a Ctrl-C must be seen.
    // A stopped read is partial, which scanRecentFirst cannot take: it is left by an exception.
    const pace = () => this.breathe();
    const stopped = new Error('stopped');
    let r;
    try {
      r = await scanRecentFirst(
        files,
        async (subset, maxEventsPerFile) => {
          const scan = await scanJournals(subset, { maxEventsPerFile, pace });
          if (this.stopRequested) throw stopped;
          return scan;
        },
        { maxShare: 1 / 8, maxEvents: RECENT_MAX_EVENTS, maxFileEvents: RECENT_MAX_FILE_EVENTS },
      );
    } catch (err) {
      if (err === stopped) return every; // start() stops before reading any of it
      throw err;
    }
    // As `last` falls back: the files read may hold another delegation's events than the newest they show.
    if (r.newestStart !== null && !(r.read < r.total && recentReadMayMislead(r.scan))) return new Set(r.scan.files.map((f) => f.fileIndex));
    if (r.read === r.total && !r.readInPart) return every; // a small tree: read whole already
    r.scan.events.length = 0;
    const { index } = await indexJournalsParallel(files, { jobs: this.settings.options.jobs, starts: true, onFile, pace });
    if (this.stopRequested) return every;
    const newest = newestGroup(index, files);
    return newest === 'untimed' ? every : newest.files;
  }

  private async add(file: JournalFile): Promise<Tail> {
    if (!this.replaying) await this.pairGrows(file);
    const fileIndex = this.tails.size;
    const tail: Tail = { file, fileIndex, scanner: this.newScanner(file, fileIndex), offset: 0, size: -1, mtimeMs: -1 };
    this.setTail(file.path, tail);
    await this.update(tail);
    return tail;
  }

  /** A file the replay does not need: watched from its current size and modification time. */
  private addUnread(file: JournalFile): void {
    const fileIndex = this.tails.size;
    let st = null;
    try {
      st = statSync(file.path);
    } catch {
      // one that cannot be stat'ed now is read like any file once it can be
    }
    const size = st?.size ?? 0;
    this.setTail(file.path, { file, fileIndex, scanner: this.newScanner(file, fileIndex), offset: 0, size, mtimeMs: st?.mtimeMs ?? 0, dev: st?.dev, ino: st?.ino, unreadUpTo: size });
  }

  /**
   * A journal appears beside one already followed (a `.jsonl.gz` archive written beside its
   * `.jsonl`, say): the lines of both must now be told apart from their repeats, so those read
   * without digests are read again, with them, before the new one.
   */
  private async pairGrows(file: JournalFile): Promise<void> {
    const known = this.pairFiles.get(file.pairKey) ?? 0;
    this.pairFiles.set(file.pairKey, known + 1);
    if (known !== 1) return; // none before, or digested already
    for (const other of this.tails.values()) {
      if (other.file.pairKey !== file.pairKey) continue;
      if (other.unreadUpTo !== undefined) other.scanner = this.newScanner(other.file, other.fileIndex); // nothing read yet
      else this.dropForReread(other);
    }
    await this.reread();
  }

  private newScanner(file: JournalFile, fileIndex: number): LineScanner {
    let seen = this.seenByPair.get(file.pairKey);
    if (!seen && (this.pairFiles.get(file.pairKey) ?? 0) > 1) this.seenByPair.set(file.pairKey, (seen = new Map()));
    if (!this.index) return new LineScanner({ display: file.display, fileIndex, seen });
    // An indexed replay: a plain journal's lines are read again by offset, an archive's are copied.
    const sink: EventSink = (e, buf, start, end, offset) => this.builder!.add(e, buf, start, end, offset);
    return new LineScanner({ display: file.display, fileIndex, seen, sink }, undefined, 0, { rereadable: !this.isArchive(file) });
  }

  /** A new name for a journal already followed (a hard link made since): the same journal, not a second one. */
  private linksToFollowed(p: string): boolean {
    let st;
    try {
      st = statSync(p);
    } catch {
      return false;
    }
    if (st.nlink < 2) return false;
    for (const tail of this.tails.values()) if (tail.ino === st.ino && tail.dev === st.dev) return true;
    return false;
  }

  /** Read as an archive: named `.gz`, or holding gzip data under a plain name (a link to an archive), as the plain command reads it. */
  private isArchive(file: JournalFile): boolean {
    if (isGzipPath(file.path)) return true;
    let known = this.gzipUnderPlainName.get(file.path);
    if (known === undefined) {
      const sniffed = startsWithGzipMagic(file.path);
      if (sniffed === null) return false; // empty or unreadable for now: looked at again next time
      this.gzipUnderPlainName.set(file.path, (known = sniffed));
    }
    return known;
  }

  /**
   * Whether a plain-named journal holds gzip data is known again when it was replaced or shrank
   * (another file now), and at each change while it holds gzip data (read whole anyway): one
   * that was read as an archive and is plain now drops what the archive gave.
   */
  private sniffAgainIfReplaced(tail: Tail, replaced: boolean): void {
    const p = tail.file.path;
    const wasArchive = this.gzipUnderPlainName.get(p);
    if (isGzipPath(p) || !(replaced || wasArchive)) return;
    this.gzipUnderPlainName.delete(p);
    if (wasArchive && !this.isArchive(tail.file)) this.reset(tail);
  }

  /** Drops what a file gave so far (truncated, replaced, or an archive rewritten) and reads it again. */
  private reset(tail: Tail): void {
    this.forget(tail);
    // Lines of its .jsonl/.jsonl.gz sibling that repeated this file's were dropped as repeats:
    // read the sibling again too, or what this file no longer holds would be lost.
    for (const other of this.tails.values()) {
      if (other === tail || other.file.pairKey !== tail.file.pairKey || other.unreadUpTo !== undefined) continue;
      this.dropForReread(other);
      this.kick(false);
    }
  }

  /** Drops what a tail gave, to read it again from the start before anything is evaluated (a report in between would miss its events). */
  private dropForReread(tail: Tail): void {
    this.forget(tail);
    tail.size = -1;
    this.rereads.add(tail);
  }

  /** Reads the tails that a reset dropped, until none is left (a sibling's reset can drop another). */
  private async reread(): Promise<void> {
    while (this.rereads.size) {
      const [tail] = this.rereads;
      this.rereads.delete(tail);
      await this.update(tail);
    }
  }

  /** Drops a file's events and the digests of its lines, to read it from the start. */
  private forget(tail: Tail): void {
    // Their reports may change (other lines, another file): checked at the next evaluation.
    this.forgottenFiles.add(tail.fileIndex);
    for (const d of this.delegations) if (this.printed.has(instanceKey(d)) && d.events.some((e) => e.fileIndex === tail.fileIndex)) this.forgottenKeys.add(instanceKey(d));
    // Sleeping groups with lines in it wake first, so that what they held of it is dropped too.
    const slept = this.sleeping.wakeFile(tail.fileIndex);
    for (const key of slept.keys) if (this.printed.has(key)) this.forgottenKeys.add(key);
    this.groups.add(slept.events);
    this.groups.removeFile(tail.fileIndex);
    const dormant = this.dormant;
    // Replayed groups with lines in it wake too, without them: their other delegations' reports may change (events regrouped).
    const linked = dormant?.dormantIn(tail.fileIndex) ?? [];
    dormant?.forgetFile(tail.fileIndex);
    if (dormant) for (const c of linked) this.groups.add(this.wakeOrWarn(dormant, c));
    const seen = this.seenByPair.get(tail.file.pairKey);
    if (seen) for (const [digest, file] of seen) if (file === tail.fileIndex) seen.delete(digest);
    tail.scanner = this.newScanner(tail.file, tail.fileIndex);
    tail.offset = 0;
    tail.head = tail.last = undefined;
  }

  /** A journal no longer there as a file: what it gave is dropped (once), and it is looked at every poll, as it may come back. */
  private dropRemoved(tail: Tail): void {
    if (tail.offset === 0 && tail.size < 0) return; // dropped already
    this.reset(tail);
    tail.size = tail.mtimeMs = -1;
    tail.unreadUpTo = undefined;
    this.active.set(tail, Date.now());
  }

  /** Reads what was appended since the last look (only new bytes; a line waits for its newline). */
  private async update(tail: Tail): Promise<void> {
    let st;
    try {
      st = statSync(tail.file.path);
    } catch (err) {
      // Removed (archived as .jsonl.gz beside it, cleaned up): what it gave is dropped, and a
      // sibling whose repeats of its lines were left out is read again. Unreadable for now: kept.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') this.dropRemoved(tail);
      return;
    }
    if (!st.isFile()) {
      // Replaced by a FIFO or a folder: never opened, and what the file gave is dropped as for a
      // removed one (its replayed lines can no longer be read back; a FIFO would block the read).
      this.dropRemoved(tail);
      tail.scanner.stats.error = 'not a regular file';
      return;
    }
    // Made a link to a file elsewhere since it was added (moved to another disk), or no longer one.
    if (isLink(tail.file.path)) this.linked.add(tail);
    else this.linked.delete(tail);
    // Written elsewhere and renamed over it (rsync, editors, atomic writers): not an append.
    const replaced = tail.ino !== undefined && (st.ino !== tail.ino || st.dev !== tail.dev);
    tail.dev = st.dev;
    tail.ino = st.ino;
    if (st.size === tail.size && st.mtimeMs === tail.mtimeMs && !replaced) return;
    if (!this.replaying) this.active.set(tail, Date.now()); // the replay's first read is no news
    this.sniffAgainIfReplaced(tail, replaced || st.size < tail.size);
    // A plain file the replay left, truncated or replaced since: what it held then is gone, so none of what it holds now is replay.
    if (tail.unreadUpTo !== undefined && (replaced || st.size < tail.unreadUpTo) && !this.isArchive(tail.file)) tail.unreadUpTo = undefined;
    // Written again with no byte added: not an append (journals only grow), so a rewrite in place.
    const rewrittenSameSize = st.size === tail.size && tail.offset > 0 && tail.offset === st.size && !replaced;
    const first = tail.size < 0;
    const unreadUpTo = tail.unreadUpTo;
    tail.unreadUpTo = undefined;
    tail.size = st.size;
    tail.mtimeMs = st.mtimeMs;
    tail.scanner.stats.mtimeMs = st.mtimeMs;
    if (this.isArchive(tail.file)) {
      if (!first && unreadUpTo === undefined) this.reset(tail);
      await this.readArchive(tail);
      // An archive that changes is an old session rewritten: what it holds is replay.
      if (unreadUpTo !== undefined) this.markLateReplay(tail);
      return;
    }
    if (st.size < tail.offset || (replaced && tail.offset > 0)) this.reset(tail);
    // Still unread after a failure: its old lines stay replay.
    const keepUnread = () => {
      if (unreadUpTo !== undefined && tail.offset === 0) tail.unreadUpTo = unreadUpTo;
    };
    // Not blocking, and checked again once open: it may have become a FIFO since.
    let opened;
    try {
      opened = openJournal(tail.file.path, tail.scanner.stats);
    } catch (err) {
      tail.scanner.stats.error = (err as Error).message; // out of descriptors: tried again at the next poll
      tail.size = -1;
      return keepUnread();
    }
    if (!opened) {
      // Unreadable for now (permission denied): a chmod changes neither size nor time, so the
      // next poll must try again rather than take the file for unchanged.
      tail.size = -1;
      return keepUnread();
    }
    const { fd } = opened;
    try {
      // Rewritten in place (same file, now as large or larger: `cp` over it, an editor's save): its
      // first bytes, or the last ones read, changed, or it was written with no byte added.
      if (opened.size < tail.offset || rewrittenSameSize || (tail.offset > 0 && ((tail.head && !startsWith(fd, tail.head)) || (tail.last && !endsAt(fd, tail.offset, tail.last))))) this.reset(tail);
      if (unreadUpTo !== undefined) {
        // First what it held when the replay ended (its lines count for the line numbers too), as replay.
        tail.offset = readPlainInto(fd, tail.scanner, 0, unreadUpTo);
        this.markLateReplay(tail);
      }
      tail.offset = readPlainInto(fd, tail.scanner, tail.offset);
      if (!tail.head || tail.head.length < HEAD_BYTES) tail.head = readHead(fd, Math.min(HEAD_BYTES, tail.offset));
      tail.last = readAt(fd, Math.max(0, tail.offset - HEAD_BYTES), tail.offset);
      tail.scanner.stats.error = null;
    } catch (err) {
      tail.scanner.stats.error = describeError(err);
      keepUnread();
    } finally {
      closeSync(fd);
    }
  }

  private async readArchive(tail: Tail): Promise<void> {
    const before = tail.scanner.stats.bytes;
    try {
      for await (const chunk of inflateArchive(tail.file.path, { chunkSize: ARCHIVE_CHUNK })) tail.scanner.push(chunk);
    } catch (err) {
      noteReadFailure(tail.scanner.stats, err);
      // Not opened at all (permission denied): tried again at the next poll, as a plain journal is.
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'EACCES' || code === 'EPERM') && tail.scanner.stats.bytes === before) tail.size = -1;
    }
    tail.scanner.finish();
  }

  /** The events a tail has read so far are replay: they join the event list, and their delegations the replay's. */
  private markLateReplay(tail: Tail): void {
    const events = tail.scanner.takeEvents();
    for (const e of events) this.lateReplay.add(e);
    this.hold(events);
  }

  /** Moves newly parsed events from the tails into the event list. */
  private collect(): void {
    for (const tail of this.tails.values()) {
      const fresh = tail.scanner.takeEvents();
      if (fresh.length) this.hold(fresh);
    }
  }

  /** Holds new events, with the dormant groups of the replay they link to. */
  private hold(events: JournalEvent[]): void {
    if (this.dormant) {
      const lost = this.dormant.changedLines;
      const { woken, failure } = this.dormant.wakeLinked(events);
      if (woken.length) this.groups.add(woken);
      if (failure !== null) this.warnReadBack(failure); // the new events are held anyway
      else {
        const more = this.dormant.changedLines - lost;
        if (more) this.io.stderr.write(`trace-delegation: ${more} replayed ${more === 1 ? 'line' : 'lines'} could not be read back (the journal was removed or rewritten since): reports leave ${more === 1 ? 'it' : 'them'} out\n`);
      }
    }
    const woken = this.sleeping.wakeLinked(events);
    if (woken.length) this.groups.add(woken);
    this.groups.add(events);
  }

  private dormantPreviews(dormant: DormantComponents, texts: readonly string[]): PreviewRef[] {
    try {
      return dormant.previews(texts);
    } catch (err) {
      this.warnOnce(`could not read replayed lines back (${describeError(err)}): reports may miss outputs of replayed delegations until it can`);
      return [];
    }
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.io.stderr.write(`trace-delegation: ${message}\n`);
  }

  /** Watches the roots and every journal folder; polling covers what events miss. */
  private watchTree(): void {
    if (this.settings.watch === false) return;
    const dirs = new Set<string>();
    for (const root of this.roots) {
      const abs = path.resolve(this.cwd, root);
      if (!existsSync(abs)) continue;
      let isDir = false;
      try {
        isDir = statSync(abs).isDirectory();
      } catch {
        continue;
      }
      if (!isDir) {
        dirs.add(path.dirname(abs));
        continue;
      }
      dirs.add(abs);
      // Every level of the v1 layout: a level made after the start (v1, users, an owner, its
      // sessions) is then seen at once, not at the next rediscovery (every few polls).
      const v1 = path.join(abs, 'v1');
      if (existsSync(v1)) dirs.add(v1);
      const users = path.join(v1, 'users');
      if (existsSync(users)) {
        dirs.add(users);
        for (const owner of safeReaddir(users)) {
          const ownerDir = path.join(users, owner);
          const sessions = path.join(ownerDir, 'sessions');
          if (isDirectory(ownerDir)) dirs.add(ownerDir);
          if (existsSync(sessions)) dirs.add(sessions);
        }
      }
    }
    for (const tail of this.tails.values()) dirs.add(path.dirname(tail.file.path));
    for (const dir of dirs) {
      const id = pathIdentity(dir);
      if (this.watchers.has(dir)) {
        // Removed (and made again): Node sends a rename, never an error, and the watcher is dead.
        if (id === this.watchedIds.get(dir)) continue;
        this.watchers.get(dir)!.close();
        this.watchers.delete(dir);
      }
      if (id === null) continue;
      try {
        // 'rename' is a file created or removed: look for new journals; 'change' is an append.
        const w = watch(dir, { persistent: false }, (event, name) => {
          // The folder itself removed (its own name, once): the watcher is dead even if a folder
          // is made again at once (with the same inode): watch it again at the next look.
          if (event === 'rename' && name !== null && name.toString() === path.basename(dir)) {
            w.close();
            this.watchers.delete(dir);
            this.watchedIds.delete(dir);
            this.kick(true);
            return;
          }
          // The journal it names is looked at. Another file's change is none of ours; a journal
          // not followed yet (or spelt another way), or no name at all, means a look at everything.
          const file = name ? path.join(dir, name.toString()) : null;
          const known = file !== null && this.tails.has(file);
          if (known) this.dirty.add(file);
          else if (file === null || /\.jsonl(\.gz)?$/.test(file)) this.lookAtAll = true;
          this.kick(event === 'rename' || (!known && file !== null && /\.jsonl(\.gz)?$/.test(file)));
        });
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
        this.watchedIds.set(dir, id);
      } catch {
        // no inotify watches left, or a network file system: polling still works
      }
    }
  }

  private setTail(path: string, tail: Tail): void {
    // A journal that is a link to a file elsewhere: its writes raise watch events in a folder
    // not watched, so it is looked at every poll.
    if (isLink(path)) this.linked.add(tail);
    this.tails.set(path, tail);
    this.tailsByDisplay = null;
    this.displaysBySession = null;
    this.sweepOrder = null;
  }

  /** Tails by display path (rebuilt after a journal is added). */
  private byDisplay(): Map<string, Tail> {
    return (this.tailsByDisplay ??= new Map([...this.tails.values()].map((t) => [t.file.display, t] as const)));
  }

  /**
   * The stats of the journals named (display paths), in the order the tails were added. `toEnd`: a
   * torn last line counted as the plain command (which reads to the end) counts it: partial, and the
   * newest line (its Limits line and the crashed cause then name it, as for the journal's archive).
   * While following, the line waits for its newline; once a delegation is stale, a line left torn
   * that long is likely the crash's.
   */
  private statsOf(displays: readonly string[], toEnd = false): FileStats[] {
    const byDisplay = this.byDisplay();
    const found: Tail[] = [];
    for (const display of new Set(displays)) {
      const t = byDisplay.get(display);
      if (t) found.push(t);
    }
    return found.sort((a, b) => a.fileIndex - b.fileIndex).map((t) => (toEnd ? t.scanner.statsAsFinished() : t.scanner.stats));
  }

  /** Which delegations the target names right now (all of them without a target). */
  private followed(): Delegation[] {
    const all = this.delegations;
    const t = this.target;
    if (t === undefined || t === '') return all;
    if (t === 'last') {
      // The newest delegation when replay ends, then every delegation that appears after it.
      if (!this.replayKeys) {
        const started = all.filter((d) => d.started);
        const newest = started.length ? started.reduce((a, b) => (delegationOrder(a, b) >= 0 ? a : b)) : null;
        this.newestAtReplay = newest ? instanceKey(newest) : null;
        this.newestKeyAtReplay = newest ? orderKey(newest) : null;
      }
      // A new group without its delegation_started is not a delegation that started after the
      // replay: it may be a late event of an older one whose start is in a file not read. Nor is
      // one that starts before the newest of the replay: an old session archived or copied in.
      const before = this.replayKeys;
      const newer = (d: Delegation) => this.newestKeyAtReplay === null || compareKeys(orderKey(d), this.newestKeyAtReplay) > 0;
      return all.filter((d) => instanceKey(d) === this.newestAtReplay || (before !== null && !before.has(instanceKey(d)) && d.started !== null && newer(d)));
    }
    // A prefix stays on the id it first resolved to: a later id with the same prefix (which makes
    // the plain command call it ambiguous) is named on stderr, not followed in silence.
    const r = resolveTarget(t, all, this.sessionFiles());
    // An exact id, parent run or session wins over a prefix, as in the plain command.
    if (this.prefixId !== null && r.ok && r.kind !== 'prefix') {
      this.io.stderr.write(`trace-delegation: ${safeTerminalText(t)} now names ${r.kind === 'delegation' ? 'a delegation id' : r.kind === 'parent-run' ? 'a parent run' : 'a session'} exactly; following it instead of ${safeTerminalText(this.prefixId)}\n`);
      this.prefixId = null;
    }
    if (this.prefixId !== null) return this.followedPrefix(t, all);
    if (r.ok) {
      if (r.prefixOf !== undefined && !this.replaying) this.prefixId = r.prefixOf;
      return r.delegations;
    }
    if (r.reason === 'ambiguous' && this.replayKeys !== null) {
      // Several appeared at once after the replay: the one that started first is followed.
      this.prefixId = r.candidates[0].id;
      return this.followedPrefix(t, all);
    }
    return r.reason === 'ambiguous' ? r.candidates : [];
  }

  /** The delegations of the id the prefix target resolved to; other ids it now matches are named once. */
  private followedPrefix(t: string, all: Delegation[]): Delegation[] {
    const id = this.prefixId!;
    const r = resolveTarget(id, all, this.sessionFiles());
    const others = new Set(all.filter((d) => d.id !== id && d.id.startsWith(t)).map((d) => d.id));
    for (const other of others) {
      if (this.prefixOthers.has(other)) continue;
      this.prefixOthers.add(other);
      this.io.stderr.write(`trace-delegation: ${safeTerminalText(t)} now also matches delegation ${safeTerminalText(other)}; still following ${safeTerminalText(id)} (name the other in full to follow it)\n`);
    }
    return r.ok ? r.delegations : [];
  }

  /** The journals named and the other journals of their sessions (by file name, as discovery pairs them). */
  private withSessionSiblings(displays: readonly string[]): string[] {
    const byDisplay = this.byDisplay();
    const sessions = new Set<string>();
    for (const display of displays) {
      const t = byDisplay.get(display);
      if (t && t.file.sessionId !== TRACKER_STEM) sessions.add(t.file.sessionId);
    }
    if (sessions.size === 0) return [...displays];
    this.displaysBySession ??= this.sessionFiles();
    const out = new Set(displays);
    for (const sid of sessions) for (const display of this.displaysBySession.get(sid) ?? []) out.add(display);
    return [...out];
  }

  /** Session id → the journal files followed for it (a session target names them). */
  private sessionFiles(): Map<string, string[]> {
    const sessionFiles = new Map<string, string[]>();
    for (const tail of this.tails.values()) {
      const list = sessionFiles.get(tail.file.sessionId) ?? [];
      list.push(tail.file.display);
      sessionFiles.set(tail.file.sessionId, list);
    }
    return sessionFiles;
  }

  private evaluateLater(ms: number): void {
    if (this.evaluationTimer) return;
    this.evaluationTimer = setTimeout(() => {
      this.evaluationTimer = null;
      // Not in the middle of a refresh (it awaits an archive's read): a journal dropped to be read
      // again would look empty, and what was noted to compare after the read would be spent. The
      // refresh evaluates (or schedules) when it is done.
      if (!this.closed && !this.busy) this.evaluate();
    }, ms);
  }

  private evaluate(): void {
    this.lastEvaluation = Date.now();
    if (this.groups.stale) this.delegations = this.groups.delegations();
    if (this.lateReplay.size && this.replayKeys) {
      // Old by its start only: a later delegation's sub-run lines may be written before its start, in a file the replay left.
      for (const d of this.delegations) if (d.events.some((e) => e.type === 'delegation_started' && this.lateReplay.has(e))) this.replayKeys.add(instanceKey(d));
      this.lateReplay.clear();
    }
    const now = this.now();
    const followed = this.followed();
    for (const d of followed) this.consider(d, now);
    this.forgottenFiles.clear();
    this.forgottenKeys.clear();
    this.sleepQuiet(followed);
  }

  /**
   * Puts to sleep the groups that have had no new event for sleepAfterMs and have nothing left
   * to print on their own: no open delegation (it may go stale) and no report due. A named
   * target's matches stay awake too (followed): then what it resolves to cannot change. A new
   * event that links to a sleeping group wakes it (hold()).
   */
  private sleepQuiet(followed: readonly Delegation[]): void {
    const named = !this.all() && this.target !== 'last' ? new Set(followed) : null;
    const due = (d: Delegation, group: readonly Delegation[]) => {
      if (d.started && !d.completed) return true;
      const printedWith = this.printed.get(instanceKey(d));
      return printedWith !== undefined && printedWith.events !== reportInputs(d, group);
    };
    const taken = this.groups.takeQuiet(Date.now() - (this.settings.sleepAfterMs ?? SLEEP_AFTER_MS), (ds) => !ds.some((d) => due(d, ds) || named?.has(d)));
    if (taken.length === 0) return;
    for (const { events, delegations } of taken) {
      this.sleeping.put(events);
      for (const d of delegations) this.staleAt.delete(instanceKey(d));
    }
    this.delegations = this.groups.delegations();
  }

  /**
   * Prints d's report when it is due: completed, events since its report (a result that missed
   * the join, a retry, a second completion), or open with no new event for --stale-after.
   * `all`: its group, when the caller has it (the replay).
   */
  private consider(d: Delegation, now: number, all?: Delegation[]): void {
    let printedWith = this.printed.get(instanceKey(d));
    if (printedWith === undefined && d.started) {
      // Printed as an orphan (its completion read first), before its start arrived: the same delegation.
      const asOrphan = this.printed.get(orphanInstanceKey(d.key));
      if (asOrphan !== undefined) {
        this.printed.delete(orphanInstanceKey(d.key));
        this.printed.set(instanceKey(d), asOrphan);
        printedWith = asOrphan;
      }
    }
    if (printedWith !== undefined) {
      const inputs = reportInputs(d, all ?? this.groups.linkedTo(d));
      if (inputs > printedWith.events) {
        const more = inputs - printedWith.events;
        this.io.stderr.write(`trace-delegation: delegation ${d.key} has ${more} new ${more === 1 ? 'event' : 'events'} since its report: reported again\n`);
        this.printReport(d, now, all);
      } else {
        const rewritten = this.forgottenKeys.has(instanceKey(d)) || (this.forgottenFiles.size > 0 && d.events.some((e) => this.forgottenFiles.has(e.fileIndex)));
        // Fewer inputs: events it was printed with are another delegation's again (their start arrived, or came back in an archive).
        if (!rewritten && inputs === printedWith.events) return;
        // Printed again if what it says changed (not for a new file name or line alone: archiving a journal would reprint all of it).
        const rendered = this.render(d, now, all);
        const report = reportDigest(rendered.report);
        if (report === printedWith.report) {
          this.printed.set(instanceKey(d), { events: inputs, report }); // a later event that brings the count back is news
          return;
        }
        const fewer = printedWith.events - inputs;
        const why = rewritten ? 'its journal was rewritten' : `${fewer} fewer ${fewer === 1 ? 'event' : 'events'}`;
        this.io.stderr.write(`trace-delegation: delegation ${d.key} changed since its report (${why}): reported again\n`);
        this.printReport(d, now, all, rendered);
      }
      return;
    }
    if (d.completed) {
      this.printReport(d, now, all);
      return;
    }
    if (!d.started) return; // an orphan: nothing says when it would be complete
    // Quiet means its journals too, as its report judges it: while its session writes, it is
    // "still running"; once they stop, the report can say why (engine error, crashed).
    const newest = this.newestActivityMs(d);
    if (newest === null || now - newest < this.staleAfterMs) return;
    const warned = this.staleAt.get(instanceKey(d));
    // Already said, and nothing new since: in its journals, nor linked to it from others (a delegation nested under one of its runs).
    const inputs = reportInputs(d, all ?? this.groups.linkedTo(d));
    if (warned !== undefined && warned.newest >= newest && warned.inputs === inputs) return;
    const rendered = this.render(d, now, all, true);
    const digest = reportDigest(rendered.report);
    this.staleAt.set(instanceKey(d), { newest, digest, inputs });
    if (warned !== undefined && warned.digest === digest) return; // its session went on, and the report says the same
    this.io.stderr.write(`trace-delegation: delegation ${d.key} is still open: no delegation_completed and nothing new in its journals for ${humanDuration(now - newest)} (--stale-after ${humanDuration(this.staleAfterMs)})${warned ? '; what its report says changed' : ''}\n`);
    this.print(rendered.text); // a notice, not its report: that comes with its completion
  }

  /** The newest of d's events and of the times its sessions' journals show (epoch ms), a torn last line's included, as its stale report reads them. */
  private newestActivityMs(d: Delegation): number | null {
    return newestActivity(d, this.statsOf(this.withSessionSiblings(d.files), true))?.time.ms ?? null;
  }

  /** d's linked group, its checks searching the outputs of the other groups, held or dormant. */
  private linkedGroup(d: Delegation): Delegation[] {
    const all = this.groups.linkedTo(d);
    const held = this.groups.foreignPreviews(all);
    const dormant = this.dormant;
    const sleeping = this.sleeping;
    registerForeignPreviews(all, (texts) => [...held(texts), ...sleeping.previewsIn(texts), ...(dormant ? this.dormantPreviews(dormant, texts) : [])]);
    return all;
  }

  /** Prints d's report (`rendered`: already) and notes what it was printed with. */
  private printReport(d: Delegation, now: number, group?: Delegation[], rendered = this.render(d, now, group)): void {
    this.printed.set(instanceKey(d), { events: reportInputs(d, group ?? this.groups.linkedTo(d)), report: reportDigest(rendered.report) });
    this.print(rendered.text);
  }

  /** d's report, and its text in the output format; `stale`: judged stale, its journals' torn last lines are said, as the plain command says them. */
  private render(d: Delegation, now: number, group?: Delegation[], stale = false): { text: string; report: TraceReport } {
    // With the other journals of its sessions: an archive's session may go on in its plain journal
    // (engine error, not crashed), as the one-off report sees it.
    const files = this.statsOf(this.withSessionSiblings(d.files), stale);
    const options = { ...this.reportOptions, checkOptions: { ...this.reportOptions.checkOptions, nowMs: now } };
    // Checked against its linked group, as the streamed --all checks it, and the other groups'
    // outputs: one print costs its group, not a lookup table over every delegation followed.
    const all = group ?? this.linkedGroup(d);
    const report = buildTraceReport({ events: d.events, files }, { delegations: all, selected: [d], kind: 'follow' }, options);
    return { text: this.settings.formatter(report, { color: this.settings.color, failOn: this.settings.failOn }), report };
  }

  private print(text: string): void {
    // Text blocks are separated by a blank line, as in a multi-delegation report.
    const gap = this.settings.format === 'text' && this.reportsPrinted++ > 0 ? '\n' : '';
    this.output(gap + text);
  }

  /** Writes a report now, or, while the replay batches its reports, when 64 KiB have gathered. */
  private output(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (!this.batching || this.pendingLength >= OUTPUT_BATCH) this.flushOutput();
  }

  private flushOutput(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    this.io.stdout.write(text);
  }
}

/** The replay's reports are written when this many characters have gathered (or at each breath). */
const OUTPUT_BATCH = 64 * 1024;

/** Archive reads and inflated pieces: 16 KiB ones (the streams' default) cost a turn of the event loop each. */
const ARCHIVE_CHUNK = 256 * 1024;

/** A group with nothing left to print sleeps after this long with no new event (a late result wakes it). */
const SLEEP_AFTER_MS = 30_000;

/** How much of a journal's start is kept to tell a rewrite from an append. */
const HEAD_BYTES = 256;
