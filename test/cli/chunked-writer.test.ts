// The chunked writer reuses its buffer only when the stream holds nothing: a stream that keeps
// written chunks (a slow pipe) must still receive every byte as it was written.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChunkedWriter, writePiecesToStream } from '../../src/cli/chunked-writer.js';

const pieces = Array.from({ length: 5000 }, (_, i) => `piece ${i} ${'x'.repeat(i % 97)}\n`);
const expected = pieces.join('');

/** A writable whose writes complete later (as a full pipe's do), holding the chunks meanwhile. */
function slowSink(): { stream: Writable; received: () => string } {
  const got: Buffer[] = [];
  const stream = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      setTimeout(() => {
        got.push(Buffer.from(chunk)); // read when the write completes, as the OS would
        done();
      }, 1);
    },
  });
  return { stream, received: () => Buffer.concat(got).toString('utf8') };
}

/** A writable that consumes each chunk at once (a file, /dev/null). */
function quickSink(): { stream: Writable; received: () => string; buffers: Set<ArrayBufferLike> } {
  const got: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      buffers.add(chunk.buffer);
      got.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, received: () => Buffer.concat(got).toString('utf8'), buffers };
}

describe('ChunkedWriter', () => {
  it('delivers every byte in order to a stream that holds its chunks for a while', async () => {
    const { stream, received } = slowSink();
    await writePiecesToStream(stream, pieces);
    await new Promise<void>((r) => stream.end(r));
    expect(received()).toBe(expected);
  });

  it('reuses one buffer for a sink said to write at once, and every byte arrives in order', async () => {
    const { stream, received, buffers } = quickSink();
    const out = new ChunkedWriter(stream, { writtenAtOnce: true });
    for (const p of pieces) await out.write(p);
    await out.flush();
    expect(received()).toBe(expected);
    expect(buffers.size).toBe(1);
  });

  it('gives any other stream a new buffer each time: it may keep what it was given', async () => {
    const kept: Buffer[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        kept.push(chunk); // kept as given, not copied (a PassThrough's reader does this)
        done();
      },
    });
    await writePiecesToStream(stream, pieces);
    expect(Buffer.concat(kept).toString('utf8')).toBe(expected);
  });
});
