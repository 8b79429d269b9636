// A hash of a value as its JSON text would hash, without writing the text: follow mode hashes
// every report it prints (follow-digest.ts), and writing each one as JSON first cost twice as much.

import { finish53 } from '../journal/id-hash.js';

// Tags above the UTF-16 code units (0–0xFFFF): no text can stand for structure.
const END = 0x10000;
const ARRAY = 0x10001;
const OBJECT = 0x10002;
const NULL = 0x10003;
const TRUE = 0x10004;
const FALSE = 0x10005;
const NUMBER = 0x10006;
const TEXT = 0x10007;

const float = new Float64Array(1);
const halves = new Int32Array(float.buffer);

/**
 * cyrb53 (journal/id-hash.ts hash53) fed with a JSON value's parts as it walks them. Two values
 * whose JSON.stringify texts (with keys in `skip` left out at any depth) are equal hash the same;
 * others differ but for a 53-bit collision.
 */
export function jsonValueHash(value: unknown, skip: ReadonlySet<string>): number {
  const h = new ValueHash(skip);
  h.value(value, true);
  return h.digest();
}

class ValueHash {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  constructor(private readonly skip: ReadonlySet<string>) {}

  private code(c: number): void {
    this.h1 = Math.imul(this.h1 ^ c, 2654435761);
    this.h2 = Math.imul(this.h2 ^ c, 1597334677);
  }

  private text(s: string): void {
    // Locals in the loop: most of a report is text (output previews, timeline lines).
    let h1 = Math.imul(this.h1 ^ TEXT, 2654435761);
    let h2 = Math.imul(this.h2 ^ TEXT, 1597334677);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = Math.imul(h1 ^ END, 2654435761);
    this.h2 = Math.imul(h2 ^ END, 1597334677);
  }

  /** As JSON.stringify writes v: a non-finite number is null, -0 is 0; undefined, a function or a symbol is null in an array (`inArray`), and its key is left out of an object. */
  value(v: unknown, inArray: boolean): void {
    switch (typeof v) {
      case 'string':
        return this.text(v);
      case 'number':
        if (!Number.isFinite(v)) break;
        float[0] = v === 0 ? 0 : v;
        this.code(NUMBER);
        this.code(halves[0]);
        return this.code(halves[1]);
      case 'boolean':
        return this.code(v ? TRUE : FALSE);
      case 'object':
        if (v === null) break;
        if (Array.isArray(v)) {
          this.code(ARRAY);
          for (const item of v) this.value(item, true);
        } else {
          this.code(OBJECT);
          for (const key of Object.keys(v)) {
            const item = (v as Record<string, unknown>)[key];
            if (this.skip.has(key) || item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
            this.text(key);
            this.value(item, false);
          }
        }
        return this.code(END);
      default:
        if (!inArray) return;
    }
    this.code(NULL);
  }

  digest(): number {
    return finish53(this.h1, this.h2);
  }
}
