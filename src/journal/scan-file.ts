import { createRequire } from 'node:module';
import { closeSync, constants as fsConstants, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { JunkTail } from './junk-tail.js';
import { normalizeLine, TYPE_ALIASES } from './normalize.js';
import { compareInstants, parseTimestamp } from './time.js';
import { stopOnDescriptorExhaustion } from './discover.js';
import { DamagedArchiveEnd, inflateArchive, startsLikeGzip } from './archive.js';
import type { FileStats, Instant, JournalEvent } from './types.js';
import { MANY_DUPLICATE_IDS } from './types.js';

export interface ScanFileInput {
  /** Path to open ('-' is not handled here; see scanStream). */
  path: string;
  /** Path printed in evidence. */
  display: string;
  fileIndex: number;
  /**
   * Shared by a `<sid>.jsonl` / `<sid>.jsonl.gz` pair so lines present in both are read once:
   * a candidate line's digest → the file (fileIndex) it was first read from. A line repeated
   * within one file is two events, as in a file without a sibling. Its size follows the
   * delegation events.
   */
  seen?: Map<string, number>;
  /**
   * Receives each event instead of `events` (the streamed `--all` index), with its line's bytes
   * (`buf[start, end)`, valid during the call only) and their offset in the file, or −1 when the
   * line cannot be read again by offset (gzip, stdin).
   */
  sink?: EventSink;
  /**
   * Stop reading once more than this many events are kept: the caller will not hold them
   * (`last` then indexes the tree instead), so one very large journal is not read into memory
   * whole. The file's events and counts are then those of its first part only.
   */
  maxEvents?: number;
  /** Told the bytes of each piece read (after the pre-filter took it), for progress within a large file. */
  onRead?: (bytes: number) => void;
}

export type EventSink = (event: JournalEvent, buf: Buffer, start: number, end: number, offset: number) => void;

export interface ScanFileOutput {
  events: JournalEvent[];
  stats: FileStats;
}

/**
 * Reads of this size stay in the CPU cache between the copy from the page cache and the scan.
 * Larger reads cost more: on the 2-core VM (kernel 6.18, read-ahead 128 KiB) reading 1 GiB from
 * the page cache took 0.12-0.15 s in 64 or 128 KiB reads and 0.5-0.6 s in 256 KiB ones.
 */
const READ_SIZE = 1 << 16;
const QUOTE = 0x22;
const NEWLINE = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;
// `{"type":"` as bytes: engine lines always start with it (serde writes `type` first, compact).
const TYPE_PREFIX = Buffer.from('{"type":"');
const PREFIX_LEN = TYPE_PREFIX.length;
// Fallback needles for lines whose `type` is not the first key: cheap byte searches, no decode.
const FALLBACK_NEEDLES = ['elegation', 'ync_marker', 'yncMarker', 'ession_end', 'essionEnd'].map((s) => Buffer.from(s));
/** The last non-blank line's `ts` is looked for in its first bytes only. */
const LAST_LINE_HEAD = 256;

/** The `ts` a journal's last line starts with (its head), raw and parsed. */
function lastTsOf(head: string): Pick<FileStats, 'lastTs' | 'lastTime'> {
  const m = /"ts"\s*:\s*"([^"]{1,64})"/.exec(head);
  return { lastTs: m ? m[1] : null, lastTime: m ? parseTimestamp(m[1]) : null };
}
/**
 * A line still without its newline past this size, that cannot be a kept event by its first
 * bytes (an `llm_round` holding a transcript, say), is no longer collected: only its head and
 * its last bytes are kept until the newline, so memory does not follow the longest line.
 */
export const SKIP_LONG_LINE_AFTER = 1 << 20;
/** Parts of a damaged line that may fail to parse before the rest are no longer tried (salvage). */
const MAX_SALVAGE_FAILURES = 1000;
const SPACE = 0x20;
const TAB = 0x09;

function hasTypePrefix(buf: Buffer, start: number, end: number): boolean {
  if (end - start <= PREFIX_LEN) return false;
  for (let i = 0; i < PREFIX_LEN; i++) if (buf[start + i] !== TYPE_PREFIX[i]) return false;
  return true;
}

const BACKSLASH = 0x5c;

/**
 * Every kept type (delegation_*, sync_marker, session_end, and their PascalCase) starts with d, D,
 * s or S, or with an escape (`\u0064elegation_started` is valid JSON for the same name). A `{`
 * there is a torn write (`{"type":"` cut short, then a whole line): looked at, to recover the line.
 */
const canStartKeptType = (c: number): boolean => c === 0x64 || c === 0x44 || c === 0x73 || c === 0x53 || c === BACKSLASH || c === OPEN_BRACE;

/** `{"type":"<name>` where the name cannot be a kept type. */
function isOtherTypeLine(buf: Buffer, start: number): boolean {
  return hasTypePrefix(buf, start, start + PREFIX_LEN + 1) && !canStartKeptType(buf[start + PREFIX_LEN]);
}

/**
 * The type name starting at `nameStart` (right after `{"type":"`), read in its first 40 bytes:
 * a kept type, another one, an escaped name (JSON.parse and normalize decide), or none there.
 */
function typeNameKind(buf: Buffer, nameStart: number, end: number): 'kept' | 'other' | 'escaped' | 'unknown' {
  const limit = Math.min(end, nameStart + 40);
  for (let i = nameStart; i < limit; i++) {
    if (buf[i] === QUOTE) return TYPE_ALIASES.has(buf.toString('latin1', nameStart, i)) ? 'kept' : 'other';
    // An escape: JSON.parse decides. A `{`: a name cut short by a torn write, a whole line after it.
    if (buf[i] === BACKSLASH || buf[i] === OPEN_BRACE) return 'escaped';
  }
  return 'unknown';
}

/**
 * A long line's head `{"type":"<name>"` (after a BOM on a file's first line) whose whole name is
 * there and is no kept type: session_start, stall_detected… as well as llm_round. Its line can be
 * skipped, not collected (a name with an escape, or a line whose `type` is not first, is kept).
 */
function isOtherTypeHead(head: Buffer, firstLine: boolean): boolean {
  const from = firstLine && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return hasTypePrefix(head, from, head.length) && typeNameKind(head, from + PREFIX_LEN, head.length) === 'other';
}

/**
 * Decides from bytes alone whether a line can be an event we keep. Engine lines start with
 * `{"type":"<name>"`; every kept name starts with d, D, s or S, so the common lines
 * (llm_round, turn, transcript_item, trace_span) are rejected after ten byte comparisons.
 */
export function isCandidateLine(buf: Buffer, start: number, end: number): boolean {
  if (hasTypePrefix(buf, start, end)) {
    const nameStart = start + PREFIX_LEN;
    if (!canStartKeptType(buf[nameStart])) return false;
    const kind = typeNameKind(buf, nameStart, end);
    return kind === 'kept' || kind === 'escaped';
  }
  const line = buf.subarray(start, end);
  return FALLBACK_NEEDLES.some((n) => line.indexOf(n) !== -1);
}

// Modules some scans need are required on first use (not import(): the CLI bundle is compiled by
// vm.Script). node:crypto is loaded on the first `<sid>.jsonl` / `.jsonl.gz` pair: most trees
// have none, and every command would pay for loading it.
const requireHere = createRequire(import.meta.url);
const zlib = () => requireHere('node:zlib') as typeof import('node:zlib');
let crypto: typeof import('node:crypto') | undefined;
const sha1 = () => (crypto ??= requireHere('node:crypto') as typeof import('node:crypto')).createHash('sha1');

export function emptyStats(display: string, fileIndex: number): FileStats {
  return {
    file: display,
    fileIndex,
    bytes: 0,
    lines: 0,
    candidateLines: 0,
    malformedLines: 0,
    missingFieldLines: 0,
    badTimestampLines: 0,
    partialLines: 0,
    oversizedLines: 0,
    duplicateLines: 0,
    duplicateIds: [],
    lastLine: 0,
    lastWholeLine: 0,
    note: null,
    newestEventTime: null,
    newestEventLine: 0,
    lastTs: null,
    lastTime: null,
    lastWholeTime: null,
    mtimeMs: 0,
    error: null,
  };
}

function hasNonBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== CR) return true;
  }
  return false;
}

/**
 * Turns a byte stream into events and counts, one chunk at a time. Chunks may be reused by the
 * caller after push() returns: nothing here keeps a reference to them. A line without its
 * newline waits in `carry` until the newline arrives, or until finish() calls it partial.
 */
export class LineScanner {
  readonly events: JournalEvent[] = [];
  private lineNo: number;
  private carry: Buffer[] = [];
  private carryBytes = 0;
  // The last non-blank line seen in the current chunk, copied out at the end of push().
  private lastBuf: Buffer | null = null;
  private lastStart = 0;
  private lastEnd = 0;
  private lastHead: string | null = null;
  /** Bytes of input before the current chunk. */
  private offsetBase = 0;
  /** Byte offset in the input of index 0 of the buffer line() is looking at. */
  private lineBase = 0;
  /** Byte offset of the first carried byte. */
  private carryStart = 0;
  /** Plain files can be re-read by offset; archives and streams cannot. */
  private readonly rereadable: boolean;
  /** The carried line is a long one that cannot be kept (SKIP_LONG_LINE_AFTER): its bytes are only counted. */
  private skipping = false;
  /** Its first LAST_LINE_HEAD bytes, as text (for the file's last `ts`). */
  private skippedHead = '';
  /** Its last two bytes other than space and tab (−1: none yet), and whether its very last byte is a CR: enough to tell a cut-short line. */
  private skippedLast = -1;
  private skippedBeforeLast = -1;
  private skippedEndsWithCR = false;
  /** When the skipped line is damaged bytes, not `{…}`: its end, which may hold events appended after the damage. */
  private junkTail: JunkTail | null = null;
  /** The time of the last timed event read from this file (untimed ones are placed after it). */
  private lastTime: Instant | null = null;
  /** Where events go instead of `events` (an index builder), until detachSink(). */
  private sink: EventSink | undefined;

  constructor(
    readonly input: Omit<ScanFileInput, 'path'>,
    readonly stats: FileStats = emptyStats(input.display, input.fileIndex),
    /** Lines already consumed (follow mode resumes a file where it stopped). */
    startLine = 0,
    { rereadable = false }: { rereadable?: boolean } = {},
  ) {
    this.lineNo = startLine;
    this.rereadable = rereadable;
    this.sink = input.sink;
  }

  /** From now on events are kept in `events` (follow mode: the replay went to an index, what comes next is live). */
  detachSink(): void {
    this.sink = undefined;
  }

  /** Bytes received but not yet consumed because their line has no newline yet. */
  get pendingBytes(): number {
    return this.carryBytes;
  }

  /**
   * Whether finish() would now count a partial last line: bytes after the last newline that are
   * not blanks only (nor a BOM alone), as line() counts them. Follow mode waits for the newline
   * instead of finishing, and asks this for a stale report.
   */
  get endsInPartialLine(): boolean {
    if (this.skipping) return true;
    let skip = 0;
    if (this.lineNo === 0 && this.carryBytes >= 3) {
      const head = Buffer.concat(this.carry, 3);
      if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) skip = 3; // UTF-8 BOM
    }
    for (const part of this.carry) {
      const from = Math.min(skip, part.length);
      skip -= from;
      if (hasNonBlank(part, from, part.length)) return true;
    }
    return false;
  }

  /**
   * The counts finish() would give now, without finishing: a torn last line counted partial and
   * as the newest line (its number, and the `ts` at its head). Follow mode waits for the newline;
   * a stale report reads the journal as the plain command does, so an archive of it reads the same.
   */
  statsAsFinished(): FileStats {
    if (!this.endsInPartialLine) return this.stats;
    // Its head only: follow mode asks at every check, and a carried line can be near SKIP_LONG_LINE_AFTER.
    const head = this.skipping ? this.skippedHead : Buffer.concat(this.carry, Math.min(this.carryBytes, LAST_LINE_HEAD)).toString('utf8');
    return { ...this.stats, partialLines: this.stats.partialLines + 1, lastLine: this.lineNo + 1, ...lastTsOf(head) };
  }

  get linesConsumed(): number {
    return this.lineNo;
  }

  push(chunk: Buffer): void {
    const base = this.offsetBase;
    this.offsetBase += chunk.length;
    this.stats.bytes += chunk.length;
    let pos = 0;
    if (this.carryBytes > 0) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) {
        this.keep(chunk, 0, base); // a very long line: collect its parts, join once at its newline
        return;
      }
      if (this.skipping) {
        this.noteSkipped(chunk, 0, nl);
        this.junkTail?.add(chunk, 0, nl, base);
        this.endSkipped(false);
      } else {
        this.carry.push(chunk.subarray(0, nl));
        const joined = Buffer.concat(this.carry, this.carryBytes + nl);
        this.carry = [];
        this.carryBytes = 0;
        this.lineBase = this.carryStart;
        this.line(joined, 0, joined.length, false);
      }
      pos = nl + 1;
    }
    this.pushLines(chunk, pos, base);
  }

  /** The lines of `chunk` from `pos` (a line start) on; a remainder without newline is carried. */
  private pushLines(chunk: Buffer, pos: number, base: number): void {
    this.lineBase = base;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, pos);
      if (nl === -1) break;
      if (this.lineNo > 0 && nl - pos > PREFIX_LEN + 1 && isOtherTypeLine(chunk, pos)) {
        // The bulk of a journal (llm_round, turn, transcript_item…): only counted, nothing else.
        const end = chunk[nl - 1] === CR ? nl - 1 : nl;
        this.stats.lastLine = this.stats.lastWholeLine = ++this.lineNo;
        this.lastBuf = chunk;
        this.lastStart = pos;
        this.lastEnd = end;
        if (!looksLikeObject(chunk, pos, end)) this.stats.malformedLines++; // cut short by a crash
      } else {
        this.line(chunk, pos, nl, false);
      }
      pos = nl + 1;
    }
    if (pos < chunk.length) this.keep(chunk, pos, base);
    this.settleChunk();
  }

  /** End of input: an unterminated remainder is a partial last line. */
  finish(): void {
    this.settleChunk(); // the last whole line's time, before a partial line takes its place
    if (this.skipping) this.endSkipped(true);
    else if (this.carryBytes > 0) {
      const joined = Buffer.concat(this.carry, this.carryBytes);
      this.carry = [];
      this.carryBytes = 0;
      this.lineBase = this.carryStart;
      this.line(joined, 0, joined.length, true);
    }
    this.settleChunk();
  }

  /** Hands over the events found so far (follow mode consumes them as they come). */
  takeEvents(): JournalEvent[] {
    return this.events.splice(0, this.events.length);
  }

  private keep(chunk: Buffer, from: number, base: number): void {
    if (this.carryBytes === 0) this.carryStart = base + from;
    if (this.skipping) {
      this.noteSkipped(chunk, from, chunk.length);
      this.junkTail?.add(chunk, from, chunk.length, base + from);
      this.carryBytes += chunk.length - from;
      return;
    }
    const part = Buffer.from(chunk.subarray(from)); // a copy: the caller may reuse the chunk
    this.carry.push(part);
    this.carryBytes += part.length;
    // Decided once, as the line crosses the size: its head does not change afterwards.
    if (this.carryBytes >= SKIP_LONG_LINE_AFTER && this.carryBytes - part.length < SKIP_LONG_LINE_AFTER) this.startSkipping();
  }

  /**
   * Stops collecting the carried line when its first bytes say it is not a kept event (as the fast
   * path in push() does), or cannot be JSON at all (zeros, junk): then only its end is kept, from
   * its last `{"type":"` on (JunkTail), for events appended after the damage.
   */
  private startSkipping(): void {
    const head = Buffer.concat(this.carry, Math.min(this.carryBytes, LAST_LINE_HEAD));
    const junk = !startsLikeObject(head, this.lineNo === 0);
    if (!junk && !isOtherTypeHead(head, this.lineNo === 0)) return;
    this.skippedHead = head.toString('utf8');
    this.skippedLast = this.skippedBeforeLast = -1;
    this.skippedEndsWithCR = false;
    this.junkTail = junk ? new JunkTail(TYPE_PREFIX, SKIP_LONG_LINE_AFTER) : null;
    let offset = this.carryStart;
    for (const part of this.carry) {
      this.noteSkipped(part, 0, part.length);
      this.junkTail?.add(part, 0, part.length, offset);
      offset += part.length;
    }
    this.carry = [];
    this.skipping = true;
  }

  /** Notes the end of buf[from, to), the skipped line's newest bytes: its last two that are not a space or a tab. */
  private noteSkipped(buf: Buffer, from: number, to: number): void {
    if (to > from) this.skippedEndsWithCR = buf[to - 1] === CR;
    let found = 0;
    for (let i = to - 1; i >= from && found < 2; i--) {
      const c = buf[i];
      if (c === SPACE || c === TAB) continue;
      // The newest goes last, and what was last before moves back (unless a second new one takes its place).
      if (found === 0) {
        this.skippedBeforeLast = this.skippedLast;
        this.skippedLast = c;
      } else {
        this.skippedBeforeLast = c;
      }
      found++;
    }
  }

  /** The skipped line ends (at its newline, or at the end of input: partial): counted as push() counts a non-candidate line. */
  private endSkipped(partial: boolean): void {
    const stats = this.stats;
    stats.lastLine = ++this.lineNo;
    this.lastBuf = null; // its head stands for it (settleChunk)
    this.lastHead = this.skippedHead;
    if (partial) stats.partialLines++;
    else {
      stats.lastWholeLine = this.lineNo;
      // As looksLikeObject: `{` first (its type prefix said so), `}` last, a CR just before the
      // newline and spaces or tabs aside.
      const last = this.skippedEndsWithCR ? this.skippedBeforeLast : this.skippedLast;
      if (last !== 0x7d || this.junkTail) stats.malformedLines++;
    }
    const tail = this.junkTail?.take();
    this.junkTail = null;
    if (tail) {
      // Events appended after the damage, on this line (counted malformed once, above).
      this.lineBase = tail.start;
      this.salvage(tail.buf, 0, tail.buf.length, partial, true);
    }
    this.skipping = false;
    this.skippedHead = '';
    this.carryBytes = 0;
  }

  private settleChunk(): void {
    if (this.lastBuf) {
      this.lastHead = this.lastBuf.toString('utf8', this.lastStart, Math.min(this.lastEnd, this.lastStart + LAST_LINE_HEAD));
      this.lastBuf = null;
    }
    const stats = this.stats;
    stats.lines = this.lineNo;
    if (this.lastHead !== null) Object.assign(stats, lastTsOf(this.lastHead));
    if (stats.lastLine === stats.lastWholeLine) stats.lastWholeTime = stats.lastTime;
  }

  private line(buf: Buffer, start: number, end: number, partial: boolean): void {
    const lineNo = ++this.lineNo;
    const stats = this.stats;
    if (end > start && buf[end - 1] === CR) end--; // CRLF journals
    if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3; // UTF-8 BOM
    const first = buf[start];
    if (first !== OPEN_BRACE && !hasNonBlank(buf, start, end)) return;
    stats.lastLine = lineNo;
    this.lastBuf = buf;
    this.lastStart = start;
    this.lastEnd = end;
    if (partial) stats.partialLines++;
    else stats.lastWholeLine = lineNo;
    if (!isCandidateLine(buf, start, end)) {
      // Not parsed (that is the pre-filter's point), but a line that is not `{…}` cannot be JSON:
      // garbage, or a line cut short by a crash (robustness fix, see looksLikeObject).
      if (!partial && !looksLikeObject(buf, start, end)) stats.malformedLines++;
      return;
    }
    stats.candidateLines++;
    if (this.repeated(buf, start, end)) return;
    let text: string;
    try {
      text = buf.toString('utf8', start, end);
    } catch {
      // Longer than a JavaScript string can be (≈ 512 MiB): not malformed, unreadable here.
      stats.oversizedLines++;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (!this.salvage(buf, start, end, partial) && !partial) stats.malformedLines++;
      return;
    }
    this.emit(value, buf, start, end);
  }

  /**
   * Whether buf[start, end) was read from the other journal of a `<sid>.jsonl` / `.jsonl.gz` pair
   * already (counted, and left out: the pair's lines are read once).
   */
  private repeated(buf: Buffer, start: number, end: number): boolean {
    const seen = this.input.seen;
    if (!seen) return false;
    const digest = sha1().update(buf.subarray(start, end)).digest('base64');
    const from = seen.get(digest);
    if (from !== undefined && from !== this.input.fileIndex) {
      this.stats.duplicateLines++;
      noteDuplicateId(this.stats.duplicateIds, buf, start, end);
      return true;
    }
    if (from === undefined) seen.set(digest, this.input.fileIndex);
    return false;
  }

  /**
   * A line that is not one JSON object can still hold whole events: after damaged bytes (the
   * zeros a crash leaves before the next append, a write torn short) or two events whose newline
   * was lost. Each `{"type":"` starts one (it cannot occur inside a JSON string, whose quotes are
   * escaped). Each part that parses is read as a line of its own, at this line's number; the line
   * counts as malformed when any part of it does not parse. False when no event was recovered.
   */
  private salvage(buf: Buffer, start: number, end: number, partial: boolean, afterJunk = false): boolean {
    const line = buf.subarray(start, end);
    let at = line.indexOf(TYPE_PREFIX);
    // One part that starts the line is the whole line, which did not parse (the end of a junk
    // line, afterJunk, has not been tried yet).
    if (at === -1 || (at === 0 && !afterJunk && line.indexOf(TYPE_PREFIX, 1) === -1)) return false;
    let damaged = at > 0; // bytes before the first part
    let recovered = false;
    let failed = 0;
    while (at !== -1) {
      const next = line.indexOf(TYPE_PREFIX, at + 1);
      const to = next === -1 ? line.length : next;
      let value: unknown = undefined;
      // Only a part that ends like an object is parsed, and only until so many failed: a line of
      // millions of `{"type":"` would otherwise cost a thrown parse error each (23 µs). Parts
      // that parse are cheap, and the events after damage are at the line's end.
      if (looksLikeObject(line, at, to) && failed < MAX_SALVAGE_FAILURES) {
        try {
          value = JSON.parse(buf.toString('utf8', start + at, start + to));
        } catch {
          damaged = true;
          failed++;
        }
      } else damaged = true;
      // Each part is looked up in the pair's digests on its own: the other journal of a `.jsonl` /
      // `.jsonl.gz` pair may hold the damaged line whole, or only its end (a long line's, JunkTail).
      if (value !== undefined) {
        if (!this.repeated(buf, start + at, start + to)) this.emit(value, buf, start + at, start + to);
        recovered = true;
      }
      at = next;
    }
    if (recovered && damaged && !partial && !afterJunk) this.stats.malformedLines++;
    return recovered;
  }

  /** A parsed line (or part of one, salvage) at buf[start, end): normalized, counted, and kept when it is an event. */
  private emit(value: unknown, buf: Buffer, start: number, end: number): void {
    const stats = this.stats;
    const lineNo = this.lineNo;
    const result = normalizeLine(value, { file: this.input.display, line: lineNo, fileIndex: this.input.fileIndex });
    if (result.kind === 'malformed') stats.malformedLines++;
    else if (result.kind === 'missing-field') stats.missingFieldLines++;
    else if (result.kind === 'event') {
      const e = result.event;
      // An untimed event keeps its place in the file: after the last timed one before it.
      if (e.time) {
        this.lastTime = e.time;
        if (!stats.newestEventTime || compareInstants(e.time, stats.newestEventTime) > 0) {
          stats.newestEventTime = e.time;
          stats.newestEventLine = lineNo;
        }
      } else {
        stats.badTimestampLines++;
        e.after = this.lastTime;
      }
      const sink = this.sink;
      if (sink) sink(result.event, buf, start, end, this.rereadable ? this.lineBase + start : -1);
      else this.events.push(result.event);
    }
  }
}

/** How many delegation ids a file's repeated lines are noted with; past them, MANY_DUPLICATE_IDS. */
export const DUPLICATE_IDS_KEPT = 256;
const DELEGATION_ID_KEY = Buffer.from('"delegation_id":"');

/** The delegation id a repeated line carries, read from its bytes (it is not parsed): so the Limits note goes to that delegation. */
function noteDuplicateId(ids: string[], buf: Buffer, start: number, end: number): void {
  const at = buf.indexOf(DELEGATION_ID_KEY, start);
  if (at < 0 || at >= end) return;
  const from = at + DELEGATION_ID_KEY.length;
  const to = buf.indexOf(0x22, from);
  if (to < 0 || to > end || buf.indexOf(0x5c, from) === to - 1) return; // an escape inside: left out
  const id = buf.toString('utf8', from, to);
  if (ids.includes(id)) return;
  if (ids.length < DUPLICATE_IDS_KEPT) ids.push(id);
  else if (ids[ids.length - 1] !== MANY_DUPLICATE_IDS) ids.push(MANY_DUPLICATE_IDS);
}

/** `{` first, spaces and tabs aside (and a BOM on a file's first line): a line that can be JSON. */
function startsLikeObject(head: Buffer, firstLine: boolean): boolean {
  let i = firstLine && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === SPACE || head[i] === TAB)) i++;
  return i === head.length || head[i] === OPEN_BRACE;
}

/** `{` first and `}` last, blanks aside: O(1) for engine lines, which have no padding. */
function looksLikeObject(buf: Buffer, start: number, end: number): boolean {
  let i = start;
  let j = end - 1;
  while (i < j && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
  while (j > i && (buf[j] === 0x20 || buf[j] === 0x09)) j--;
  return buf[i] === OPEN_BRACE && buf[j] === 0x7d;
}

let readBuffer: Buffer | undefined;

/**
 * Feeds a plain file's bytes from `offset` to its current end (or to `end`) into the scanner,
 * reusing one read buffer per thread (no allocation per chunk). Returns the offset after the
 * last byte. `size`: the file's size from fstat, when known; `maxEvents`, `onRead`: as in
 * ScanFileInput.
 */
export function readPlainInto(
  fd: number,
  scanner: LineScanner,
  offset = 0,
  end = Number.POSITIVE_INFINITY,
  { size = Number.POSITIVE_INFINITY, maxEvents = Number.POSITIVE_INFINITY, onRead, onGzipData }: { size?: number; maxEvents?: number; onRead?: (bytes: number) => void; onGzipData?: () => void } = {},
): number {
  const buf = (readBuffer ??= Buffer.allocUnsafe(READ_SIZE));
  while (offset < end && scanner.events.length <= maxEvents) {
    const want = Math.min(READ_SIZE, end - offset);
    const n = readSync(fd, buf, 0, want, offset);
    if (n <= 0) return offset;
    // gzip's magic bytes where a journal's first line starts with `{`: an archive under a plain name.
    if (offset === 0 && onGzipData && startsLikeGzip(buf, n)) {
      onGzipData();
      return 0;
    }
    offset += n;
    scanner.push(n === READ_SIZE ? buf : buf.subarray(0, n));
    onRead?.(n);
    // A short read that reaches the size fstat gave is the end: no read just to be told so.
    if (n < want && offset >= size) return offset;
  }
  return offset;
}

/** Opening never waits on a FIFO named *.jsonl (fstat then tells it is not a file); 0 where the flag does not exist. */
export const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

export const isGzipPath = (p: string) => p.endsWith('.gz');

/** Whether a journal's first bytes are gzip's (an archive under a plain name); null when it holds fewer than two bytes or cannot be read now. */
export function startsWithGzipMagic(p: string): boolean | null {
  let fd: number;
  try {
    fd = openSync(p, OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const head = Buffer.alloc(2);
    const n = readSync(fd, head, 0, 2, 0);
    return n < 2 ? null : startsLikeGzip(head, n);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Streams one journal (plain or gzip) and returns its delegation-relevant events and counts. */
export async function scanFile(input: ScanFileInput): Promise<ScanFileOutput> {
  const stats = emptyStats(input.display, input.fileIndex);
  const opened = openJournal(input.path, stats);
  if (!opened) return { events: [], stats };
  if (!isGzipPath(input.path)) {
    const plain = scanPlainFile(input, stats, opened);
    if (plain) return plain;
    // gzip data under a plain name (a link to an archive, `.GZ`): read as the archive it is.
  }
  if (opened.size <= SMALL_ARCHIVE_BYTES) {
    const whole = scanSmallArchive(input, stats, opened.fd);
    if (whole) {
      closeSync(opened.fd);
      return whole;
    }
  }
  // The stream closes the descriptor when it ends or fails.
  return scanStream(inflateArchive(input.path, { fd: opened.fd, chunkSize: READ_SIZE }), input, stats);
}

/**
 * Opens a journal without blocking (a FIFO named *.jsonl would wait for a writer) and checks on
 * the open descriptor that it is a regular file: no stat of the path first, and no moment between
 * the check and the open for the file to be swapped. Null, with `stats.error` set, when it cannot
 * be read.
 */
export function openJournal(p: string, stats: FileStats): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = openSync(p, OPEN_FLAGS);
  } catch (err) {
    stopOnDescriptorExhaustion(err);
    // As a stat would tell: a socket cannot be opened, and is no journal either.
    try {
      const st = statSync(p);
      stats.mtimeMs = st.mtimeMs;
      stats.error = st.isFile() ? describeError(err) : 'not a regular file';
    } catch (statErr) {
      // Listed, yet not found: a name that is not UTF-8 was decoded lossily and cannot be opened again.
      const lossy = (statErr as NodeJS.ErrnoException).code === 'ENOENT' && p.includes('\uFFFD');
      stats.error = lossy ? 'its file name is not valid UTF-8, so it cannot be opened by name (rename it to read it)' : describeError(statErr);
    }
    return null;
  }
  try {
    const st = fstatSync(fd);
    stats.mtimeMs = st.mtimeMs;
    if (st.isFile()) return { fd, size: st.size };
    stats.error = 'not a regular file';
  } catch (err) {
    stats.error = describeError(err);
  }
  closeSync(fd);
  return null;
}

/**
 * Archives up to this size are inflated in one call: a read stream and a zlib stream with their
 * buffers cost ≈ 0.4 ms to set up, more than inflating 64 KiB (20,000 archived sessions took 10 s
 * to scan that way, against 2.8 s for the same sessions uncompressed).
 */
export const SMALL_ARCHIVE_BYTES = 64 * 1024;
/** …and inflate to at most this much; a larger one (a gzip bomb) takes the stream, which never holds it whole. */
const SMALL_ARCHIVE_MAX_OUTPUT = 16 * 1024 * 1024;

/** A small archive read and inflated at once; null when that fails (damaged, not gzip, too large): the stream then reads what it can and says why. */
function scanSmallArchive(input: ScanFileInput, stats: FileStats, fd: number): ScanFileOutput | null {
  let text: Buffer;
  try {
    text = zlib().gunzipSync(readFileSync(fd), { maxOutputLength: SMALL_ARCHIVE_MAX_OUTPUT });
  } catch {
    return null;
  }
  const scanner = new LineScanner(input, stats);
  scanner.push(text);
  scanner.finish();
  return { events: scanner.events, stats };
}

/**
 * A plain journal: one open, one fstat and, for a small file, one read (a tree of 20,000 small
 * sessions spent a third of its scan on a stat before the open and a read that found the end).
 */
function scanPlainFile(input: ScanFileInput, stats: FileStats, { fd, size }: { fd: number; size: number }): ScanFileOutput | null {
  const scanner = new LineScanner(input, stats, 0, { rereadable: true });
  let gzip = false;
  try {
    readPlainInto(fd, scanner, 0, Number.POSITIVE_INFINITY, { size, maxEvents: input.maxEvents, onRead: input.onRead, onGzipData: () => (gzip = true) });
  } catch (err) {
    stats.error = describeError(err);
  } finally {
    if (!gzip) closeSync(fd);
  }
  if (gzip) return null; // nothing was pushed: the caller reads it as an archive, from the open descriptor
  scanner.finish();
  return { events: scanner.events, stats };
}

/** The streaming core, shared by archives and standard input. */
export async function scanStream(stream: AsyncIterable<Buffer | string>, input: Omit<ScanFileInput, 'path'>, stats = emptyStats(input.display, input.fileIndex)): Promise<ScanFileOutput> {
  const scanner = new LineScanner(input, stats);
  const maxEvents = input.maxEvents ?? Number.POSITIVE_INFINITY;
  try {
    for await (const chunk of stream) {
      const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      scanner.push(piece);
      input.onRead?.(piece.length);
      if (scanner.events.length > maxEvents) break; // leaving the loop destroys the stream
    }
  } catch (err) {
    noteReadFailure(stats, err);
  }
  scanner.finish();
  return { events: scanner.events, stats };
}

/** What stopped a read: an error, or only a note when every line was read (an archive's damaged end). */
export function noteReadFailure(stats: FileStats, err: unknown): void {
  if (err instanceof DamagedArchiveEnd) stats.note = err.message;
  else stats.error = describeError(err);
}

const CORRUPT_GZIP = 'corrupt gzip data';

/** A read stopped by damaged archive data, not by the file system: what came before it was read (a journal state, as a crash leaves it). */
export const stoppedByDamagedData = (stats: FileStats): boolean => stats.error !== null && stats.error.startsWith(CORRUPT_GZIP);

/** describeError's words for ENOENT: on a listed journal, it was deleted or moved (archived) since the listing. */
export const NO_SUCH_FILE = 'no such file';

/** One short sentence for an I/O or decompression failure (never a stack trace). */
export function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return NO_SUCH_FILE;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'the disk quota is exceeded';
    case 'EIO':
      return 'an input/output error (a failing disk, a lost network mount, or a file that takes no writes)';
    case 'EROFS':
      return 'a read-only file system';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ELOOP':
      return 'a loop of symbolic links';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files (raise ulimit -n)';
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
      return `${CORRUPT_GZIP} (${e.message})`;
    default:
      return e?.message ? String(e.message).split('\n')[0] : String(err);
  }
}
