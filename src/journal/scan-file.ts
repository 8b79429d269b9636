import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { normalizeLine, TYPE_ALIASES } from './normalize.js';
import { parseTimestamp } from './time.js';
import type { FileStats, JournalEvent } from './types.js';

export interface ScanFileInput {
  /** Path to open ('-' is not handled here; see scanStream). */
  path: string;
  /** Path printed in evidence. */
  display: string;
  fileIndex: number;
  /** Shared by a `<sid>.jsonl` / `<sid>.jsonl.gz` pair so lines present in both are read once. */
  seen?: Set<string>;
}

export interface ScanFileOutput {
  events: JournalEvent[];
  stats: FileStats;
}

const CHUNK = 1 << 20;
const TYPE_PREFIX = Buffer.from('{"type":"');
const QUOTE = 0x22;
const NEWLINE = 0x0a;
// Fallback needles for lines whose `type` is not the first key: cheap byte searches, no decode.
const FALLBACK_NEEDLES = ['elegation', 'ync_marker', 'yncMarker', 'ession_end', 'essionEnd'].map((s) => Buffer.from(s));

/**
 * Decides from bytes alone whether a line can be an event we keep. Engine lines start with
 * `{"type":"<name>"`, so the common case is one short comparison and a map lookup.
 */
export function isCandidateLine(buf: Buffer, start: number, end: number): boolean {
  if (end - start > TYPE_PREFIX.length && buf.compare(TYPE_PREFIX, 0, TYPE_PREFIX.length, start, start + TYPE_PREFIX.length) === 0) {
    const nameStart = start + TYPE_PREFIX.length;
    const limit = Math.min(end, nameStart + 40);
    for (let i = nameStart; i < limit; i++) {
      if (buf[i] === QUOTE) return TYPE_ALIASES.has(buf.toString('latin1', nameStart, i));
    }
    return false;
  }
  const line = buf.subarray(start, end);
  return FALLBACK_NEEDLES.some((n) => line.indexOf(n) !== -1);
}

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
    duplicateLines: 0,
    lastLine: 0,
    lastTs: null,
    lastTime: null,
    mtimeMs: 0,
    error: null,
  };
}

/** Streams one journal (plain or gzip) and returns its delegation-relevant events and counts. */
export async function scanFile(input: ScanFileInput): Promise<ScanFileOutput> {
  const stats = emptyStats(input.display, input.fileIndex);
  try {
    const st = await stat(input.path);
    stats.mtimeMs = st.mtimeMs;
    if (!st.isFile()) {
      stats.error = 'not a regular file';
      return { events: [], stats };
    }
  } catch (err) {
    stats.error = describeError(err);
    return { events: [], stats };
  }
  let stream: Readable = createReadStream(input.path, { highWaterMark: CHUNK });
  if (input.path.endsWith('.gz')) stream = stream.pipe(createGunzip());
  return scanStream(stream, input, stats);
}

/** The streaming core, shared by files, archives and standard input. */
export async function scanStream(stream: Readable, input: Omit<ScanFileInput, 'path'>, stats = emptyStats(input.display, input.fileIndex)): Promise<ScanFileOutput> {
  const events: JournalEvent[] = [];
  const lineState = { lastLineText: null as string | null };
  let lineNo = 0;
  let carry: Buffer[] = [];

  const handleLine = (buf: Buffer, start: number, end: number, partial: boolean) => {
    lineNo++;
    if (end > start && buf[end - 1] === 0x0d) end--; // CRLF journals
    if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3; // UTF-8 BOM
    if (!hasNonBlank(buf, start, end)) return;
    stats.lastLine = lineNo;
    if (partial) stats.partialLines++;
    // Keep the last line's ts cheaply: only the bytes near the start are looked at.
    lineState.lastLineText = buf.toString('utf8', start, Math.min(end, start + 256));
    if (!isCandidateLine(buf, start, end)) {
      // Not parsed (that is the point of the pre-filter), but a line that is not `{…}` cannot be JSON.
      if (!partial && !looksLikeObject(buf, start, end)) stats.malformedLines++;
      return;
    }
    stats.candidateLines++;
    const text = buf.toString('utf8', start, end);
    if (input.seen) {
      if (input.seen.has(text)) {
        stats.duplicateLines++;
        return;
      }
      input.seen.add(text);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (!partial) stats.malformedLines++;
      return;
    }
    const result = normalizeLine(value, { file: input.display, line: lineNo, fileIndex: input.fileIndex });
    if (result.kind === 'malformed') stats.malformedLines++;
    else if (result.kind === 'missing-field') stats.missingFieldLines++;
    else if (result.kind === 'event') {
      if (!result.event.time) stats.badTimestampLines++;
      events.push(result.event);
    }
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      stats.bytes += chunk.length;
      let buf = chunk;
      let pos = 0;
      if (carry.length > 0) {
        const nl = chunk.indexOf(NEWLINE);
        if (nl === -1) {
          carry.push(chunk); // a very long line: collect parts, join once at its newline
          continue;
        }
        carry.push(chunk.subarray(0, nl));
        const joined = Buffer.concat(carry);
        carry = [];
        handleLine(joined, 0, joined.length, false);
        pos = nl + 1;
      }
      for (;;) {
        const nl = buf.indexOf(NEWLINE, pos);
        if (nl === -1) break;
        handleLine(buf, pos, nl, false);
        pos = nl + 1;
      }
      if (pos < buf.length) carry.push(buf.subarray(pos));
    }
  } catch (err) {
    stats.error = describeError(err);
  }
  if (carry.length > 0) {
    const joined = Buffer.concat(carry);
    handleLine(joined, 0, joined.length, true);
  }
  stats.lines = lineNo;
  if (lineState.lastLineText) {
    const m = /"ts"\s*:\s*"([^"]{1,64})"/.exec(lineState.lastLineText);
    if (m) {
      stats.lastTs = m[1];
      stats.lastTime = parseTimestamp(m[1]);
    }
  }
  return { events, stats };
}

/** `{` first and `}` last (trailing blanks aside): catches garbage and lines cut short by a crash. */
function looksLikeObject(buf: Buffer, start: number, end: number): boolean {
  let i = start;
  let j = end - 1;
  while (i < j && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
  while (j > i && (buf[j] === 0x20 || buf[j] === 0x09)) j--;
  return buf[i] === 0x7b && buf[j] === 0x7d;
}

function hasNonBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return true;
  }
  return false;
}

/** One short sentence for an I/O or decompression failure (never a stack trace). */
export function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
      return `corrupt gzip data (${e.message})`;
    default:
      return e?.message ? String(e.message).split('\n')[0] : String(err);
  }
}
