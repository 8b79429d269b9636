import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { CAP_BYTES, holdYoungGeneration, letYoungGenerationGrow } from '../../src/cli/young-generation.js';

const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

/** Allocates `count` objects while keeping the last `window` alive, so each scavenge has survivors. */
function churn(count: number, window: number): number {
  const ring: { i: number; s: string }[] = new Array(window);
  let sum = 0;
  for (let i = 0; i < count; i++) {
    ring[i % window] = { i, s: `item ${i}` };
    sum += ring[(i * 7) % window]?.i ?? 0;
  }
  return sum;
}

describe('young generation hold (CLI only)', () => {
  it('keeps V8 from growing the young generation past the cap on a long run with survivors', () => {
    holdYoungGeneration();
    letYoungGenerationGrow();
    const before = newSpace();
    churn(3_000_000, 60_000); // ≈ 0.2 GB allocated, ≈ 4 MB alive at any time: V8 would double it
    expect(newSpace()).toBeLessThanOrEqual(Math.max(before, CAP_BYTES));
  });
});
