// Follow mode's replay reads journals one after another. An archive is inflated by libuv's
// thread pool, and the replay used to wait for each piece of it: on a tree of archived sessions
// the main thread sat idle for most of their inflation. The next archive is now inflated ahead,
// while the replay reads the journals before it, and handed over whole when its turn comes.
import { createReadStream, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';

/** An archive inflating to more than this is not held: its turn reads it as a stream, as before. */
export const PREFETCH_MAX_BYTES = 16 * 1024 * 1024;

/** The file as it was when its inflation started: what is handed over must still be that file. */
interface Identity {
  size: number;
  mtimeMs: number;
}

interface Pending {
  identity: Identity | null;
  chunks: Promise<Buffer[] | null>;
}

export class ArchivePrefetch {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly chunkSize: number,
    private readonly maxBytes = PREFETCH_MAX_BYTES,
  ) {}

  /** Starts inflating `path` (once). Anything that goes wrong resolves to null: its turn reads it as before, and says why. */
  start(path: string): void {
    if (this.pending.has(path)) return;
    let identity: Identity | null = null;
    try {
      const st = statSync(path);
      identity = { size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      // its turn finds out
    }
    this.pending.set(path, { identity, chunks: identity ? this.inflate(path) : Promise.resolve(null) });
  }

  /**
   * The inflated pieces of `path`, if it was prefetched and is still the file it was then (same
   * size and modification time as the follower's own look at it); null otherwise.
   */
  async take(path: string, now: Identity): Promise<Buffer[] | null> {
    const p = this.pending.get(path);
    if (!p) return null;
    this.pending.delete(path);
    const chunks = await p.chunks;
    if (!chunks || !p.identity || p.identity.size !== now.size || p.identity.mtimeMs !== now.mtimeMs) return null;
    return chunks;
  }

  /** Drops what was not taken (the replay ended or was stopped). */
  clear(): void {
    this.pending.clear();
  }

  private inflate(path: string): Promise<Buffer[] | null> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      const source = createReadStream(path, { highWaterMark: this.chunkSize });
      const gunzip = createGunzip({ chunkSize: this.chunkSize });
      const give = (value: Buffer[] | null) => {
        source.destroy();
        gunzip.destroy();
        resolve(value);
      };
      source.on('error', () => give(null));
      gunzip.on('error', () => give(null));
      gunzip.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > this.maxBytes) give(null);
        else chunks.push(chunk);
      });
      gunzip.on('end', () => give(chunks));
      source.pipe(gunzip);
    });
  }
}
