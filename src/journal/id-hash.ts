// Compact numeric keys for ids and texts: the streamed `--all` keeps numbers, not strings, for
// every delegation event of a large tree. A collision can only merge two unrelated groups of
// delegations (more work, same result), never change a finding: results are always recomputed
// from the journal lines themselves.

import { PagedColumn } from './paged.js';

/** cyrb53: a fast 53-bit string hash (exact in a double). */
export function hash53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  return finish53(h1, h2);
}

/** cyrb53's last mix of its two 32-bit states into one 53-bit number (hash53, and the report hash of follow mode). */
export function finish53(h1: number, h2: number): number {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

// Two polynomial rolling hashes modulo 2^32 (Math.imul: integer arithmetic, no division),
// combined into one 53-bit number. Weak against crafted input, which only costs extra lookups.
const B1 = 0x01000193;
const B2 = 0x5bd1e995;

/**
 * Hashes of every `width`-unit window of `text`, in order: the hash at `at` equals
 * `windowHash(text.slice(at, at + width))`, in O(text length) instead of O(length × width).
 */
export function windowHashes(text: string, width: number, each: (hash: number, at: number) => void): void {
  if (text.length < width || width <= 0) return;
  let top1 = 1;
  let top2 = 1;
  for (let i = 1; i < width; i++) {
    top1 = Math.imul(top1, B1);
    top2 = Math.imul(top2, B2);
  }
  let h1 = 0;
  let h2 = 0;
  for (let i = 0; i < width; i++) {
    const c = text.charCodeAt(i);
    h1 = (Math.imul(h1, B1) + c) | 0;
    h2 = (Math.imul(h2, B2) + c) | 0;
  }
  each((h1 >>> 0) * 2097152 + (h2 >>> 11), 0);
  for (let i = width; i < text.length; i++) {
    const out = text.charCodeAt(i - width);
    const c = text.charCodeAt(i);
    h1 = (Math.imul(h1 - Math.imul(out, top1), B1) + c) | 0;
    h2 = (Math.imul(h2 - Math.imul(out, top2), B2) + c) | 0;
    each((h1 >>> 0) * 2097152 + (h2 >>> 11), i - width + 1);
  }
}

/** The window hash of a text of exactly `width` units (the same function as windowHashes). */
export function windowHash(text: string): number {
  let out = 0;
  windowHashes(text, text.length, (h) => (out = h));
  return out;
}

/**
 * number → int map with open addressing over paged typed arrays (see paged.ts): 12 bytes a slot,
 * filled up to 3/4, against 50–80 bytes an entry for a Map with double keys (each key a heap
 * number). On the 4 GiB corpus it holds ≈ 120 k ids.
 */
export class NumberTable {
  private keys: PagedColumn<Float64Array>;
  private values: PagedColumn<Int32Array>;
  private mask: number;
  /** 0 marks an empty slot; the key 0 itself is kept aside. */
  private zeroValue: number | undefined;
  size = 0;

  constructor(capacity = 1024) {
    let n = 16;
    while (n * 3 < capacity * 4) n *= 2;
    this.keys = PagedColumn.doubles().fill(n);
    this.values = PagedColumn.ints().fill(n);
    this.mask = n - 1;
  }

  private slot(key: number): number {
    // Mix the low and high halves: ids' hashes are uniform, but window hashes share a layout.
    let i = (Math.imul(key | 0, 0x9e3779b1) ^ Math.imul((key / 4294967296) | 0, 0x85ebca77)) & this.mask;
    const keys = this.keys;
    for (let k = keys.get(i); k !== 0 && k !== key; k = keys.get(i)) i = (i + 1) & this.mask;
    return i;
  }

  get(key: number): number | undefined {
    if (key === 0) return this.zeroValue;
    const i = this.slot(key);
    return this.keys.get(i) !== 0 ? this.values.get(i) : undefined;
  }

  /** The value for `key`, adding `next()` when absent. */
  getOrAdd(key: number, next: () => number): number {
    if (key === 0) {
      if (this.zeroValue === undefined) {
        this.zeroValue = next();
        this.size++;
      }
      return this.zeroValue;
    }
    let i = this.slot(key);
    if (this.keys.get(i) !== 0) return this.values.get(i);
    if ((this.size + 1) * 4 > (this.mask + 1) * 3) {
      this.grow();
      i = this.slot(key);
    }
    const v = next();
    this.keys.set(i, key);
    this.values.set(i, v);
    this.size++;
    return v;
  }

  /** Replaces every value v by f(v) (node numbers by what they stand for, say). */
  mapValues(f: (v: number) => number): void {
    if (this.zeroValue !== undefined) this.zeroValue = f(this.zeroValue);
    for (let i = 0; i <= this.mask; i++) if (this.keys.get(i) !== 0) this.values.set(i, f(this.values.get(i)));
  }

  private grow(): void {
    const { keys, values } = this;
    const old = this.mask + 1;
    const n = old * 2;
    this.keys = PagedColumn.doubles().fill(n);
    this.values = PagedColumn.ints().fill(n);
    this.mask = n - 1;
    for (let i = 0; i < old; i++) {
      const k = keys.get(i);
      if (k === 0) continue;
      const j = this.slot(k);
      this.keys.set(j, k);
      this.values.set(j, values.get(i));
    }
  }
}
