import { sizeAndMtime, type JournalFile } from './discover.js';
import { compareInstants } from './time.js';
import type { FileStats, Instant, JournalEvent, ScanResult } from './types.js';

/**
 * Recent-first reading for `last` and `list`. Journals are append-only, so a file holding any
 * event of a delegation was modified at or after that delegation started. Reading files
 * newest-first by mtime, once the newest `delegation_started` seen so far (S) is newer than the
 * next file's mtime, no unread file can hold a newer start or any event of S's delegation: stop
 * there. For the N newest delegations, S is the N-th newest start seen.
 */

/** Tolerance for coarse file-system mtimes and for `ts` being taken just before the write. */
export const MTIME_MARGIN_MS = 2000;

/**
 * Delegation events a streamed `last` or `list` keeps in memory (≈ 1–2 KB each, parsed and
 * grouped) before it gives up on the shortcut and indexes the whole tree instead. Journals
 * copied without their modification times (`cp -r`, `scp -r`) all look new, so the rule would
 * read everything into memory: 513 MB for a 236 MB tree of 20,000 sessions.
 */
export const RECENT_MAX_EVENTS = 20_000;

/**
 * …but one journal is read whole up to this many: a long session still being written is usually
 * the newest file, and the rule then skips every other (1 GB, 48,000 events: 1.3 s, 145 MB).
 * Past it, the file stops being read and `last` indexes the tree, so memory stays bounded
 * (≈ 2 KB an event held) whatever the size of the file.
 */
export const RECENT_MAX_FILE_EVENTS = 100_000;

/**
 * Reads the given files. `maxEventsPerFile`: a file may stop being read once it keeps more than
 * this many events (the caller then gives up on the shortcut, so a partial file is never used).
 */
export type SubsetScanner = (files: JournalFile[], maxEventsPerFile: number) => Promise<ScanResult>;

export interface RecentScan {
  scan: ScanResult;
  /** Files read, out of `total`. */
  read: number;
  total: number;
  /** The newest start's `ts` (the N-th newest for `count` N), when the subset rule applied. */
  newestStart: string | null;
  /** Why the rule did not apply: every file was read after all (no usable start, a file written after its mtime…), or reading stopped at `maxBytes` or `maxEvents`. */
  fullReason: string | null;
  /** A file was read only in part: it kept more than the events still allowed (`maxEvents`, `maxFileEvents`). */
  readInPart: boolean;
}

/** Whether reading stopped at a limit before the rule applied: the files read cannot stand for the tree. */
export const stoppedShort = (r: RecentScan) => r.newestStart === null && (r.read < r.total || r.readInPart);

/** One `<sid>.jsonl` / `<sid>.jsonl.gz` pair (or a single file): always read together. */
interface Unit {
  indexes: number[];
  mtimeMs: number;
  bytes: number;
}

function unitsByRecency(files: JournalFile[]): Unit[] {
  const byKey = new Map<string, Unit>();
  files.forEach((f, i) => {
    const st = sizeAndMtime(f.path);
    const mtimeMs = st ? st.mtimeMs : Number.POSITIVE_INFINITY; // cannot stat: read it (scanFile reports why)
    const bytes = st ? st.size : 0;
    const u = byKey.get(f.pairKey) ?? { indexes: [], mtimeMs: Number.NEGATIVE_INFINITY, bytes: 0 };
    u.indexes.push(i);
    u.mtimeMs = Math.max(u.mtimeMs, mtimeMs);
    u.bytes += bytes;
    byKey.set(f.pairKey, u);
  });
  return [...byKey.values()].sort((a, b) => b.mtimeMs - a.mtimeMs || a.indexes[0] - b.indexes[0]);
}

/** A file whose newest line is later than its mtime breaks the append-only reasoning. */
function writtenAfterMtime(stats: FileStats): boolean {
  return stats.lastTime !== null && stats.mtimeMs > 0 && stats.lastTime.ms > stats.mtimeMs + MTIME_MARGIN_MS;
}

/**
 * Reads the files `last` needs: newest-first in growing batches, stopping at the first file
 * older than the newest `delegation_started` found. Falls back to reading everything when the
 * shortcut cannot be trusted (a start without a parseable `ts`, or a file whose lines are newer
 * than its mtime, e.g. copied with an old date). Events and files come back in discovery order
 * with their discovery-order fileIndex, exactly as a full scan would number them.
 */
export async function scanRecentFirst(
  files: JournalFile[],
  scanSubset: SubsetScanner,
  /**
   * `maxBytes`, `maxEvents`: give up (no `newestStart`) rather than read or keep more than this
   * before the rule applies; `maxShare`: nor more than this share of all the files' bytes.
   * `maxFileEvents`: one file is still read whole up to this many events, past `maxEvents`.
   */
  {
    count = 1,
    maxBytes: byteLimit = Number.POSITIVE_INFINITY,
    maxEvents = Number.POSITIVE_INFINITY,
    maxShare = 1,
    maxFileEvents = 0,
  }: { count?: number; maxBytes?: number; maxEvents?: number; maxShare?: number; maxFileEvents?: number } = {},
): Promise<RecentScan> {
  const units = unitsByRecency(files);
  const maxBytes = maxShare < 1 ? Math.min(byteLimit, maxShare * units.reduce((n, u) => n + u.bytes, 0)) : byteLimit;
  const outputs = new Map<number, { stats: FileStats; events: JournalEvent[] }>();
  // Each delegation's start seen so far (id and parent run: a start journaled twice is one
  // delegation, at its first start); S is the `count`-th newest of them once there are `count`.
  const firstStart = new Map<string, { time: Instant; ts: string }>();
  let nth = null as { time: Instant; ts: string } | null; // set by readUnits (a cast: no narrowing to null)
  const updateNth = () => {
    if (firstStart.size >= count) nth = [...firstStart.values()].sort((a, b) => compareInstants(b.time, a.time))[count - 1];
  };
  let fullReason: string | null = null;
  let readBytes = 0;
  let keptEvents = 0;
  let readInPart = false;
  let next = 0;

  const readUnits = async (batch: Unit[]) => {
    const indexes = batch.flatMap((u) => u.indexes).sort((a, b) => a - b);
    // A journal stops being read once it keeps more than the events still allowed (or, for one
    // long session, maxFileEvents): it would otherwise be held whole before the limit is looked at.
    const allowed = Math.max(maxEvents - keptEvents, maxFileEvents);
    const result = await scanSubset(indexes.map((i) => files[i]), allowed);
    keptEvents += result.events.length;
    // The subset scanner numbers files 0..n-1; give them back their place in the full list.
    const byLocal = indexes.map((i) => ({ stats: null as FileStats | null, events: [] as JournalEvent[], index: i }));
    result.files.forEach((s, k) => {
      byLocal[k].stats = { ...s, fileIndex: indexes[k] };
    });
    for (const e of result.events) {
      const slot = byLocal[e.fileIndex];
      e.fileIndex = slot.index;
      slot.events.push(e);
    }
    for (const slot of byLocal) outputs.set(slot.index, { stats: slot.stats!, events: slot.events });
    const inPart = byLocal.find((slot) => slot.events.length > allowed);
    if (inPart) {
      readInPart = true;
      fullReason ??= `more than ${maxEvents} events would be kept (${inPart.stats!.file} alone holds more than ${allowed})`;
    }
    for (const slot of byLocal) {
      if (!fullReason && writtenAfterMtime(slot.stats!)) fullReason = `${slot.stats!.file} has lines newer than its modification time`;
      for (const e of slot.events) {
        if (e.type !== 'delegation_started') continue;
        if (!e.time) {
          fullReason ??= `a delegation_started in ${e.file}:${e.line} has no parseable ts`;
          continue;
        }
        const key = `${e.delegationId}\u0000${e.parentRunId ?? ''}`;
        const seen = firstStart.get(key);
        if (!seen || compareInstants(e.time, seen.time) < 0) firstStart.set(key, { time: e.time, ts: e.ts });
      }
    }
    updateNth();
  };

  while (next < units.length) {
    const s = nth;
    const cutoff: number | null = s && !fullReason ? s.time.ms - MTIME_MARGIN_MS : null;
    if (cutoff !== null && units[next].mtimeMs < cutoff) break;
    if (readBytes >= maxBytes || keptEvents >= maxEvents) {
      fullReason ??= readBytes >= maxBytes ? `more than ${maxBytes} bytes would be read` : `more than ${maxEvents} events would be kept`;
      break;
    }
    const batch: Unit[] = [];
    let bytes = 0;
    // The newest file first (it usually holds the answer), then batches as large as all read so
    // far, or as the events still allowed would take at the density read so far.
    const room = keptEvents > 0 ? ((maxEvents - keptEvents) * readBytes) / keptEvents : Number.POSITIVE_INFINITY;
    const budget = Math.min(readBytes, room);
    while (next < units.length && (batch.length === 0 || bytes < budget)) {
      if (cutoff !== null && units[next].mtimeMs < cutoff) break;
      batch.push(units[next]);
      bytes += units[next].bytes;
      next++;
    }
    await readUnits(batch);
    readBytes += bytes;
    // A file read only in part cannot stand for itself, nor the files read for the tree.
    if (readInPart) break;
  }

  const scan: ScanResult = { events: [], files: [] };
  for (const i of [...outputs.keys()].sort((a, b) => a - b)) {
    const o = outputs.get(i)!;
    scan.files.push(o.stats);
    for (const e of o.events) scan.events.push(e);
  }
  return { scan, read: outputs.size, total: files.length, newestStart: fullReason ? null : (nth?.ts ?? null), fullReason, readInPart };
}
