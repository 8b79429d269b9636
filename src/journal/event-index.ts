// The streamed `--all` scan keeps, for each delegation event, where its line is (file, byte
// offset, length, line number) and the ids that link it to other events, as numbers in typed
// arrays: about 95 bytes an event, ids and preview hashes included, instead of a parsed object
// (0.7 KB). Lines of gzip archives cannot be re-read by offset; their bytes are copied into an
// arena outside the JS heap. Events linked by an id (same delegation, sub-run, parent run,
// retry or marker run) form one component; the report re-reads one component's lines at a
// time (model/component-stream.ts).
import { hash53, NumberTable, windowHash } from './id-hash.js';
import { MIN_SUBSTRING, withoutTruncationMark } from './preview.js';
import type { JournalEvent } from './types.js';

/** At most this many ids link one event (a sub-run start: delegation, run, parent run, retry_of). */
export const LINKS = 4;

/** What one scanned group of files contributes; typed arrays so a worker can transfer them. */
export interface IndexChunk {
  count: number;
  fileIndex: Int32Array;
  /** Byte offset of the line in its file; −(k + 1) when the line is `arena[k, k + length)`. */
  offset: Float64Array;
  length: Int32Array;
  line: Int32Array;
  /** The event's time; −Infinity when its `ts` does not parse (orders it first, conservatively). */
  ms: Float64Array;
  subNs: Int32Array;
  /** LINKS hashed ids per event; NaN where unused. */
  links: Float64Array;
  /** Sub-run completions with a preview: event (chunk-local), hash of the trimmed text, hash of its first 40 units (NaN when shorter). */
  previewAt: Int32Array;
  previewFull: Float64Array;
  previewPrefix: Float64Array;
  /** Lines of gzip archives: they cannot be re-read by offset. */
  arena: Uint8Array;
  /** `session_end` events: counted in the scan's stats, not indexed (no check needs them). */
  unindexed: number;
}

function linkIds(e: JournalEvent): (string | null)[] {
  switch (e.type) {
    case 'delegation_started':
      return [e.delegationId, e.parentRunId];
    case 'delegation_sub_run_started':
      return [e.delegationId, e.subRunId, e.parentRunId, e.retryOf];
    case 'delegation_retry':
      return [e.delegationId, e.originalRunId, e.retryRunId];
    case 'delegation_sub_run_completed':
      return [e.delegationId, e.subRunId];
    case 'delegation_completed':
      return [e.delegationId];
    case 'sync_marker':
      return [e.runId];
    default:
      return [];
  }
}

/** Collects one group's events as index records (the scanner's sink). */
export class IndexChunkBuilder {
  private fileIndex: number[] = [];
  private offset: number[] = [];
  private length: number[] = [];
  private line: number[] = [];
  private ms: number[] = [];
  private subNs: number[] = [];
  private links: number[] = [];
  private previewAt: number[] = [];
  private previewFull: number[] = [];
  private previewPrefix: number[] = [];
  private arena: Buffer[] = [];
  private arenaBytes = 0;
  private unindexed = 0;

  /** `offset` −1: the line cannot be read again (gzip, stdin), so its bytes are copied. */
  add(e: JournalEvent, buf: Buffer, start: number, end: number, offset: number): void {
    if (e.type === 'session_end') {
      this.unindexed++;
      return;
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
    const ids = linkIds(e);
    for (let k = 0; k < LINKS; k++) this.links.push(ids[k] ? hash53(ids[k]!) : Number.NaN);
    if (e.type === 'delegation_sub_run_completed' && typeof e.outputPreview === 'string') {
      const trimmed = e.outputPreview.trim();
      if (trimmed) {
        const core = withoutTruncationMark(trimmed);
        this.previewAt.push(i);
        this.previewFull.push(hash53(trimmed));
        this.previewPrefix.push(core.length >= MIN_SUBSTRING ? windowHash(core.slice(0, MIN_SUBSTRING)) : Number.NaN);
      }
    }
  }

  finish(): IndexChunk {
    // Its own buffer (never Buffer's shared pool): it is transferred to the main thread.
    const arena = new Uint8Array(this.arenaBytes);
    let at = 0;
    for (const part of this.arena) {
      arena.set(part, at);
      at += part.length;
    }
    return {
      arena,
      count: this.fileIndex.length,
      fileIndex: Int32Array.from(this.fileIndex),
      offset: Float64Array.from(this.offset),
      length: Int32Array.from(this.length),
      line: Int32Array.from(this.line),
      ms: Float64Array.from(this.ms),
      subNs: Int32Array.from(this.subNs),
      links: Float64Array.from(this.links),
      previewAt: Int32Array.from(this.previewAt),
      previewFull: Float64Array.from(this.previewFull),
      previewPrefix: Float64Array.from(this.previewPrefix),
      unindexed: this.unindexed,
    };
  }
}

/** The buffers of a chunk, for postMessage's transfer list (no copy between threads). */
export function chunkTransferList(c: IndexChunk): ArrayBuffer[] {
  return [c.fileIndex, c.offset, c.length, c.line, c.ms, c.subNs, c.links, c.previewAt, c.previewFull, c.previewPrefix, c.arena].map((a) => a.buffer as ArrayBuffer);
}

/** A growable typed array. */
class Column<T extends Int32Array | Float64Array> {
  data: T;
  size = 0;
  constructor(private readonly make: (n: number) => T, capacity = 1024) {
    this.data = make(capacity);
  }
  push(v: number): void {
    if (this.size === this.data.length) {
      const bigger = this.make(Math.ceil(this.data.length * 1.5)); // 1.5×: less slack than doubling
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = v;
  }
}
const ints = (capacity?: number) => new Column((n) => new Int32Array(n), capacity);
const doubles = (capacity?: number) => new Column((n) => new Float64Array(n), capacity);

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

/** What re-reading a record's line needs: its file, place and length (arena: archived lines). */
export interface IndexView {
  fileIndex: Int32Array;
  offset: Float64Array;
  length: Int32Array;
  line: Int32Array;
  arena: Uint8Array;
}

/** Every chunk merged: records, the union-find over linked ids, and the preview hashes. */
export class EventIndex {
  readonly fileIndex = ints();
  readonly offset = doubles();
  readonly length = ints();
  readonly line = ints();
  /** Union-find node of each record's first id. */
  private node = ints();
  /** Bytes of the lines that cannot be re-read (see IndexChunk.offset). */
  arena = new Uint8Array(0);
  private arenaBytes = 0;
  /** Events counted by the scan (session_end included), as ScanStats reports them. */
  eventCount = 0;

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

  add(c: IndexChunk): void {
    if (this.ended) throw new Error('EventIndex.add after components()');
    this.eventCount += c.count + c.unindexed;
    const arenaBase = this.appendArena(c.arena);
    const first = this.fileIndex.size;
    for (let i = 0; i < c.count; i++) {
      const off = c.offset[i];
      this.fileIndex.push(c.fileIndex[i]);
      this.offset.push(off < 0 ? off - arenaBase : off);
      this.length.push(c.length[i]);
      this.line.push(c.line[i]);
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
    for (let j = 0; j < c.previewAt.length; j++) {
      this.previewNode.push(this.node.data[first + c.previewAt[j]]);
      this.previewFull.push(c.previewFull[j]);
      this.previewPrefix.push(c.previewPrefix[j]);
    }
  }

  /** Appends a chunk's arena; returns where it starts. */
  private appendArena(bytes: Uint8Array): number {
    const base = this.arenaBytes;
    if (bytes.length === 0) return base;
    if (base + bytes.length > this.arena.length) {
      const bigger = new Uint8Array(Math.max(base + bytes.length, Math.ceil(this.arena.length * 1.5), 64 * 1024));
      bigger.set(this.arena.subarray(0, base));
      this.arena = bigger;
    }
    this.arena.set(bytes, base);
    this.arenaBytes += bytes.length;
    return base;
  }

  /** The records' columns, trimmed to their size. */
  view(): IndexView {
    const n = this.fileIndex.size;
    return {
      fileIndex: this.fileIndex.data.subarray(0, n),
      offset: this.offset.data.subarray(0, n),
      length: this.length.data.subarray(0, n),
      line: this.line.data.subarray(0, n),
      arena: this.arena.subarray(0, this.arenaBytes),
    };
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
    const p = this.parent.data;
    let r = n;
    while (p[r] !== r) r = p[r];
    while (p[n] !== r) {
      const next = p[n];
      p[n] = r;
      n = next;
    }
    return r;
  }

  private union(a: number, b: number): number {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return ra;
    const [keep, gone] = ra < rb ? [ra, rb] : [rb, ra];
    this.parent.data[gone] = keep;
    this.lower(keep, this.minMs.data[gone], this.minSub.data[gone], this.minFile.data[gone], this.minLine.data[gone]);
    return keep;
  }

  /** Lowers a root's bound to (ms, subNs, file, line) when that orders first. */
  private lower(root: number, ms: number, subNs: number, file: number, line: number): void {
    const m = this.minMs.data[root];
    const s = this.minSub.data[root];
    const f = this.minFile.data[root];
    if (ms < m || (ms === m && (subNs < s || (subNs === s && (file < f || (file === f && line < this.minLine.data[root])))))) {
      this.minMs.data[root] = ms;
      this.minSub.data[root] = subNs;
      this.minFile.data[root] = file;
      this.minLine.data[root] = line;
    }
  }

  /**
   * Components in the order their first delegation can appear, and the preview tables. Ends the
   * index: the union-find and the hashes, needed only to build these, are released.
   */
  components(): { components: ComponentTable; full: PreviewTable; prefix: PreviewTable } {
    if (this.ended) throw new Error('EventIndex.components() is called once');
    const n = this.fileIndex.size;
    // Number the roots; count each one's records.
    const compOfRoot = new Int32Array(this.parent.size).fill(-1);
    const compOfRecord = new Int32Array(n);
    const roots = ints();
    const counts = ints();
    for (let i = 0; i < n; i++) {
      const r = this.find(this.node.data[i]);
      let c = compOfRoot[r];
      if (c < 0) {
        c = compOfRoot[r] = roots.size;
        roots.push(r);
        counts.push(0);
      }
      compOfRecord[i] = c;
      counts.data[c]++;
    }
    const count = roots.size;
    const root = roots.data;
    const { minMs, minSub, minFile, minLine } = this;
    const order = new Int32Array(count);
    for (let c = 0; c < count; c++) order[c] = c;
    order.sort(
      (a, b) =>
        minMs.data[root[a]] - minMs.data[root[b]] ||
        minSub.data[root[a]] - minSub.data[root[b]] ||
        minFile.data[root[a]] - minFile.data[root[b]] ||
        minLine.data[root[a]] - minLine.data[root[b]],
    );
    const rank = new Int32Array(count);
    for (let k = 0; k < count; k++) rank[order[k]] = k;
    // Records grouped by component, components in rank order.
    const start = new Int32Array(count + 1);
    for (let k = 0; k < count; k++) start[k + 1] = start[k] + counts.data[order[k]];
    const fill = start.slice(0, count);
    const records = new Int32Array(n);
    for (let i = 0; i < n; i++) records[fill[rank[compOfRecord[i]]]++] = i;
    const pick = <T extends Float64Array | Int32Array>(col: T, make: (k: number) => T): T => {
      const out = make(count);
      for (let k = 0; k < count; k++) out[k] = col[root[order[k]]];
      return out;
    };
    const table = new ComponentTable(
      count,
      records,
      start,
      pick(minMs.data, (k) => new Float64Array(k)),
      pick(minSub.data, (k) => new Int32Array(k)),
      pick(minFile.data, (k) => new Int32Array(k)),
      pick(minLine.data, (k) => new Int32Array(k)),
    );
    const previews = (hashes: Float64Array): PreviewTable => {
      // Typed arrays only: a large JS array here would be promoted and grow the young generation.
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
        comps[k] = rank[compOfRoot[this.find(this.previewNode.data[j])]];
        bits[(hashes[j] % BITS) >>> 3] |= 1 << (hashes[j] & 7);
      }
      return { bits, hashes: sorted, components: comps };
    };
    const result = {
      components: table,
      full: previews(this.previewFull.data.subarray(0, this.previewFull.size)),
      prefix: previews(this.previewPrefix.data.subarray(0, this.previewPrefix.size)),
    };
    this.ended = true;
    this.ids = new NumberTable(0);
    this.node = this.parent = this.minSub = this.minFile = this.minLine = this.previewNode = ints(0);
    this.minMs = this.previewFull = this.previewPrefix = doubles(0);
    return result;
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
