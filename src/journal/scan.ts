import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { gunzipped, inflateArchive, startsLikeGzip } from './archive.js';
import type { JournalFile } from './discover.js';
import { scanFile, scanStream } from './scan-file.js';
import type { ScanResult } from './types.js';

export interface ScanOptions {
  /** Called after each file, for progress display. */
  onFile?: (done: number, total: number, bytes: number) => void;
  /** Each file stops being read once it keeps more than this many events (ScanFileInput.maxEvents). */
  maxEventsPerFile?: number;
  /**
   * Awaited after each file read by this thread: follow mode turns the event loop there, so that
   * a Ctrl-C is seen during a long replay. True stops the scan; its result is then partial.
   */
  pace?: () => Promise<boolean>;
}

/** Reads every file in order; one unreadable or corrupt file never stops the others. */
export async function scanJournals(files: JournalFile[], options: ScanOptions = {}): Promise<ScanResult> {
  const result: ScanResult = { events: [], files: [] };
  const pairCounts = new Map<string, number>();
  for (const f of files) pairCounts.set(f.pairKey, (pairCounts.get(f.pairKey) ?? 0) + 1);
  const seenByPair = new Map<string, Map<string, number>>();
  let bytes = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    let seen: Map<string, number> | undefined;
    if ((pairCounts.get(f.pairKey) ?? 0) > 1) {
      seen = seenByPair.get(f.pairKey) ?? new Map();
      seenByPair.set(f.pairKey, seen);
    }
    const out = await scanFile({ path: f.path, display: f.display, fileIndex: i, seen, maxEvents: options.maxEventsPerFile });
    for (const e of out.events) result.events.push(e);
    result.files.push(out.stats);
    bytes += out.stats.bytes;
    options.onFile?.(i + 1, files.length, bytes);
    if (options.pace && (await options.pace())) break;
  }
  return result;
}

/**
 * Standard input as one journal named `<stdin>`: plain, read as it comes, or gzip (`<
 * session.jsonl.gz`), first copied to a temporary file, so that an archive with a damaged end is
 * recovered as a file is (archive.ts: that takes a second read of the compressed bytes).
 */
export async function scanStdin(stdin: Readable): Promise<ScanResult> {
  const scanned = async (source: AsyncIterable<Buffer | string>): Promise<ScanResult> => {
    const out = await scanStream(source, { display: '<stdin>', fileIndex: 0 });
    return { events: out.events, files: [out.stats] };
  };
  const { gzip, stream } = await sniffGzip(stdin);
  if (!gzip) return scanned(stream);
  let dir: string;
  try {
    dir = mkdtempSync(path.join(tmpdir(), 'trace-delegation-stdin-'));
  } catch {
    return scanned(gunzipped(stream)); // no temporary folder to be had: inflate as it comes (a damaged end then loses its last piece)
  }
  // Interrupted while copying a large archive: remove the copy. Where nothing else listens for
  // the signal (the CLI), die of it as before; a host program that listens handles it itself,
  // and the copy goes when the scan ends or the process exits.
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const signals = (['SIGINT', 'SIGTERM'] as const).filter((s) => process.listenerCount(s) === 0);
  for (const s of signals) process.once(s, onSignal);
  process.once('exit', cleanup);
  try {
    const copy = path.join(dir, 'stdin.jsonl.gz');
    // Required here: only gzip on stdin needs it (the CLI bundle is compiled by vm.Script, which has no import()).
    const { pipeline } = createRequire(import.meta.url)('node:stream/promises') as typeof import('node:stream/promises');
    let source: AsyncIterable<Buffer>;
    try {
      await pipeline(stream, createWriteStream(copy));
      source = inflateArchive(copy, { chunkSize: 1 << 16 });
    } catch (err) {
      source = failing(err); // a full disk, say: the scan reports it as it reports an unreadable file
    }
    return await scanned(source);
  } finally {
    for (const s of signals) process.off(s, onSignal);
    process.off('exit', cleanup);
    cleanup();
  }
}

async function* failing(err: unknown): AsyncGenerator<Buffer> {
  throw err;
}

/** The stream's bytes (none lost to looking), and whether they start with gzip's magic number. */
async function sniffGzip(stream: Readable): Promise<{ gzip: boolean; stream: Readable }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  // Enough bytes to tell (a pipe may deliver one at a time).
  let head = Buffer.alloc(0);
  let ended = false;
  while (head.length < 2) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    head = Buffer.concat([head, typeof next.value === 'string' ? Buffer.from(next.value) : next.value]);
  }
  async function* replay(): AsyncGenerator<Buffer | string> {
    if (head.length) yield head;
    if (ended) return;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { gzip: startsLikeGzip(head), stream: Readable.from(replay(), { objectMode: false }) };
}
