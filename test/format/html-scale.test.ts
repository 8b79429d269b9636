// The timeline's axis: ticks at round times (15 s, 1 min, 6 h), never at 100 s or 20 000 s.
import { describe, expect, it } from 'vitest';
import { duration, offset, ticks } from '../../src/format/html/scale.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const steps = (t: number[]) => t.slice(1).map((v, i) => v - t[i]);

describe('timeline ticks', () => {
  it('use 1-2-5 steps below a second', () => {
    expect(ticks(0, 0, 900)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(steps(ticks(0, 0, 4))).toEqual([1, 1, 1, 1]);
  });

  it('use round seconds, minutes and hours above a second', () => {
    for (const [span, step] of [
      [8 * S, 1 * S],
      [150 * S, 15 * S],
      [5 * M, 30 * S],
      [40 * M, 5 * M],
      [2 * H, 15 * M],
      [20 * H, 2 * H],
      [25 * H, 3 * H],
      [100 * H, 12 * H],
      [30 * 24 * H, 5 * 24 * H],
    ]) {
      const t = ticks(0, 0, span);
      expect(new Set(steps(t)), `span ${duration(span)}`).toEqual(new Set([step]));
      expect(t.length).toBeLessThanOrEqual(11);
    }
  });

  it('label every tick of a minutes-long axis with whole seconds', () => {
    for (const span of [100 * S, 7 * M, 55 * M]) for (const t of ticks(0, 0, span)) expect(offset(t)).toMatch(/^\+(\d+s|\d+m \d\ds|0s)$/);
  });

  it('count from the origin, not from the first instant drawn', () => {
    expect(ticks(1000, 3500, 6000, 10)).toEqual([2500, 3000, 3500, 4000, 4500, 5000]);
  });
});
