/**
 * Inflating a `.jsonl.gz` archive without losing data to a damaged end.
 *
 * zlib's gunzip stream drops the output of its last inflate call when the gzip trailer fails
 * (a bad checksum or length, bytes appended after the data): up to a whole chunk of lines, or a
 * small archive's every line, although the deflate data is intact. `gzip -dc` prints them and
 * warns. So on a data error the archive is inflated again as raw deflate from just after its
 * header, which ignores the trailer, and what the first pass had not yet delivered is delivered;
 * then the trailer is checked by hand and the damage described.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';

const requireHere = createRequire(import.meta.url);
let zlibModule: typeof import('node:zlib') | undefined;
const zlib = () => (zlibModule ??= requireHere('node:zlib') as typeof import('node:zlib'));

/** An archive whose data was all read, though its end is damaged: the message says how. */
export class DamagedArchiveEnd extends Error {
  readonly code = 'ARCHIVE_END';
}

/** `source` inflated, each end of the pipe stopping the other (an archive, or gzip on standard input). */
export function gunzipped(source: Readable, chunkSize?: number): Readable {
  const gunzip = zlib().createGunzip(chunkSize ? { chunkSize } : {});
  source.on('error', (err) => gunzip.destroy(err)); // pipe() does not forward read errors
  gunzip.on('error', () => source.destroy()); // nor close the source when the archive is corrupt
  gunzip.on('close', () => source.destroy()); // nor stop reading it when the reader stops early (maxEvents)
  return source.pipe(gunzip);
}

/**
 * The inflated bytes of the archive at `path`, in pieces. `fd`: already open (the stream closes
 * it). Throws what stopped it: a read or data error, or DamagedArchiveEnd when every byte of the
 * data was delivered and only the trailer or what follows it is wrong.
 */
export async function* inflateArchive(path: string, { fd, chunkSize }: { fd?: number; chunkSize: number }): AsyncGenerator<Buffer> {
  let delivered = 0;
  try {
    const source = createReadStream(path, { fd, start: 0, highWaterMark: chunkSize });
    for await (const piece of gunzipped(source, chunkSize) as AsyncIterable<Buffer>) {
      delivered += piece.length;
      yield piece;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'Z_DATA_ERROR') throw err;
    const recovered = yield* recoverTail(path, delivered, chunkSize);
    throw recovered ?? err;
  }
}

/**
 * Inflates the first gzip member again as raw deflate, yields what lies past `skip` bytes, and
 * returns a DamagedArchiveEnd saying what is wrong after the data; null when that fails too (the
 * data itself is damaged, or it is not gzip), and the first error stands.
 */
async function* recoverTail(path: string, skip: number, chunkSize: number): AsyncGenerator<Buffer, DamagedArchiveEnd | null> {
  const header = readHeader(path);
  if (!header) return null;
  const inflate = zlib().createInflateRaw({ chunkSize });
  const crc32 = (zlib() as { crc32?: (data: Buffer, value?: number) => number }).crc32;
  let seen = 0;
  let crc = 0;
  const source = createReadStream(path, { start: header.length, highWaterMark: chunkSize });
  try {
    for await (const piece of source.pipe(inflate) as AsyncIterable<Buffer>) {
      if (crc32) crc = crc32(piece, crc);
      const from = Math.max(0, skip - seen);
      seen += piece.length;
      if (from < piece.length) yield from === 0 ? piece : piece.subarray(from);
    }
  } catch {
    return null;
  } finally {
    source.destroy(); // pipe() leaves it open when the reader stops early or inflating fails
  }
  if (seen < skip) return null; // it yields less than the first pass did: not the same data
  return describeEnd(path, header.length + inflate.bytesWritten, { size: seen, crc: crc32 ? crc >>> 0 : null });
}

/** What is wrong at `end`, where the first member's deflate data stops: its trailer, then what follows. */
function describeEnd(path: string, end: number, data: { size: number; crc: number | null }): DamagedArchiveEnd | null {
  const after = readAt(path, end, 8 + 2);
  if (after.length < 8) return new DamagedArchiveEnd('the gzip trailer is cut short after the data');
  if (data.crc !== null && after.readUInt32LE(0) !== data.crc) return new DamagedArchiveEnd('the gzip checksum does not match the data (incorrect data check), so lines may be damaged');
  if (after.readUInt32LE(4) !== data.size % 2 ** 32) return new DamagedArchiveEnd('the gzip length check does not match the data (incorrect length check), so lines may be damaged');
  // A sound first member; what follows is neither nothing nor another member (gunzip read on).
  if (after.length === 10 && !(after[8] === 0x1f && after[9] === 0x8b)) return new DamagedArchiveEnd('bytes after the gzip data that are not gzip were ignored');
  return null;
}

/** The gzip header's length (RFC 1952 §2.3), or null when the file does not start with one. */
function readHeader(path: string): { length: number } | null {
  const head = readAt(path, 0, 64 * 1024);
  if (head.length < 10 || head[0] !== 0x1f || head[1] !== 0x8b || head[2] !== 8) return null;
  const flags = head[3];
  let at = 10;
  if (flags & 0x04) at += 2 + (head.length >= at + 2 ? head.readUInt16LE(at) : 0); // FEXTRA
  for (const bit of [0x08, 0x10]) {
    // FNAME, FCOMMENT: zero-terminated
    if (!(flags & bit)) continue;
    const zero = head.indexOf(0, at);
    if (zero === -1) return null;
    at = zero + 1;
  }
  if (flags & 0x02) at += 2; // FHCRC
  return at <= head.length ? { length: at } : null;
}

function readAt(path: string, from: number, n: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, from));
  } catch {
    return Buffer.alloc(0);
  } finally {
    closeSync(fd);
  }
}
