// The hover cards of every bar, written after the last section (a tenth of a page): kept
// raw-deflated a batch at a time until then, not as strings (38 MB of JSON at 4 GiB, 10 MB deflated).
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { jsonForScript } from './escape.js';
import type { Tip } from './timeline.js';

/** Characters of JSON held as text before they are deflated together. */
const BATCH = 1 << 16;

export class TipLog {
  private readonly batches: Buffer[] = [];
  private pending: string[] = [];
  private pendingLength = 0;
  private empty = true;

  /** A delegation's cards, in the order its bars were drawn (each id once on the page). */
  add(tips: Record<string, Tip>): void {
    for (const id in tips) {
      const entry = `${this.empty ? '{' : ','}${jsonForScript(id)}:${jsonForScript(tips[id])}`;
      this.empty = false;
      this.pending.push(entry);
      this.pendingLength += entry.length;
      if (this.pendingLength >= BATCH) this.deflate();
    }
  }

  private deflate(): void {
    // Whole entries per batch: each inflates to valid UTF-8 on its own (JSON.stringify escapes lone surrogates).
    this.batches.push(deflateRawSync(Buffer.from(this.pending.join(''), 'utf8'), { level: 1 }));
    this.pending = [];
    this.pendingLength = 0;
  }

  /** The object as JSON.stringify writes it (its ids are never integer-like, so insertion order holds); read once. */
  *json(): Generator<string> {
    if (this.empty) {
      yield '{}';
      return;
    }
    while (this.batches.length > 0) yield inflateRawSync(this.batches.shift()!).toString('utf8');
    yield* this.pending;
    this.pending = [];
    yield '}';
  }
}
