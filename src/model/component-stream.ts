// The streamed `--all`: delegations come out in report order, one group of linked delegations
// (a component of the event index) in memory at a time. Each component's lines are read again
// from their journals, parsed and grouped exactly as a whole scan would group them; only the
// components whose first delegation is due are held.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { stopOnDescriptorExhaustion, type JournalFile } from '../journal/discover.js';
import { compareKeys, componentsWithHash, eventCheck, type ComponentTable, type EventIndex, type IndexView, type OrderKey, type PreviewTable } from '../journal/event-index.js';
import { hash53, windowHashes } from '../journal/id-hash.js';
import { normalizeLine } from '../journal/normalize.js';
import { describeError, OPEN_FLAGS } from '../journal/scan-file.js';
import type { JournalEvent } from '../journal/types.js';
import { MIN_SUBSTRING } from '../journal/preview.js';
import { forgetScan, localPreviewsIn, registerForeignPreviews, type PreviewRef } from './cross-index.js';
import type { Delegation } from './delegation.js';
import { groupDelegations } from './group.js';
import { delegationOrder, placeOf } from './target.js';

export interface ReportItem {
  delegation: Delegation;
  /** The delegations its checks compare it with. */
  all: Delegation[];
}

/** A streamed item, with the component (of the event index) its delegations came from. */
export interface ComponentItem extends ReportItem {
  component: number;
}

/** Lines closer than this are read with one call (one copy of the gap costs less than a call). */
const MAX_GAP = 16 * 1024;
/**
 * Open journals kept between components. Components come in time order, so every session active
 * at that time is read in turn: on the 4 GiB corpus, 32 descriptors meant an open and a close
 * per component (0.4 s). Node raises the descriptor limit to the hard limit at start-up.
 */
const OPEN_FILES = 256;

/** Reads index records' lines back from their files; counts lines that changed since the scan. */
class RecordReader {
  // Large enough for any joined read in practice: a buffer that grows frees a large block (see PagedColumn).
  private buf = Buffer.allocUnsafe(1 << 20);
  /** Lines that no longer parse into the event the scan saw (the file was rewritten, or is gone). */
  changed = 0;
  /** Files gone since the scan (deleted or moved: a session archived, say), by display name. */
  readonly gone = new Map<number, string>();
  /** Files that could not be opened again for another reason: `display: reason`. */
  readonly unopenable = new Map<number, string>();
  /** fileIndex → descriptor, least recently used first (open and close cost ~25 µs each here). */
  private readonly open = new Map<number, number>();

  constructor(
    private readonly index: IndexView,
    private readonly files: readonly Pick<JournalFile, 'path' | 'display'>[],
    /** Files whose lines are no longer read back (follow mode reads a rewritten journal again, from its start). */
    private readonly skipFiles: ReadonlySet<number> = new Set(),
  ) {}

  /** The events of `records`, but for those in a file of `skipFiles`. */
  events(records: Int32Array): JournalEvent[] {
    const { index, skipFiles } = this;
    const out: JournalEvent[] = [];
    // The component's plain records: file, offset and length, read once from the paged columns.
    const rec: number[] = [];
    const fileOf: number[] = [];
    const off: number[] = [];
    const len: number[] = [];
    for (const r of records) {
      if (skipFiles.size && skipFiles.has(index.fileIndex.get(r))) continue;
      const o = index.offset.get(r);
      if (o < 0) {
        const line = index.archived(r); // an archived line, copied at scan time
        const e = this.parse(r, line, 0, line.length);
        if (e) out.push(e);
        else this.changed++;
        continue;
      }
      rec.push(r);
      fileOf.push(index.fileIndex.get(r));
      off.push(o);
      len.push(index.length.get(r));
    }
    const at = rec.map((_, k) => k).sort((a, b) => fileOf[a] - fileOf[b] || off[a] - off[b]);
    let i = 0;
    while (i < at.length) {
      const file = fileOf[at[i]];
      const fd = this.descriptor(file);
      if (fd === null) {
        for (; i < at.length && fileOf[at[i]] === file; i++) this.changed++;
        continue;
      }
      while (i < at.length && fileOf[at[i]] === file) {
        // One read for a run of nearby lines.
        let j = i + 1;
        while (j < at.length && fileOf[at[j]] === file && off[at[j]] - (off[at[j - 1]] + len[at[j - 1]]) <= MAX_GAP) j++;
        const start = off[at[i]];
        const span = off[at[j - 1]] + len[at[j - 1]] - start;
        if (this.buf.length < span) this.buf = Buffer.allocUnsafe(Math.max(span, this.buf.length * 2));
        const got = readSync(fd, this.buf, 0, span, start);
        for (let k = i; k < j; k++) {
          const e = this.parse(rec[at[k]], this.buf, off[at[k]] - start, got);
          if (e) out.push(e);
          else this.changed++;
        }
        i = j;
      }
    }
    return out;
  }

  private descriptor(file: number): number | null {
    if (this.gone.has(file) || this.unopenable.has(file)) return null; // tried once: not once per line
    const cached = this.open.get(file);
    if (cached !== undefined) {
      this.open.delete(file);
      this.open.set(file, cached);
      return cached;
    }
    let fd: number;
    try {
      fd = this.openFreeing(this.files[file].path);
    } catch (err) {
      stopOnDescriptorExhaustion(err); // not a rewritten journal: its lines would be dropped as changed
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') this.gone.set(file, this.files[file].display);
      else this.unopenable.set(file, `${this.files[file].display}: ${describeError(err)}`);
      return null;
    }
    if (this.open.size >= OPEN_FILES) {
      const [oldFile, oldFd] = this.open.entries().next().value!;
      this.open.delete(oldFile);
      closeSync(oldFd);
    }
    this.open.set(file, fd);
    return fd;
  }

  close(): void {
    for (const fd of this.open.values()) closeSync(fd);
    this.open.clear();
  }

  /** Opens a journal; out of descriptors (a low `ulimit -n`), the ones kept open here go first. */
  private openFreeing(p: string): number {
    let fd: number;
    try {
      fd = openSync(p, OPEN_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'EMFILE' && code !== 'ENFILE') || this.open.size === 0) throw err;
      this.close();
      fd = openSync(p, OPEN_FLAGS);
    }
    // Not blocking, and a regular file only: a journal swapped for a FIFO since the scan would
    // otherwise wait for a writer, with the event loop (and Ctrl-C) stuck behind it.
    let regular = false;
    try {
      regular = fstatSync(fd).isFile();
    } finally {
      if (!regular) closeSync(fd);
    }
    if (!regular) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    return fd;
  }

  /** The event of record r from its line at buf[s, s + length), when `got` bytes are valid. */
  private parse(r: number, buf: Buffer, s: number, got: number): JournalEvent | null {
    const { index } = this;
    const end = s + index.length.get(r);
    if (end > got) return null;
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8', s, end));
    } catch {
      return null;
    }
    const fileIndex = index.fileIndex.get(r);
    const result = normalizeLine(value, { file: this.files[fileIndex].display, line: index.line.get(r), fileIndex });
    if (result.kind !== 'event') return null;
    // Another event of the same length (the journal rewritten since the scan) is not this record's.
    if (eventCheck(result.event) !== index.check.get(r)) return null;
    if (!result.event.time) result.event.after = index.after(r); // its place, as the scan saw the file
    return result.event;
  }
}

/** The key delegationOrder sorts on: the start, or the first event. */
export function orderKey(d: Delegation): OrderKey {
  const e = d.started ?? d.events[0];
  const t = e ? placeOf(e) : null;
  return { ms: t ? t.ms : Number.NEGATIVE_INFINITY, subNs: t?.subNs ?? 0, fileIndex: e?.fileIndex ?? 0, line: e?.line ?? 0 };
}

/** Everything needed to rebuild components: the index's columns and its component and preview tables. */
export interface ComponentPlan {
  view: IndexView;
  components: ComponentTable;
  full: PreviewTable;
  prefix: PreviewTable;
}

/**
 * Rebuilds one component's delegations from its lines, exactly as a whole scan groups them, and
 * lets their checks search other components' previews through the plan's hash tables.
 */
export class ComponentMaterializer {
  private readonly reader: RecordReader;
  // Components found by a preview lookup, kept for the next lookups (they are few: stale artifacts).
  private readonly foreignCache = new Map<number, Delegation[]>();

  constructor(
    private readonly plan: ComponentPlan,
    files: readonly Pick<JournalFile, 'path' | 'display'>[],
    skipFiles?: ReadonlySet<number>,
  ) {
    this.reader = new RecordReader(plan.view, files, skipFiles);
  }

  get count(): number {
    return this.plan.components.count;
  }

  lowerBound(c: number): OrderKey {
    return this.plan.components.lowerBound(c);
  }

  /** Lines that could not be read back as the event the scan saw. */
  get changedLines(): number {
    return this.reader.changed;
  }

  /** The Limits line for lines that could not be read back (and the journals that could not be opened again), or null. */
  get rereadNote(): string | null {
    const { changed, gone, unopenable } = this.reader;
    return changed ? rereadNote(changed, [...gone.values()], [...unopenable.values()]) : null;
  }

  /** Component c's delegations in delegationOrder; the array is their `all`. */
  materialize(c: number): Delegation[] {
    const all = groupDelegations(this.eventsOf(c)).sort(delegationOrder);
    registerForeignPreviews(all, (texts) => this.previewsOutside(texts, (other) => other === c));
    return all;
  }

  /** Component c's events, read again from their lines. */
  eventsOf(c: number): JournalEvent[] {
    return this.reader.events(this.plan.components.recordsOf(c));
  }

  /** The first journal that could not be opened again since forgetFailedOpens (`display: reason`), or null. */
  get failedOpen(): string | null {
    const [unopenable] = this.reader.unopenable.values();
    if (unopenable !== undefined) return unopenable;
    const [gone] = this.reader.gone.values();
    return gone === undefined ? null : `${gone}: no such file`;
  }

  /** Tries journals that could not be opened again anew at their next read (follow mode: permissions come back). */
  forgetFailedOpens(): void {
    this.reader.gone.clear();
    this.reader.unopenable.clear();
  }

  /** Forgets the components kept for preview lookups (their lines changed). */
  forgetCached(): void {
    this.foreignCache.clear();
  }

  /** Output previews matching `texts` in the components `skip` does not exclude. */
  previewsOutside(texts: readonly string[], skip: (component: number) => boolean): PreviewRef[] {
    const found: PreviewRef[] = [];
    for (const [c, mine] of componentsMatching(this.plan.full, this.plan.prefix, texts)) {
      if (skip(c)) continue;
      let all = this.foreignCache.get(c);
      if (!all) {
        all = groupDelegations(this.eventsOf(c));
        if (this.foreignCache.size >= 64) this.foreignCache.delete(this.foreignCache.keys().next().value!);
        this.foreignCache.set(c, all);
      }
      // Only the texts whose hashes led to c can hold one of its previews: an aggregate of
      // thousands of segments, each another component's preview, is one lookup per segment,
      // not every segment per component. (Not push(...): there can be 100,000s.)
      for (const ref of localPreviewsIn(all, mine)) found.push(ref);
    }
    return found;
  }

  close(): void {
    this.reader.close();
  }
}

export interface ComponentStream {
  items: Iterable<ReportItem>;
  /** The Limits line for lines that could not be read back as the scan saw them, or null (after items is consumed). */
  rereadNote: () => string | null;
  /** Components read so far, of all of them: how far `items` has got. */
  progress: () => { done: number; total: number };
}

/**
 * Delegations of the whole index in delegationOrder, each with the delegations of its component
 * (every delegation it shares an id with, nested ones included), in this thread. A component's
 * lookups are dropped once its last delegation has been taken: check each one when it comes.
 */
export function streamDelegations(index: EventIndex, files: readonly Pick<JournalFile, 'path' | 'display'>[]): ComponentStream {
  return streamPlan(planOf(index), files);
}

/** The plan of a whole index (its components can be built once: the union-find is then let go). */
export const planOf = (index: EventIndex): ComponentPlan => ({ view: index.view(), ...index.components() });

/** streamDelegations from a plan: each call reads the components again. */
export function streamPlan(plan: ComponentPlan, files: readonly Pick<JournalFile, 'path' | 'display'>[]): ComponentStream {
  const m = new ComponentMaterializer(plan, files);
  let materialized = 0;
  function* items(): Generator<ReportItem> {
    // Closed however the caller stops: a `break` out of the loop runs the finally too.
    try {
      yield* mergeComponents(m, (c) => (materialized = c + 1));
    } finally {
      m.close();
    }
  }
  return { items: items(), rereadNote: () => m.rereadNote, progress: () => ({ done: materialized, total: m.count }) };
}

/** `n` lines not read back as the scan saw them; `gone`: journals deleted or moved since; `unopenable`: `display: reason`. */
function rereadNote(n: number, gone: readonly string[], unopenable: readonly string[]): string {
  const lines = `${n} delegation ${n === 1 ? 'line' : 'lines'}`;
  const more = (list: readonly string[]) => (list.length > 1 ? ` and ${list.length - 1} more ${list.length === 2 ? 'journal' : 'journals'}` : '');
  const why =
    gone.length > 0
      ? `could not be read again after the scan: ${gone[0]}${more(gone)} ${gone.length === 1 ? 'was' : 'were'} deleted or moved meanwhile (a session archived to .jsonl.gz, say)`
      : unopenable.length > 0
        ? `could not be read again after the scan (${unopenable[0]}${more(unopenable)})`
        : 'changed on disk between the scan and the report (a journal was rewritten or truncated)';
  return `${lines} ${why}; those events are left out: run again.`;
}

/**
 * Every delegation of m's components in delegationOrder, each with its component's delegations.
 * A k-way merge: a delegation is due once no unread component can hold an earlier one. A
 * component's lookups are dropped once its last delegation has been taken.
 */
export function* mergeComponents(m: ComponentMaterializer, onMaterialized: (c: number) => void = () => {}): Generator<ComponentItem> {
  let pending: ComponentItem[] = [];
  let head = 0;
  // Delegations of each component not yet reported: at 0 its caches are dropped.
  const left = new Map<Delegation[], number>();
  for (let c = 0; c <= m.count; c++) {
    const bound = c < m.count ? m.lowerBound(c) : null;
    while (head < pending.length && (!bound || compareKeys(orderKey(pending[head].delegation), bound) < 0)) {
      const item = pending[head++];
      yield item;
      const n = left.get(item.all)! - 1;
      if (n > 0) left.set(item.all, n);
      else {
        left.delete(item.all);
        forgetScan(item.all);
      }
    }
    if (!bound) break;
    const all = m.materialize(c);
    onMaterialized(c);
    if (all.length) left.set(all, all.length);
    else forgetScan(all);
    pending = pending.slice(head).concat(all.map((delegation) => ({ delegation, all, component: c })));
    head = 0;
    pending.sort((a, b) => delegationOrder(a.delegation, b.delegation));
  }
}

/**
 * Components holding a preview equal to a text, or (40+ units) starting at some position of one,
 * each with those texts (in `texts` order; a component comes in the order a text first led to it).
 */
function componentsMatching(full: PreviewTable, prefix: PreviewTable, texts: readonly string[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const hit = new Set<number>();
  for (const text of texts) {
    hit.clear();
    componentsWithHash(full, hash53(text), hit);
    if (prefix.hashes.length) windowHashes(text, MIN_SUBSTRING, (h) => componentsWithHash(prefix, h, hit));
    for (const c of hit) {
      const mine = out.get(c);
      if (mine) mine.push(text);
      else out.set(c, [text]);
    }
  }
  return out;
}
