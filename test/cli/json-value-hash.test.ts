// jsonValueHash hashes a value as its JSON text (locations left out) would be told apart, without writing the text.
import { describe, expect, it } from 'vitest';
import { jsonValueHash } from '../../src/cli/json-value-hash.js';

const skip = new Set(['file', 'line']);
const fn = () => 1;

/** Values, some of them equal as JSON (with `file` and `line` left out), most of them not. */
const values: unknown[] = [
  null, 'null', 0, -0, '0', 1, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY, true, false, 'true', '', 'a', 'ab',
  [], {}, [null], [undefined], [fn], [Number.NaN], ['a', 'b'], ['ab'], ['a', 'b', 'c'], [['a'], 'b'], [['a', 'b']],
  { a: 1 }, { a: '1' }, { b: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, { a: undefined }, { a: fn, b: 2 }, { a: null }, { a: Number.NaN },
  { a: [] }, { a: {} }, { ab: 'c' }, { a: 'bc' }, { file: 'x.jsonl', a: 1 }, { a: 1, line: 4 }, { a: { file: 'y', line: 9, b: [1] } }, { a: { b: [1] } },
  { a: [{ file: 'z' }] }, { a: [{}] }, 'é', '\u{1F600}', { files: ['x'] }, { evidence: [] },
];

/** As follow mode compared reports before: JSON.stringify with a replacer leaving the keys out. */
const asJson = (v: unknown) => JSON.stringify([v], (key, value) => (skip.has(key) ? undefined : value));

describe('jsonValueHash', () => {
  it('hashes two values alike exactly when their JSON without the skipped keys is alike', () => {
    for (const a of values) {
      for (const b of values) {
        const same = asJson(a) === asJson(b);
        expect(jsonValueHash([a], skip) === jsonValueHash([b], skip), `${asJson(a)} vs ${asJson(b)}`).toBe(same);
      }
    }
  });
});
