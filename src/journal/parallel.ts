import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { sizeAndMtime, type JournalFile } from './discover.js';
import { EventIndex, IndexChunkBuilder, type IndexChunk } from './event-index.js';
import { isGzipPath, scanFile, type ScanFileOutput } from './scan-file.js';
import type { ScanOptions } from './scan.js';
import type { FileStats, ScanResult } from './types.js';

export interface WorkerFile {
  path: string;
  display: string;
  fileIndex: number;
}

/**
 * `events`: send the parsed events back; `index`: send index records only (event-index.ts);
 * `index-named`: also each file's delegation and session ids, for a named target.
 */
export type ScanMode = 'events' | 'index' | 'index-named';
export type WorkerRequest = { type: 'job'; id: number; files: WorkerFile[]; mode: ScanMode; maxEvents?: number } | { type: 'stop' };
export type WorkerResponse = { type: 'done'; id: number; results: ScanFileOutput[]; chunk?: IndexChunk };

/**
 * The first error that stops a scan (the caller's onFile threw, or this thread's read failed),
 * shared by everything that records results: once it holds one, nothing more is recorded and
 * every road out of the scan throws that error. Later errors are dropped.
 */
class ScanStop {
  private first: { error: unknown } | undefined;
  get stopped(): boolean {
    return this.first !== undefined;
  }
  keep(error: unknown): void {
    this.first ??= { error };
  }
  throwIfStopped(): void {
    if (this.first) throw this.first.error;
  }
}

/** What every file's scan is given (ScanFileInput): a stop past `maxEvents`, and progress within the file. */
interface PerFile {
  maxEvents?: number;
  onRead?: (fileIndex: number, bytes: number) => void;
}

/** What one group of files gave: per-file results, and in index mode the group's index records. */
interface GroupResult {
  results: ScanFileOutput[];
  chunk?: IndexChunk;
}

export interface ParallelScanOptions extends ScanOptions {
  /** Threads to scan with; 1 scans in this thread. Default: defaultJobs(). */
  jobs?: number;
  /** Below this many bytes on disk, starting workers costs more than it saves. */
  minParallelBytes?: number;
  /** Told how the scan ran: worker threads used (0 = this thread) and groups a worker failed on. */
  onPlan?: (plan: { threads: number; fellBack: number }) => void;
}

/** Start-up of a worker (~20-40 ms) only pays off once there are tens of megabytes to read. */
export const MIN_PARALLEL_BYTES = 48 * 1024 * 1024;

/** TRACE_DELEGATION_MIN_PARALLEL_BYTES (whole bytes; another value is ignored): lets a test put a small tree on threads. */
function envMinParallelBytes(): number | undefined {
  const v = process.env.TRACE_DELEGATION_MIN_PARALLEL_BYTES;
  return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : undefined;
}
/** Groups queued per worker. */
const WORKER_QUEUE = 3;
/** Inflating costs several times more per stored byte than scanning plain text. */
const GZIP_WEIGHT = 5;

/**
 * Scan threads by default: one core less than the machine has, at most 4. The spare core is
 * not idle during a scan: libuv's pool inflates archives, and V8 marks, sweeps and optimizes
 * code on background threads. On the 2-core benchmark VM a second scan thread was 0.85–1.02×
 * as fast at 1 GiB and 0.98–1.09× at 4 GiB, for 16–33 MB more at the peak. Each scan thread holds its
 * own heap: on the 4 GiB tree 8 threads peaked at 297 MB and 4 at 174 MB, and past 4 the scan
 * is a small part of the run (the report is written by one thread). docs/performance.md.
 */
export const MAX_DEFAULT_JOBS = 4;

export function defaultJobs(cores = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_DEFAULT_JOBS, cores - 1));
}

/** Files of one `<sid>.jsonl` / `<sid>.jsonl.gz` pair, scanned together so duplicates drop out. */
interface Group {
  files: WorkerFile[];
  weight: number;
  bytes: number;
}

function groupFiles(files: JournalFile[]): Group[] {
  const byKey = new Map<string, Group>();
  files.forEach((f, fileIndex) => {
    const g = byKey.get(f.pairKey) ?? { files: [], weight: 0, bytes: 0 };
    g.files.push({ path: f.path, display: f.display, fileIndex });
    byKey.set(f.pairKey, g);
  });
  return [...byKey.values()];
}

/** Sizes and weights, for sharing groups between threads (a one-thread scan needs none: a stat a file). */
function weigh(groups: Group[]): void {
  for (const g of groups)
    for (const f of g.files) {
      const size = sizeAndMtime(f.path)?.size ?? 0; // unreadable: scanFile reports why
      g.weight += isGzipPath(f.path) ? size * GZIP_WEIGHT : size;
      g.bytes += size;
    }
}

/**
 * The compiled worker script, seen from this module: beside it in dist/journal/, from the CLI
 * bundle in dist/bundle/, or from the sources (vitest) in dist/journal/ of the build.
 */
function workerUrl(): URL {
  const candidates = ['./worker.js', '../journal/worker.js', '../../dist/journal/worker.js'].map((p) => new URL(p, import.meta.url));
  return candidates.find((u) => existsSync(fileURLToPath(u))) ?? candidates[0];
}

/** Scans one pair group (here or in a worker), sharing the duplicate filter between its files. */
export async function scanGroup(files: WorkerFile[], mode: ScanMode, { maxEvents, onRead }: PerFile = {}): Promise<GroupResult> {
  const seen = files.length > 1 ? new Map<string, number>() : undefined;
  const builder = mode === 'events' ? undefined : new IndexChunkBuilder({ fileIds: mode === 'index-named' });
  const sink = builder ? builder.add.bind(builder) : undefined;
  const results: ScanFileOutput[] = [];
  for (const f of files) results.push(await scanFile({ ...f, seen, sink, maxEvents, onRead: onRead && ((bytes) => onRead(f.fileIndex, bytes)) }));
  return { results, chunk: builder?.finish() };
}

/**
 * Reads every file like scanJournals, on worker threads when the input is large enough: each
 * worker takes whole file groups (largest first) and returns their events and stats. The
 * result is identical to the sequential scan: files and events in discovery order.
 */
export async function scanJournalsParallel(files: JournalFile[], options: ParallelScanOptions = {}): Promise<ScanResult> {
  const results = await scanAll(files, options, 'events', () => {});
  const result: ScanResult = { events: [], files: [] };
  for (const o of results) {
    result.files.push(o.stats);
    for (const e of o.events) result.events.push(e);
  }
  return result;
}

/**
 * The streamed `--all` scan: the same reading (threads, pre-filter, duplicate filter), but each
 * event is kept as an index record, so memory follows the number of events at ~72 bytes each.
 */
export async function indexJournalsParallel(
  files: JournalFile[],
  options: ParallelScanOptions & { fileIds?: boolean; starts?: boolean } = {},
): Promise<{ files: FileStats[]; index: EventIndex }> {
  const index = new EventIndex({ starts: options.starts });
  const results = await scanAll(files, options, options.fileIds ? 'index-named' : 'index', (chunk) => index.add(chunk));
  return { files: results.map((o) => o.stats), index };
}

async function scanAll(files: JournalFile[], options: ParallelScanOptions, mode: ScanMode, onChunk: (c: IndexChunk) => void): Promise<ScanFileOutput[]> {
  const groups = groupFiles(files);
  const jobs = Math.min(options.jobs ?? defaultJobs(), groups.length);
  if (jobs > 1) weigh(groups);
  const totalBytes = groups.reduce((n, g) => n + g.bytes, 0);
  const results: ScanFileOutput[] = new Array(files.length);
  let done = 0;
  let bytes = 0;
  // Bytes read so far of the files this thread is still reading: progress within a large file.
  const reading = new Map<number, number>();
  let shownAt = 0;
  const onFile = options.onFile;
  // onFile's error thrown within a file's read: the reader takes any error there for the file's own
  // (a read cut short), so it is kept here and thrown when that file is recorded.
  const stop = new ScanStop();
  const onRead = onFile
    ? (fileIndex: number, n: number) => {
        reading.set(fileIndex, (reading.get(fileIndex) ?? 0) + n);
        let now = bytes;
        for (const b of reading.values()) now += b;
        if (now - shownAt < PROGRESS_STEP_BYTES) return;
        shownAt = now;
        try {
          onFile(done, files.length, now);
        } catch (error) {
          stop.keep(error);
          throw error; // ends this file's read
        }
      }
    : undefined;
  const perFile: PerFile = { maxEvents: options.maxEventsPerFile, onRead };
  const record = ({ results: outs, chunk }: GroupResult) => {
    stop.throwIfStopped();
    if (chunk) onChunk(chunk);
    for (const o of outs) {
      results[o.stats.fileIndex] = o;
      reading.delete(o.stats.fileIndex);
      done++;
      bytes += o.stats.bytes;
      onFile?.(done, files.length, bytes);
    }
  };

  if (jobs <= 1 || totalBytes < (options.minParallelBytes ?? envMinParallelBytes() ?? MIN_PARALLEL_BYTES)) {
    const here = new HereScanner(mode, record, stop, false, perFile);
    let stopped = false;
    for (const g of groups) {
      await here.take(g);
      if (options.pace && (stopped = await options.pace())) break;
    }
    await here.drain();
    options.onPlan?.({ threads: 0, fellBack: 0 });
    if (stopped) return results.filter((o) => o !== undefined); // the files read before the stop
  } else {
    const queue = [...groups].sort((a, b) => b.weight - a.weight);
    const fellBack = await runPool(queue, jobs, record, stop, files, mode, perFile);
    options.onPlan?.({ threads: jobs, fellBack });
  }
  return results;
}

/** Within a file, progress is told each time this many more bytes have been read. */
export const PROGRESS_STEP_BYTES = 4 * 1024 * 1024;

/** Archives inflated at once by this thread while it reads plain files. */
const ARCHIVES_IN_FLIGHT = 2;

/**
 * This thread's share of the groups. Plain files are read synchronously; a gzip archive is
 * inflated by libuv's thread pool, so its group is left running while the next plain files are
 * read (this thread would otherwise sit idle while the archive inflates).
 */
class HereScanner {
  private readonly archives = new Set<Promise<void>>();

  constructor(
    private readonly mode: ScanMode,
    private readonly record: (r: GroupResult) => void,
    /** An archive's error (its record threw: the caller's onFile) is kept here, and thrown at the next take or drain. */
    private readonly stop: ScanStop,
    /** Workers are running: their answers (and requests for more) are read between groups. */
    private readonly yieldEachGroup: boolean,
    private readonly perFile: PerFile = {},
  ) {}

  async take(g: Group): Promise<void> {
    this.stop.throwIfStopped();
    if (g.files.some((f) => isGzipPath(f.path))) {
      // Caught here: an archive left in flight when the scan stops would reject with no one awaiting it (an unhandled rejection ends the process).
      const p: Promise<void> = scanGroup(g.files, this.mode, this.perFile)
        .then((r) => (this.stop.stopped ? undefined : this.record(r)))
        .catch((error: unknown) => this.stop.keep(error))
        .finally(() => this.archives.delete(p));
      this.archives.add(p);
      if (this.archives.size >= ARCHIVES_IN_FLIGHT) await Promise.race(this.archives);
      this.stop.throwIfStopped();
      return;
    }
    const result = await scanGroup(g.files, this.mode, this.perFile);
    try {
      this.record(result);
    } catch (error) {
      this.stop.keep(error); // the archives in flight are not recorded after it either
      throw error;
    }
    // Archives in flight take their next chunk, workers are answered (a turn of the loop costs
    // ≈ 5 µs: 0.1 s over 20,000 small sessions when nothing was waiting).
    if (this.yieldEachGroup || this.archives.size > 0) await new Promise((r) => setImmediate(r));
  }

  async drain(): Promise<void> {
    await Promise.all(this.archives);
    this.stop.throwIfStopped();
  }
}

/**
 * Scans the queue with this thread and `jobs - 1` workers, each taking the next (largest) group
 * when it is free: the main thread works instead of waiting, and only the workers' share of
 * events crosses a thread boundary. A worker that fails gives its group back to the queue.
 * Returns how many groups were given back.
 */
async function runPool(
  queue: Group[],
  jobs: number,
  record: (r: GroupResult) => void,
  stop: ScanStop,
  files: JournalFile[],
  mode: ScanMode,
  perFile: PerFile,
): Promise<number> {
  const url = workerUrl();
  // Only large scans need it; require, not import(): the bundle is compiled by vm.Script.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  // Each worker keeps a few groups queued: this thread only hands out work between its own
  // groups, and a worker waiting for that would sit idle.
  const inFlight = new Map<Worker, Group[]>();
  const workers: Worker[] = [];
  /** Workers that have exited already (failed): there is nothing to stop, nor an exit to wait for. */
  const exited = new Set<Worker>();
  let givenBack = 0;
  let wake: (() => void) | null = null;
  const signal = () => {
    wake?.();
    wake = null;
  };
  const busy = () => [...inFlight.values()].some((q) => q.length > 0);
  const feed = (w: Worker) => {
    const mine = inFlight.get(w) ?? [];
    inFlight.set(w, mine);
    while (mine.length < WORKER_QUEUE && queue.length > 0) {
      const group = queue.shift()!;
      mine.push(group);
      w.postMessage({ type: 'job', id: 0, files: group.files, mode, maxEvents: perFile.maxEvents } satisfies WorkerRequest);
    }
  };
  for (let i = 1; i < jobs && queue.length > 1; i++) {
    let w: Worker;
    try {
      w = new Worker(url);
    } catch {
      break; // no workers: this thread reads everything
    }
    workers.push(w);
    w.on('message', (msg: WorkerResponse) => {
      if (stop.stopped) return; // the scan has stopped: answers still coming are not wanted
      // Workers send events without their file name; it is the same string for the whole file.
      for (const out of msg.results) for (const e of out.events) e.file = files[e.fileIndex].display;
      inFlight.get(w)?.shift(); // a worker answers its jobs in order
      try {
        record(msg);
        feed(w);
      } catch (error) {
        stop.keep(error); // thrown here it would be an uncaught exception, and the scan would never end
      }
      signal();
    });
    const fail = () => {
      const groups = inFlight.get(w) ?? [];
      inFlight.delete(w);
      queue.unshift(...groups);
      givenBack += groups.length;
      signal();
    };
    w.on('error', fail);
    w.on('exit', () => {
      exited.add(w);
      fail();
    });
    feed(w);
  }
  const here = new HereScanner(mode, record, stop, true, perFile); // workers' files count when done
  try {
    for (;;) {
      stop.throwIfStopped();
      const group = queue.shift();
      if (group) {
        await here.take(group); // yields: finished workers report and take more
        continue;
      }
      await here.drain();
      stop.throwIfStopped();
      if (!busy()) break;
      await new Promise<void>((r) => (wake = r));
    }
  } catch (error) {
    stop.keep(error); // thrown by this thread's share: the workers' answers are not recorded either
    throw error;
  } finally {
    // Also when the scan failed: a worker left running keeps the caller's process alive for ever.
    await Promise.all(workers.filter((w) => !exited.has(w)).map(stopWorker));
  }
  return givenBack;
}

/** A worker that has not exited this long after being asked to is terminated. */
const WORKER_EXIT_GRACE_MS = 2000;

/**
 * Asks an idle worker to end and waits until it has. Ended this way, Node drains the tasks V8
 * left on background threads for its heap before tearing it down; `terminate()` does not wait
 * for them, and a task that allocates during the teardown aborts the whole process
 * (`Assertion failed: (data.first) != nullptr` in NodePlatform::ForIsolate; seen once in a
 * benchmark run with --jobs 2).
 */
function stopWorker(w: Worker): Promise<void> {
  w.removeAllListeners('exit');
  w.removeAllListeners('error');
  return new Promise<void>((resolve) => {
    const grace = setTimeout(() => void w.terminate(), WORKER_EXIT_GRACE_MS);
    w.once('exit', () => {
      clearTimeout(grace);
      resolve();
    });
    w.on('error', () => {}); // failing while it ends changes nothing: its results are in
    w.postMessage({ type: 'stop' } satisfies WorkerRequest);
  });
}
