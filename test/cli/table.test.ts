// The list table is drawn by the tool in cli-table3's look (cli-table3's layout is quadratic in
// the rows); it must be the bytes cli-table3 draws, wide characters and empty cells included.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { distinctCuts, renderTable } from '../../src/cli/table.js';
import { random } from '../helpers/shuffled.js';

const Table = createRequire(import.meta.url)('cli-table3') as typeof import('cli-table3');
const HEAD = ['started', 'id', 'pattern', 'parent run', 'agents', 'ok/failed', 'status', 'findings E/W/I'];

function byCliTable3(head: string[], rows: string[][]): string {
  const t = new Table({ head, style: { head: [], border: [] } });
  for (const r of rows) t.push(r);
  return t.toString();
}

describe('the list table', () => {
  it('is what cli-table3 draws, on random cells with wide characters, emoji and empty cells', () => {
    const pieces = ['a', 'fan_out', '漢字', '🙂', 'é', '', 'review-2025-11-08', '0/0/0', 'ｗｉｄｅ', 'x'.repeat(40)];
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const cell = () => Array.from({ length: Math.floor(next() * 3) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      const rows = Array.from({ length: Math.floor(next() * 12) }, () => HEAD.map(cell));
      expect(renderTable(HEAD, rows), `seed ${seed}`).toBe(byCliTable3(HEAD, rows));
    }
  });

  it('cuts ids at 13 characters unless two shown ids would then look the same', () => {
    const cuts = distinctCuts(['review-2025-11-08-a', 'review-2025-11-08-b', '2e6b8f47-9a1c-4b1e', 'c8f05d3a-1b6e-4a29', 'review-2025-11-08-b'], 13);
    expect(cuts.get('review-2025-11-08-a')).toBe(19); // one past the 18 characters they share
    expect(cuts.get('review-2025-11-08-b')).toBe(19);
    expect(cuts.get('2e6b8f47-9a1c-4b1e')).toBe(13);
    expect(distinctCuts(['abc', 'abcdef'], 2).get('abc')).toBe(4); // past its end: shown whole
  });
});
