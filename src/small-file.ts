import { closeSync, openSync, readSync } from 'node:fs';

/** Thrown by readSmallText when a file holds more than the limit. */
export class TooLargeError extends Error {
  override name = 'TooLargeError';
}

const CHUNK = 64 * 1024;

/**
 * Reads a small text file (a config, a contract) whole, but never more than `maxBytes`: a huge
 * file or a device such as /dev/zero named by mistake is refused instead of filling memory. A
 * pipe (`--config <(…)`) is read to its end, as its size is known only then.
 */
export function readSmallText(file: string, maxBytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new TooLargeError(`it holds more than ${maxBytes} bytes, too large for this kind of file`);
      chunks.push(n === CHUNK ? buf : buf.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
