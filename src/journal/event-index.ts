// The streamed `--all` scan keeps, for each delegation event, where its line is (file, byte
// offset, length, line number) and the ids that link it to other events, as numbers in typed
// arrays: about 72 bytes an event, ids and preview hashes included, instead of a parsed object
// (0.7 KB). Lines of gzip archives cannot be re-read by offset; their bytes are kept outside
// the JS heap, deflated, one block per chunk. Columns grow in fixed pages (paged.ts). Events
// linked by an id (same delegation, sub-run, parent run, retry or marker run) form one
// component; the report re-reads one component's lines at a time (model/component-stream.ts).
import { createRequire } from 'node:module';
import { hash53, NumberTable } from './id-hash.js';
import { PagedColumn } from './paged.js';
import { previewKeys } from './preview.js';
import type { Instant, JournalEvent } from './types.js';

/** At most this many ids link one event (a sub-run start: delegation, run, parent run, retry_of). */
export const LINKS = 4;

/** What one scanned group of files contributes; typed arrays so a worker can transfer them. */
export interface IndexChunk {
  count: number;
  fileIndex: Int32Array;
  /** Byte offset of the line in its file; −(k + 1) when the line is `arena[k, k + length)` (once inflated). */
  offset: Float64Array;
  length: Int32Array;
  line: Int32Array;
  /** The event's time; −Infinity when its `ts` does not parse (orders it first, conservatively). */
  ms: Float64Array;
  subNs: Int32Array;
  /** LINKS hashed ids per event; NaN where unused. */
  links: Float64Array;
  /** Ids past an event's LINKS slots (rare: a reuse-key-shaped id's base), as pairs: the event's first id, that id. */
  extraLinks: Float64Array;
  /** Sub-run completions with a preview: event (chunk-local), hash of the trimmed text, hash of its first 40 units (NaN when shorter). */
  previewAt: Int32Array;
  previewFull: Float64Array;
  previewPrefix: Float64Array;
  /** The chunk-local records that are `delegation_started` events (`last` looks for the newest). */
  starts: Int32Array;
  /** Untimed events placed after a timed one in their file (`after`): chunk-local record, and that time. */
  afterAt: Int32Array;
  afterMs: Float64Array;
  afterSubNs: Int32Array;
  /** Lines of gzip archives (they cannot be re-read by offset): raw-deflated when `arenaDeflated`, else as read. */
  arena: Uint8Array;
  arenaDeflated: boolean;
  /** `session_end` events: counted in the scan's stats, not indexed (no check needs them). */
  unindexed: number;
  /** For a named target only: each file's distinct delegation ids and session ids. */
  fileIds?: FileIds[];
}

/** The delegation ids and `session_id`s a file's events carry (a named target's session and prefix rules). */
export interface FileIds {
  fileIndex: number;
  delegationIds: string[];
  sessionIds: string[];
}

/**
 * `x` for a delegation id of the shape `x#<digits>`, the shape of a reuse key: such an id is
 * linked to `x`, so that grouping sees both and keeps a reused `x`'s keys apart from it.
 */
export function reuseKeyBase(id: string): string | null {
  const hash = id.lastIndexOf('#');
  if (hash <= 0 || hash === id.length - 1) return null;
  for (let i = hash + 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  return id.slice(0, hash);
}

/**
 * 32 bits of an event's first two linked ids and its time. A journal rewritten between the scan
 * and the read-back can hold another event of the same length at a record's place: its check
 * differs (4 bytes a record; the ids' hashes are the scan's own).
 */
export function recordCheck(firstIdHash: number, secondIdHash: number, ms: number): number {
  const id = (h: number) => (Number.isNaN(h) ? 0 : h >>> 0);
  const time = Number.isFinite(ms) ? Math.floor(ms) >>> 0 : 0;
  return (id(firstIdHash) ^ Math.imul(id(secondIdHash), 31) ^ time) | 0;
}

/** recordCheck of an event parsed again from its line. */
export function eventCheck(e: JournalEvent): number {
  const ids = linkIds(e);
  return recordCheck(ids[0] ? hash53(ids[0]) : Number.NaN, ids[1] ? hash53(ids[1]) : Number.NaN, e.time ? e.time.ms : Number.NEGATIVE_INFINITY);
}

/** The ids that link an event to others: the same delegation, sub-run, parent run, retry or marker run. */
export function linkIds(e: JournalEvent): (string | null)[] {
  switch (e.type) {
    case 'delegation_started':
      return [e.delegationId, e.parentRunId, reuseKeyBase(e.delegationId)];
    case 'delegation_sub_run_started':
      // A fifth id does not fit the index's LINKS slots: it goes to the chunk's extraLinks.
      return [e.delegationId, e.subRunId, e.parentRunId, e.retryOf, reuseKeyBase(e.delegationId)];
    case 'delegation_retry':
      return [e.delegationId, e.originalRunId, e.retryRunId, reuseKeyBase(e.delegationId)];
    case 'delegation_sub_run_completed':
      return [e.delegationId, e.subRunId, reuseKeyBase(e.delegationId)];
    case 'delegation_completed':
      return [e.delegationId, reuseKeyBase(e.delegationId)];
    case 'sync_marker':
      return [e.runId];
    default:
      return [];
  }
}

/**
 * Archived lines are deflated together once this many have gathered: one zlib call per arena,
 * not per archive (a zlib stream costs ≈ 75 µs to set up: 1.5 s over 20,000 small archives),
 * and below glibc's 128 KiB mmap threshold for the block concatenated to deflate it (paged.ts).
 */
const ARENA_BYTES = 96 * 1024;

/** Collects one group's events as index records (the scanner's sink). */
export class IndexChunkBuilder {
  private fileIndex: number[] = [];
  private offset: number[] = [];
  private length: number[] = [];
  private line: number[] = [];
  private ms: number[] = [];
  private subNs: number[] = [];
  private links: number[] = [];
  private extraLinks: number[] = [];
  private previewAt: number[] = [];
  private previewFull: number[] = [];
  private previewPrefix: number[] = [];
  private starts: number[] = [];
  private afterAt: number[] = [];
  private afterMs: number[] = [];
  private afterSubNs: number[] = [];
  private arena: Buffer[] = [];
  private arenaBytes = 0;
  private unindexed = 0;
  private readonly fileIds: Map<number, { delegationIds: Set<string>; sessionIds: Set<string> }> | null;

  constructor({ fileIds = false }: { fileIds?: boolean } = {}) {
    this.fileIds = fileIds ? new Map() : null;
  }

  /** `offset` −1: the line cannot be read again (gzip, stdin), so its bytes are copied. */
  add(e: JournalEvent, buf: Buffer, start: number, end: number, offset: number): void {
    if (e.type === 'session_end') {
      this.unindexed++;
      return;
    }
    if (this.fileIds) {
      let ids = this.fileIds.get(e.fileIndex);
      if (!ids) this.fileIds.set(e.fileIndex, (ids = { delegationIds: new Set(), sessionIds: new Set() }));
      if ('delegationId' in e) ids.delegationIds.add(e.delegationId);
      if (e.sessionId !== null) ids.sessionIds.add(e.sessionId);
    }
    const i = this.fileIndex.length;
    this.fileIndex.push(e.fileIndex);
    if (offset < 0) {
      this.offset.push(-(this.arenaBytes + 1));
      this.arena.push(Buffer.from(buf.subarray(start, end)));
      this.arenaBytes += end - start;
    } else {
      this.offset.push(offset);
    }
    this.length.push(end - start);
    this.line.push(e.line);
    this.ms.push(e.time ? e.time.ms : Number.NEGATIVE_INFINITY);
    this.subNs.push(e.time ? e.time.subNs : 0);
    if (!e.time && e.after) {
      this.afterAt.push(i);
      this.afterMs.push(e.after.ms);
      this.afterSubNs.push(e.after.subNs);
    }
    if (e.type === 'delegation_started') this.starts.push(i);
    const ids = linkIds(e);
    for (let k = 0; k < LINKS; k++) this.links.push(ids[k] ? hash53(ids[k]!) : Number.NaN);
    for (let k = LINKS; k < ids.length; k++) if (ids[k] && ids[0]) this.extraLinks.push(hash53(ids[0]!), hash53(ids[k]!));
    const keys = e.type === 'delegation_sub_run_completed' && typeof e.outputPreview === 'string' ? previewKeys(e.outputPreview) : null;
    if (keys) {
      this.previewAt.push(i);
      this.previewFull.push(keys.full);
      this.previewPrefix.push(keys.prefix ?? Number.NaN);
    }
  }

  finish(): IndexChunk {
    // Its own buffer, never Buffer's shared pool: it is transferred to the main thread. A large
    // archive's lines are deflated here; a small one's are deflated by the index with others'
    // (EventIndex.add), and never make a block above glibc's mmap threshold (paged.ts).
    const deflated = this.arenaBytes >= ARENA_BYTES;
    let arena: Uint8Array;
    if (deflated) arena = new Uint8Array(zlib().deflateRawSync(Buffer.concat(this.arena, this.arenaBytes), { level: 1 }));
    else {
      arena = new Uint8Array(this.arenaBytes);
      let at = 0;
      for (const b of this.arena) {
        arena.set(b, at);
        at += b.length;
      }
    }
    return {
      arenaDeflated: deflated,
      arena,
      count: this.fileIndex.length,
      fileIndex: Int32Array.from(this.fileIndex),
      offset: Float64Array.from(this.offset),
      length: Int32Array.from(this.length),
      line: Int32Array.from(this.line),
      ms: Float64Array.from(this.ms),
      subNs: Int32Array.from(this.subNs),
      links: Float64Array.from(this.links),
      extraLinks: Float64Array.from(this.extraLinks),
      previewAt: Int32Array.from(this.previewAt),
      previewFull: Float64Array.from(this.previewFull),
      previewPrefix: Float64Array.from(this.previewPrefix),
      starts: Int32Array.from(this.starts),
      afterAt: Int32Array.from(this.afterAt),
      afterMs: Float64Array.from(this.afterMs),
      afterSubNs: Int32Array.from(this.afterSubNs),
      unindexed: this.unindexed,
      ...(this.fileIds ? { fileIds: [...this.fileIds].map(([fileIndex, ids]) => ({ fileIndex, delegationIds: [...ids.delegationIds], sessionIds: [...ids.sessionIds] })) } : {}),
    };
  }
}

/** The buffers of a chunk, for postMessage's transfer list (no copy between threads). */
export function chunkTransferList(c: IndexChunk): ArrayBuffer[] {
  return [c.fileIndex, c.offset, c.length, c.line, c.ms, c.subNs, c.links, c.extraLinks, c.previewAt, c.previewFull, c.previewPrefix, c.starts, c.afterAt, c.afterMs, c.afterSubNs, c.arena].map((a) => a.buffer as ArrayBuffer);
}

// zlib on first use, by require (the CLI bundle is compiled by vm.Script, which has no import()).
const requireHere = createRequire(import.meta.url);
let zlibModule: typeof import('node:zlib') | undefined;
const zlib = () => (zlibModule ??= requireHere('node:zlib') as typeof import('node:zlib'));

const ints = () => PagedColumn.ints();
const doubles = () => PagedColumn.doubles();

/** Event keys compare as (time, sub-ms, file, line): the report's delegation order. */
export interface OrderKey {
  ms: number;
  subNs: number;
  fileIndex: number;
  line: number;
}

/**
 * Components in the order their first delegation can appear: the record indices of component c
 * are `records[start[c], start[c + 1])`; no delegation of c orders before `lowerBound(c)`.
 * Flat arrays: a large tree has tens of thousands of components.
 */
export class ComponentTable {
  constructor(
    readonly count: number,
    private readonly records: Int32Array,
    private readonly start: Int32Array,
    private readonly boundMs: Float64Array,
    private readonly boundSub: Int32Array,
    private readonly boundFile: Int32Array,
    private readonly boundLine: Int32Array,
  ) {}

  recordsOf(c: number): Int32Array {
    return this.records.subarray(this.start[c], this.start[c + 1]);
  }

  lowerBound(c: number): OrderKey {
    return { ms: this.boundMs[c], subNs: this.boundSub[c], fileIndex: this.boundFile[c], line: this.boundLine[c] };
  }
}

/** Preview hashes → the components holding a completion with that preview. */
export interface PreviewTable {
  hashes: Float64Array;
  components: Int32Array;
  /** One bit per (hash mod 2^20): most lookups miss and stop here, before the binary search. */
  bits: Uint8Array;
}

const BITS = 1 << 20;
/**
 * Inflated arenas kept: at most 8, and at most 32 MiB of them besides the newest. Components come
 * in time order, and one archive's lines are spread over several arenas: keeping only the last one
 * inflated each arena 15 times over a 4 GiB report (700 calls, 0.36 s, 83 MB of garbage); 8 take
 * 65 calls and 26 ms. Most arenas inflate to 100–140 KiB, but a large archive's delegation lines
 * form one arena of their own (13 MB for a 3.5 MB archive): eight of those would hold 108 MB, and
 * a cap of 2 MiB made two of them, read in turn by each delegation, evict each other (38 s, not 1.4).
 */
const KEPT_ARENAS = 8;
const KEPT_ARENA_BYTES = 32 * 1024 * 1024;
/** Archived line positions: arena number × 2^32 + byte position (arenas are far below 4 GiB). */
const ARENA_STRIDE = 2 ** 32;

/** What re-reading a record's line needs: its file, place and length, or its archived bytes. */
export interface IndexView {
  /** Each record's recordCheck: a line read back that gives another is not the event the scan saw. */
  check: PagedColumn;
  fileIndex: PagedColumn;
  /** Byte offset in the file; negative for an archived line (see `archived`). */
  offset: PagedColumn;
  length: PagedColumn;
  line: PagedColumn;
  /** The bytes of an archived line (a gzip archive's, copied at scan time), by record. */
  archived(r: number): Buffer;
  /** An untimed record's place in its file (JournalEvent.after): null when no timed event came before it. */
  after(r: number): Instant | null;
}

/** Components holding a `delegation_started`, by their newest start (`last` on a whole tree). */
export interface NewestStarts {
  /** Component ranks, newest start first. */
  components: Int32Array;
  /** Each one's newest start: no delegation of that component starts after it. */
  keys: OrderKey[];
  /** Starts whose `ts` does not parse: they are not in `components`. */
  untimed: number;
}

/** Every chunk merged: records, the union-find over linked ids, and the preview hashes. */
export class EventIndex {
  readonly fileIndex = ints();
  readonly offset = doubles();
  readonly length = ints();
  readonly line = ints();
  readonly check = ints();
  /** Union-find node of each record's first id. */
  private node = ints();
  /** Archived lines, raw-deflated at the fastest level (a quarter of the bytes), about ARENA_BYTES each before. */
  private readonly arenas: Uint8Array[] = [];
  /** Archived lines not deflated yet: the next arena. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The arenas inflated last, newest last: components come in time order, so one archive's come close together. */
  private inflated: { arena: number; bytes: Buffer }[] = [];
  /** Events counted by the scan (session_end included), as ScanStats reports them. */
  eventCount = 0;
  /** Untimed records placed after a timed event of their file (few: a `ts` that does not parse). */
  private readonly afterOf = new Map<number, Instant>();
  /** Each file's delegation and session ids, when the scan collected them (a named target). */
  readonly fileIds: FileIds[] = [];

  private ids = new NumberTable(4096);
  private ended = false;
  private parent = ints();
  private minMs = doubles();
  private minSub = ints();
  private minFile = ints();
  private minLine = ints();
  private previewNode = ints();
  private previewFull = doubles();
  private previewPrefix = doubles();
  /** `delegation_started` records and their times, when asked for (newestStarts). */
  private readonly starts: { record: PagedColumn; ms: PagedColumn; subNs: PagedColumn } | null;

  /** Inflated arenas kept besides the newest, in bytes (KEPT_ARENA_BYTES; smaller in tests). */
  private readonly keptArenaBytes: number;

  constructor({ starts = false, keptArenaBytes = KEPT_ARENA_BYTES }: { starts?: boolean; keptArenaBytes?: number } = {}) {
    this.starts = starts ? { record: ints(), ms: doubles(), subNs: ints() } : null;
    this.keptArenaBytes = keptArenaBytes;
  }

  add(c: IndexChunk): void {
    if (this.ended) throw new Error('EventIndex.add after components()');
    this.eventCount += c.count + c.unindexed;
    if (c.fileIds) for (const f of c.fileIds) this.fileIds.push(f);
    // An archived line's offset becomes −(arena × 2^32 + position) − 1: exact in a double. A
    // deflated chunk arena is an arena of its own; raw lines join the arena being gathered.
    if (c.arenaDeflated) this.sealArena();
    const arenaBase = this.arenas.length * ARENA_STRIDE + this.pendingBytes;
    if (c.arenaDeflated) this.arenas.push(c.arena);
    else if (c.arena.length) {
      this.pending.push(c.arena);
      this.pendingBytes += c.arena.length;
    }
    const first = this.fileIndex.size;
    for (let i = 0; i < c.count; i++) {
      const off = c.offset[i];
      this.fileIndex.push(c.fileIndex[i]);
      this.offset.push(off < 0 ? off - arenaBase : off);
      this.length.push(c.length[i]);
      this.line.push(c.line[i]);
      this.check.push(recordCheck(c.links[i * LINKS], c.links[i * LINKS + 1], c.ms[i]));
      let root = -1;
      let own = -1;
      for (let k = 0; k < LINKS; k++) {
        const h = c.links[i * LINKS + k];
        if (Number.isNaN(h)) continue;
        const n = this.ids.getOrAdd(h, () => this.newNode());
        if (own < 0) own = n;
        root = root < 0 ? this.find(n) : this.union(root, n);
      }
      if (own < 0) own = this.newNode(); // an event without ids stands alone
      this.node.push(own);
      this.lower(root < 0 ? own : root, c.ms[i], c.subNs[i], c.fileIndex[i], c.line[i]);
    }
    for (let j = 0; j + 1 < c.extraLinks.length; j += 2) {
      const a = this.ids.getOrAdd(c.extraLinks[j], () => this.newNode());
      const b = this.ids.getOrAdd(c.extraLinks[j + 1], () => this.newNode());
      this.union(a, b);
    }
    for (let j = 0; j < c.afterAt.length; j++) this.afterOf.set(first + c.afterAt[j], { ms: c.afterMs[j], subNs: c.afterSubNs[j] });
    if (this.starts)
      for (const j of c.starts) {
        this.starts.record.push(first + j);
        this.starts.ms.push(c.ms[j]);
        this.starts.subNs.push(c.subNs[j]);
      }
    for (let j = 0; j < c.previewAt.length; j++) {
      this.previewNode.push(this.node.get(first + c.previewAt[j]));
      this.previewFull.push(c.previewFull[j]);
      this.previewPrefix.push(c.previewPrefix[j]);
    }
    if (this.pendingBytes >= ARENA_BYTES) this.sealArena();
  }

  /** Bytes the archived lines take in the index (deflated, and those not deflated yet). */
  get archivedBytes(): number {
    return this.arenas.reduce((n, a) => n + a.length, this.pendingBytes);
  }

  /** Deflates the archived lines gathered so far into the next arena. */
  private sealArena(): void {
    if (this.pendingBytes === 0) return;
    const raw = Buffer.concat(this.pending, this.pendingBytes);
    this.arenas.push(new Uint8Array(zlib().deflateRawSync(raw, { level: 1 })));
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** The records' columns, and their archived lines. */
  view(): IndexView {
    const { offset, length } = this;
    return {
      check: this.check,
      fileIndex: this.fileIndex,
      offset,
      length,
      line: this.line,
      archived: (r) => {
        const k = -offset.get(r) - 1;
        const bytes = this.arenaBytes(Math.floor(k / ARENA_STRIDE));
        return bytes.subarray(k % ARENA_STRIDE, (k % ARENA_STRIDE) + length.get(r));
      },
      after: (r) => this.afterOf.get(r) ?? null,
    };
  }

  /** Arena `a`, inflated (the last few are kept: the next records usually need them too). */
  private arenaBytes(a: number): Buffer {
    if (a === this.arenas.length) this.sealArena(); // read before the scan ended
    const kept = this.inflated;
    const at = kept.findIndex((k) => k.arena === a);
    const hit = at >= 0 ? kept.splice(at, 1)[0] : { arena: a, bytes: zlib().inflateRawSync(this.arenas[a]) };
    kept.push(hit);
    let older = 0; // bytes kept besides the newest
    for (let k = 0; k < kept.length - 1; k++) older += kept[k].bytes.length;
    while (kept.length > 1 && (kept.length > KEPT_ARENAS || older > this.keptArenaBytes)) older -= kept.shift()!.bytes.length;
    return hit.bytes;
  }

  private newNode(): number {
    const n = this.parent.size;
    this.parent.push(n);
    this.minMs.push(Number.POSITIVE_INFINITY);
    this.minSub.push(0);
    this.minFile.push(0);
    this.minLine.push(0);
    return n;
  }

  private find(n: number): number {
    const p = this.parent;
    let r = n;
    while (p.get(r) !== r) r = p.get(r);
    while (p.get(n) !== r) {
      const next = p.get(n);
      p.set(n, r);
      n = next;
    }
    return r;
  }

  private union(a: number, b: number): number {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return ra;
    const [keep, gone] = ra < rb ? [ra, rb] : [rb, ra];
    this.parent.set(gone, keep);
    this.lower(keep, this.minMs.get(gone), this.minSub.get(gone), this.minFile.get(gone), this.minLine.get(gone));
    return keep;
  }

  /** Lowers a root's bound to (ms, subNs, file, line) when that orders first. */
  private lower(root: number, ms: number, subNs: number, file: number, line: number): void {
    const m = this.minMs.get(root);
    const s = this.minSub.get(root);
    const f = this.minFile.get(root);
    if (ms < m || (ms === m && (subNs < s || (subNs === s && (file < f || (file === f && line < this.minLine.get(root))))))) {
      this.minMs.set(root, ms);
      this.minSub.set(root, subNs);
      this.minFile.set(root, file);
      this.minLine.set(root, line);
    }
  }

  /**
   * Components in the order their first delegation can appear, and the preview tables. Ends the
   * index: the union-find and the hashes, needed only to build these, are released. `linkedTo`:
   * id hashes whose components are also listed (`linked`, in order): the ones holding an event
   * that carries such an id (a hash collision only adds one), and those with an event in one of
   * the files `inFiles`.
   */
  components(
    linkedTo: readonly number[] = [],
    inFiles: ReadonlySet<number> = new Set(),
    { idTable = false }: { idTable?: boolean } = {},
  ): { components: ComponentTable; full: PreviewTable; prefix: PreviewTable; linked: number[]; newest: NewestStarts | null; componentOfId: NumberTable | null } {
    if (this.ended) throw new Error('EventIndex.components() is called once');
    this.sealArena();
    const n = this.fileIndex.size;
    // Number the roots; count each one's records.
    const compOfRoot = new Int32Array(this.parent.size).fill(-1);
    const compOfRecord = new Int32Array(n);
    const roots = ints();
    const counts = ints();
    for (let i = 0; i < n; i++) {
      const r = this.find(this.node.get(i));
      let c = compOfRoot[r];
      if (c < 0) {
        c = compOfRoot[r] = roots.size;
        roots.push(r);
        counts.push(0);
      }
      compOfRecord[i] = c;
      counts.set(c, counts.get(c) + 1);
    }
    const count = roots.size;
    const root = (c: number) => roots.get(c);
    const { minMs, minSub, minFile, minLine } = this;
    const order = new Int32Array(count);
    for (let c = 0; c < count; c++) order[c] = c;
    order.sort(
      (a, b) =>
        minMs.get(root(a)) - minMs.get(root(b)) ||
        minSub.get(root(a)) - minSub.get(root(b)) ||
        minFile.get(root(a)) - minFile.get(root(b)) ||
        minLine.get(root(a)) - minLine.get(root(b)),
    );
    const rank = new Int32Array(count);
    for (let k = 0; k < count; k++) rank[order[k]] = k;
    // Records grouped by component, components in rank order.
    const start = new Int32Array(count + 1);
    for (let k = 0; k < count; k++) start[k + 1] = start[k] + counts.get(order[k]);
    const fill = start.slice(0, count);
    const records = new Int32Array(n);
    for (let i = 0; i < n; i++) records[fill[rank[compOfRecord[i]]]++] = i;
    const pick = <T extends Float64Array | Int32Array>(col: PagedColumn, make: (k: number) => T): T => {
      const out = make(count);
      for (let k = 0; k < count; k++) out[k] = col.get(root(order[k]));
      return out;
    };
    const table = new ComponentTable(
      count,
      records,
      start,
      pick(minMs, (k) => new Float64Array(k)),
      pick(minSub, (k) => new Int32Array(k)),
      pick(minFile, (k) => new Int32Array(k)),
      pick(minLine, (k) => new Int32Array(k)),
    );
    const previews = (column: PagedColumn): PreviewTable => {
      // Typed arrays only: a large JS array here would be promoted and grow the young generation.
      const hashes = new Float64Array(column.size);
      for (let j = 0; j < hashes.length; j++) hashes[j] = column.get(j);
      let kept = 0;
      for (let j = 0; j < hashes.length; j++) if (!Number.isNaN(hashes[j])) kept++;
      const idx = new Int32Array(kept);
      for (let j = 0, k = 0; j < hashes.length; j++) if (!Number.isNaN(hashes[j])) idx[k++] = j;
      idx.sort((a, b) => hashes[a] - hashes[b]);
      const bits = new Uint8Array(BITS / 8);
      const sorted = new Float64Array(kept);
      const comps = new Int32Array(kept);
      for (let k = 0; k < kept; k++) {
        const j = idx[k];
        sorted[k] = hashes[j];
        comps[k] = rank[compOfRoot[this.find(this.previewNode.get(j))]];
        bits[(hashes[j] % BITS) >>> 3] |= 1 << (hashes[j] & 7);
      }
      return { bits, hashes: sorted, components: comps };
    };
    const linked = new Set<number>();
    for (const h of linkedTo) {
      const node = this.ids.get(h);
      if (node !== undefined) linked.add(rank[compOfRoot[this.find(node)]]);
    }
    if (inFiles.size) for (let i = 0; i < n; i++) if (inFiles.has(this.fileIndex.get(i))) linked.add(rank[compOfRecord[i]]);
    // Follow mode links new events to the components of the replay by their ids' hashes.
    let componentOfId: NumberTable | null = null;
    if (idTable) {
      componentOfId = this.ids;
      componentOfId.mapValues((node) => rank[compOfRoot[this.find(node)]]);
    }
    const result = {
      components: table,
      full: previews(this.previewFull),
      prefix: previews(this.previewPrefix),
      linked: [...linked].sort((a, b) => a - b),
      newest: this.starts && this.newestStarts(this.starts, (r) => rank[compOfRecord[r]]),
      componentOfId,
    };
    this.ended = true;
    this.ids = new NumberTable(0);
    this.node = this.parent = this.minSub = this.minFile = this.minLine = this.previewNode = ints();
    this.minMs = this.previewFull = this.previewPrefix = doubles();
    return result;
  }

  private newestStarts(starts: NonNullable<EventIndex['starts']>, componentOf: (record: number) => number): NewestStarts {
    const best = new Map<number, OrderKey>();
    let untimed = 0;
    for (let k = 0; k < starts.record.size; k++) {
      const r = starts.record.get(k);
      const key = { ms: starts.ms.get(k), subNs: starts.subNs.get(k), fileIndex: this.fileIndex.get(r), line: this.line.get(r) };
      if (key.ms === Number.NEGATIVE_INFINITY) {
        untimed++;
        continue;
      }
      const c = componentOf(r);
      const had = best.get(c);
      if (!had || compareKeys(key, had) > 0) best.set(c, key);
    }
    const order = [...best].sort((a, b) => compareKeys(b[1], a[1]));
    return { components: Int32Array.from(order, ([c]) => c), keys: order.map(([, key]) => key), untimed };
  }
}

export function compareKeys(a: OrderKey, b: OrderKey): number {
  return a.ms - b.ms || a.subNs - b.subNs || a.fileIndex - b.fileIndex || a.line - b.line;
}

/** Components whose previews hash to `hash` (binary search in a sorted table). */
export function componentsWithHash(t: PreviewTable, hash: number, out: Set<number>): void {
  if (!(t.bits[(hash % BITS) >>> 3] & (1 << (hash & 7)))) return;
  let lo = 0;
  let hi = t.hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t.hashes[mid] < hash) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < t.hashes.length && t.hashes[i] === hash; i++) out.add(t.components[i]);
}
