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
 * Inflates the archive again, member by member, as raw deflate after each gzip header; yields
 * what lies past the `skip` bytes already delivered, checks each member's trailer by hand, and
 * returns a DamagedArchiveEnd naming what is wrong around intact data, or ArchiveCutShort when the
 * data stopped early in damaged bytes. Null when the data itself cannot be inflated, or nothing is
 * found wrong (the first error then stands).
 */
async function* recoverTail(path: string, skip: number, chunkSize: number): AsyncGenerator<Buffer, DamagedArchiveEnd | ArchiveCutShort | null> {
  const crc32 = (zlib() as { crc32?: (data: Buffer, value?: number) => number }).crc32;
  const damage = new Set<string>();
  let seen = 0;
  let at = 0;
  let lastLengthOk = true;
  for (let member = 0; ; member++) {
    const header = readHeader(path, at);
    if (!header) {
      if (member === 0) return null; // not gzip at all
      // A length check that does not match, then bytes that are not gzip: the deflate data ended
      // early in damaged bytes (gzip -dc stops there too), and the rest of the archive is lost.
      // (A bad checksum alone, before appended bytes, is damage around data read whole.)
      if (!lastLengthOk) return new ArchiveCutShort(at - 8);
      damage.add('bytes after the gzip data that are not gzip were ignored');
      break;
    }
    const inflate = zlib().createInflateRaw({ chunkSize });
    const source = createReadStream(path, { start: at + header.length, highWaterMark: chunkSize });
    let size = 0;
    let crc = 0;
    try {
      for await (const piece of source.pipe(inflate) as AsyncIterable<Buffer>) {
        if (crc32) crc = crc32(piece, crc);
        size += piece.length;
        const from = Math.max(0, skip - seen);
        seen += piece.length;
        if (from < piece.length) yield from === 0 ? piece : piece.subarray(from);
      }
    } catch {
      return null; // this member's data is damaged: what came before it was delivered
    } finally {
      source.destroy(); // pipe() leaves it open when the reader stops early or inflating fails
    }
    const end = at + header.length + inflate.bytesWritten;
    const trailer = readAt(path, end, 8);
    if (trailer.length < 8) {
      damage.add('the gzip trailer is cut short after the data');
      break;
    }
    const crcOk = !crc32 || trailer.readUInt32LE(0) === crc >>> 0;
    const sizeOk = trailer.readUInt32LE(4) === size % 2 ** 32;
    if (!crcOk) damage.add('a gzip checksum does not match its data (incorrect data check), so lines may be damaged');
    if (!sizeOk) damage.add('a gzip length check does not match its data (incorrect length check), so lines may be damaged');
    lastLengthOk = sizeOk;
    at = end + 8;
    if (readAt(path, at, 1).length === 0) break; // the end of the file
  }
  if (seen < skip || damage.size === 0) return null; // not the data the first pass read, or nothing to explain its error
  return new DamagedArchiveEnd([...damage].join('; '));
}

/** The deflate data stopped early, at damaged bytes: what follows them could not be read. */
export class ArchiveCutShort extends Error {
  readonly code = 'ARCHIVE_CUT';
  constructor(at: number) {
    super(`corrupt gzip data (the deflate data ends early, at byte ${at}, in damaged bytes; the rest of the archive cannot be inflated)`);
  }
}

/** Whether bytes start with gzip's magic number (RFC 1952 §2.3.1), whatever the file is named. */
export const startsLikeGzip = (head: Uint8Array, length = head.length): boolean => length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

/** The length of the gzip header at `at` (RFC 1952 §2.3), or null when none starts there. */
function readHeader(path: string, at: number): { length: number } | null {
  const head = readAt(path, at, 64 * 1024);
  if (head.length < 10 || !startsLikeGzip(head) || head[2] !== 8) return null;
  const flags = head[3];
  let length = 10;
  if (flags & 0x04) length += 2 + (head.length >= length + 2 ? head.readUInt16LE(length) : 0); // FEXTRA
  for (const bit of [0x08, 0x10]) {
    // FNAME, FCOMMENT: zero-terminated
    if (!(flags & bit)) continue;
    const zero = head.indexOf(0, length);
    if (zero === -1) return null;
    length = zero + 1;
  }
  if (flags & 0x02) length += 2; // FHCRC
  return length <= head.length ? { length } : null;
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
