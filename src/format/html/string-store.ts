// Strings kept as UTF-16 code units in typed arrays, not as heap strings: a page's facts of
// 100,000s of delegations and runs stay out of the heap V8 sizes its collections by (each heap
// string of an id costs ≈ 60 bytes and a Map entry more; the heap grows to ≈ 3× what is alive).
import { hash53 } from '../../journal/id-hash.js';

/** Decoded this many units per call: String.fromCharCode takes them as arguments. */
const DECODE_STEP = 8192;

/** `a`, or a copy of it at least `need` long. */
export function grown<T extends Uint8Array | Uint16Array | Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** Append-only strings, each by its ordinal. */
export class StringStore {
  private units = new Uint16Array(1 << 12);
  private used = 0;
  /** Where string n starts; it ends where n + 1 starts. */
  private starts = new Int32Array(1 << 8);
  private n = 0;

  get size(): number {
    return this.n;
  }

  add(s: string): number {
    this.units = grown(this.units, this.used + s.length);
    for (let k = 0; k < s.length; k++) this.units[this.used + k] = s.charCodeAt(k);
    this.used += s.length;
    this.starts = grown(this.starts, this.n + 2);
    this.starts[this.n + 1] = this.used;
    return this.n++;
  }

  get(n: number): string {
    const from = this.starts[n];
    const to = this.starts[n + 1];
    let s = '';
    for (let at = from; at < to; at += DECODE_STEP) s += String.fromCharCode.apply(null, this.units.subarray(at, Math.min(to, at + DECODE_STEP)) as unknown as number[]);
    return s;
  }

  equals(n: number, s: string): boolean {
    const from = this.starts[n];
    if (this.starts[n + 1] - from !== s.length) return false;
    for (let k = 0; k < s.length; k++) if (this.units[from + k] !== s.charCodeAt(k)) return false;
    return true;
  }
}

/** A StringStore that finds a string's ordinal (open addressing over hash53, half full at most). */
export class StringIndex extends StringStore {
  private table = new Int32Array(1 << 10).fill(-1);

  /** The ordinal of `s`, or -1. */
  find(s: string): number {
    const mask = this.table.length - 1;
    for (let slot = hash53(s) & mask; ; slot = (slot + 1) & mask) {
      const n = this.table[slot];
      if (n < 0 || this.equals(n, s)) return n;
    }
  }

  /** The ordinal of `s`, added when new. */
  intern(s: string): number {
    const found = this.find(s);
    if (found >= 0) return found;
    const n = this.add(s);
    if ((this.size + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    else this.place(n, s);
    return n;
  }

  private place(n: number, s: string): void {
    const mask = this.table.length - 1;
    let slot = hash53(s) & mask;
    while (this.table[slot] >= 0) slot = (slot + 1) & mask;
    this.table[slot] = n;
  }

  private rehash(capacity: number): void {
    this.table = new Int32Array(capacity).fill(-1);
    for (let n = 0; n < this.size; n++) this.place(n, this.get(n));
  }
}
