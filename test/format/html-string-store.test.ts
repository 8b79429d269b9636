// The page facts keep strings as code units in typed arrays: every string comes back as it went in.
import { describe, expect, it } from 'vitest';
import { StringIndex, StringStore } from '../../src/format/html/string-store.js';

describe('string store', () => {
  it('gives back each string exactly: empty, lone surrogates, astral characters, longer than one decoding step', () => {
    const store = new StringStore();
    const texts = ['', 'a', '\ud800', 'x\udfffy', '😀 id', 'é'.repeat(20_000), 'z'];
    const ids = texts.map((t) => store.add(t));
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ids.map((n) => store.get(n))).toEqual(texts);
    expect(store.equals(3, 'x\udfffy')).toBe(true);
    expect(store.equals(3, 'x\udffey')).toBe(false);
  });

  it('finds each of 50,000 ids after the table has grown, and nothing it was not given', () => {
    const index = new StringIndex();
    for (let n = 0; n < 50_000; n++) expect(index.intern(`run-${n}`)).toBe(n);
    for (let n = 0; n < 50_000; n += 997) expect(index.find(`run-${n}`)).toBe(n);
    expect(index.intern('run-123')).toBe(123);
    expect(index.size).toBe(50_000);
    expect(index.find('run-50000')).toBe(-1);
    expect(index.find('')).toBe(-1);
  });
});
