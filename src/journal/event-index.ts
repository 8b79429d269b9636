// The streamed `--all` scan keeps, for each delegation event, where its line is (file, byte
// offset, length, line number) and the ids that link it to other events, as numbers in typed
// arrays: about 30 bytes an event instead of a parsed object (0.7 KB). Events linked by an id
// (same delegation, sub-run, parent run, retry or marker run) form one component; the report
// re-reads one component's lines at a time (model/component-stream.ts).
import { hash53, NumberTable, windowHash } from '../model/id-hash.js';
import type { JournalEvent } from './types.js';

/** At most this many ids link one event (a sub-run start: delegation, run, parent run, retry_of). */
export const LINKS = 4;
/** Previews are matched by their first 40 UTF-16 units (cross-index MIN_SUBSTRING). */
const PREFIX = 40;

/** What one scanned group of files contributes; typed arrays so a worker can transfer them. */
export interface IndexChunk {
  count: number;
  fileIndex: Int32Array;
  /** Byte offset of the line in its file; −(k + 1) when the event is `kept[k]` (not re-readable). */
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
  /** Events of gzip archives and standard input: they cannot be re-read by offset. */
  kept: JournalEvent[];
  /** `session_end` events: counted, not needed by any check. */
  uncounted: number;
}

const withoutMark = (s: string) => (s.endsWith('…') ? s.slice(0, -1) : s);

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
  private kept: JournalEvent[] = [];
  private uncounted = 0;

  /** `offset` −1: the line cannot be read again (gzip, stdin), so the event itself is kept. */
  add(e: JournalEvent, offset: number, length: number): void {
    if (e.type === 'session_end') {
      this.uncounted++;
      return;
    }
    const i = this.fileIndex.length;
    this.fileIndex.push(e.fileIndex);
    if (offset < 0) {
      this.kept.push(e);
      this.offset.push(-this.kept.length);
    } else {
      this.offset.push(offset);
    }
    this.length.push(length);
    this.line.push(e.line);
    this.ms.push(e.time ? e.time.ms : Number.NEGATIVE_INFINITY);
    this.subNs.push(e.time ? e.time.subNs : 0);
    const ids = linkIds(e);
    for (let k = 0; k < LINKS; k++) this.links.push(ids[k] ? hash53(ids[k]!) : Number.NaN);
    if (e.type === 'delegation_sub_run_completed' && typeof e.outputPreview === 'string') {
      const trimmed = e.outputPreview.trim();
      if (trimmed) {
        const core = withoutMark(trimmed);
        this.previewAt.push(i);
        this.previewFull.push(hash53(trimmed));
        this.previewPrefix.push(core.length >= PREFIX ? windowHash(core.slice(0, PREFIX)) : Number.NaN);
      }
    }
  }

  finish(): IndexChunk {
    return {
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
      kept: this.kept,
      uncounted: this.uncounted,
    };
  }
}

/** The buffers of a chunk, for postMessage's transfer list (no copy between threads). */
export function chunkTransferList(c: IndexChunk): ArrayBuffer[] {
  return [c.fileIndex, c.offset, c.length, c.line, c.ms, c.subNs, c.links, c.previewAt, c.previewFull, c.previewPrefix].map((a) => a.buffer as ArrayBuffer);
}

/** A growable typed array. */
class Column<T extends Int32Array | Float64Array> {
  data: T;
  size = 0;
  constructor(private readonly make: (n: number) => T) {
    this.data = make(1024);
  }
  push(v: number): void {
    if (this.size === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = v;
  }
}
const ints = () => new Column((n) => new Int32Array(n));
const doubles = () => new Column((n) => new Float64Array(n));

/** Event keys compare as (time, sub-ms, file, line): the report's delegation order. */
export interface OrderKey {
  ms: number;
  subNs: number;
  fileIndex: number;
  line: number;
}

export interface Component {
  /** Record indices of its events. */
  records: Int32Array;
  /** No delegation of this component orders before this key. */
  lowerBound: OrderKey;
}

/** Preview hashes → the components holding a completion with that preview. */
export interface PreviewTable {
  hashes: Float64Array;
  components: Int32Array;
  /** One bit per (hash mod 2^20): most lookups miss and stop here, before the binary search. */
  bits: Uint8Array;
}

const BITS = 1 << 20;

/** Every chunk merged: records, the union-find over linked ids, and the preview hashes. */
export class EventIndex {
  readonly fileIndex = ints();
  readonly offset = doubles();
  readonly length = ints();
  readonly line = ints();
  /** Union-find node of each record's first id. */
  private readonly node = ints();
  readonly kept: JournalEvent[] = [];
  /** Events counted by the scan (session_end included), as ScanStats reports them. */
  eventCount = 0;

  private readonly ids = new NumberTable(4096);
  private readonly parent = ints();
  private readonly minMs = doubles();
  private readonly minSub = ints();
  private readonly minFile = ints();
  private readonly minLine = ints();
  private readonly previewNode = ints();
  private readonly previewFull = doubles();
  private readonly previewPrefix = doubles();

  add(c: IndexChunk): void {
    this.eventCount += c.count + c.uncounted;
    const keptBase = this.kept.length;
    for (const e of c.kept) this.kept.push(e);
    const first = this.fileIndex.size;
    for (let i = 0; i < c.count; i++) {
      const off = c.offset[i];
      this.fileIndex.push(c.fileIndex[i]);
      this.offset.push(off < 0 ? off - keptBase : off);
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

  /** Components in the order their first delegation can appear, and the preview tables. */
  components(): { components: Component[]; componentOf: (recordIndex: number) => number; full: PreviewTable; prefix: PreviewTable } {
    const n = this.fileIndex.size;
    const compOfRoot = new Map<number, number>();
    const compOfRecord = new Int32Array(n);
    const counts: number[] = [];
    const roots: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = this.find(this.node.data[i]);
      let c = compOfRoot.get(r);
      if (c === undefined) {
        c = roots.length;
        compOfRoot.set(r, c);
        roots.push(r);
        counts.push(0);
      }
      compOfRecord[i] = c;
      counts[c]++;
    }
    const lists = counts.map((k) => new Int32Array(k));
    const fill = new Int32Array(counts.length);
    for (let i = 0; i < n; i++) lists[compOfRecord[i]][fill[compOfRecord[i]]++] = i;
    const order = roots.map((_, c) => c).sort((a, b) => compareKeys(this.bound(roots[a]), this.bound(roots[b])));
    const rank = new Int32Array(roots.length);
    order.forEach((c, k) => (rank[c] = k));
    const components = order.map((c) => ({ records: lists[c], lowerBound: this.bound(roots[c]) }));
    const table = (hashes: Float64Array): PreviewTable => {
      const idx: number[] = [];
      for (let j = 0; j < hashes.length; j++) if (!Number.isNaN(hashes[j])) idx.push(j);
      idx.sort((a, b) => hashes[a] - hashes[b]);
      const bits = new Uint8Array(BITS / 8);
      for (const j of idx) bits[(hashes[j] % BITS) >>> 3] |= 1 << (hashes[j] & 7);
      return {
        bits,
        hashes: Float64Array.from(idx, (j) => hashes[j]),
        components: Int32Array.from(idx, (j) => rank[compOfRoot.get(this.find(this.previewNode.data[j]))!]),
      };
    };
    return {
      components,
      componentOf: (i) => rank[compOfRecord[i]],
      full: table(this.previewFull.data.subarray(0, this.previewFull.size)),
      prefix: table(this.previewPrefix.data.subarray(0, this.previewPrefix.size)),
    };
  }

  private bound(root: number): OrderKey {
    return { ms: this.minMs.data[root], subNs: this.minSub.data[root], fileIndex: this.minFile.data[root], line: this.minLine.data[root] };
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
