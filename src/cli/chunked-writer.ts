import { closeSync, fstatSync, openSync, realpathSync, rmSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';

const CHUNK = 64 * 1024;

/** Where chunks go: a stream, or anything that writes as one (a file, below). */
type Sink = Pick<Writable, 'write' | 'on' | 'off'>;

/**
 * Encodes pieces straight into 64 KiB buffers and writes each when full, waiting when the reader
 * is slower than we are. Buffers of this size are recycled by malloc; large joined strings and
 * their encodings cost fresh pages (page faults) on every flush.
 */
export class ChunkedWriter {
  private buf = Buffer.allocUnsafe(CHUNK);
  private used = 0;

  /** The sink is done with a chunk once it holds no bytes: process.stdout or stderr, or a file written at once. */
  private readonly reusable: boolean;

  constructor(
    private readonly stream: Sink,
    { writtenAtOnce = false }: { writtenAtOnce?: boolean } = {},
  ) {
    this.reusable = writtenAtOnce || stream === process.stdout || stream === process.stderr;
  }

  /** A promise only when the buffer had to be flushed: the caller then awaits one per 64 KiB, not one per piece. */
  write(s: string): Promise<void> | undefined {
    // Worst case 3 bytes per UTF-16 unit; a piece that may not fit goes out on its own.
    if (this.used + s.length * 3 > CHUNK) return this.flushThenWrite(s);
    this.used += this.buf.write(s, this.used, 'utf8');
    return undefined;
  }

  private async flushThenWrite(s: string): Promise<void> {
    await this.flush();
    if (s.length * 3 > CHUNK) return this.send(s);
    this.used += this.buf.write(s, this.used, 'utf8');
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    const full = this.buf.subarray(0, this.used);
    this.used = 0;
    await this.send(full);
    // Reused when the sink is known to be done with it: the process's own output once it holds
    // nothing (written at once to a file, /dev/null, a Linux pipe), or a file written at once.
    // Any other stream may keep the chunk (a PassThrough's reader, a test's capture).
    if (!this.reusable || ((this.stream as Partial<Writable>).writableLength ?? 0) > 0) this.buf = Buffer.allocUnsafe(CHUNK);
  }

  private async send(data: Buffer | string): Promise<void> {
    if (this.stream.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off('drain', done).off('error', done).off('close', done);
        resolve();
      };
      this.stream.on('drain', done).on('error', done).on('close', done);
    });
  }
}

/**
 * Writes a document given in pieces to a file, through the same 64 KiB buffers: an --output of a
 * large tree never exists as one string or one encoding. Throws what open or write throws, or
 * the pieces throw; a regular file left half-written is removed first (a CI step must not upload
 * half a SARIF document). A device or pipe (/dev/stdout) is left alone.
 */
export async function writePiecesToFile(file: string, pieces: Iterable<string>): Promise<void> {
  const fd = openSync(file, 'w');
  let complete = false;
  // Written at once, so never a wait for 'drain'.
  const sink: Sink = {
    write(data: Buffer | string) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
      return true;
    },
    on: () => sink,
    off: () => sink,
  } as unknown as Sink;
  try {
    await writePiecesToStream(sink, pieces, { writtenAtOnce: true });
    complete = true;
  } finally {
    const regular = !complete && fstatSync(fd).isFile();
    closeSync(fd);
    // The file written, also through a symbolic link (removing the link would leave the half document at its target).
    if (regular) rmSync(realpathSync(file), { force: true });
  }
}

/** Writes a document given in pieces to a stream, waiting for it when it is slower than we are. */
export async function writePiecesToStream(stream: Sink, pieces: Iterable<string>, options?: { writtenAtOnce?: boolean }): Promise<void> {
  const out = new ChunkedWriter(stream, options);
  for (const s of pieces) {
    const flushing = out.write(s);
    if (flushing) await flushing;
  }
  await out.flush();
}
