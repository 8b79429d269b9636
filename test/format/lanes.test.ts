import { describe, expect, it } from 'vitest';
import { byKey, lastEventSeen, tree } from '../../src/format/lanes.js';
import type { DelegationReport } from '../../src/report/types.js';

const ts = (i: number) => new Date(Date.UTC(2026, 2, 10) + i * 1000).toISOString();

/** The fields lastEventSeen reads; `reads` counts how often a delegation's nested list is read. */
function delegation(key: string, nested: string[], times: number[], reads: { n: number }): DelegationReport {
  const d = { key, timeline: times.map((i) => ({ ts: ts(i) })) } as unknown as DelegationReport;
  Object.defineProperty(d, 'nested', {
    get: () => {
      reads.n++;
      return nested;
    },
  });
  return d;
}

/** What lastEventSeen means: the latest timestamp of every delegation its tree reaches. */
function walked(d: DelegationReport, keys: Map<string, DelegationReport>): string | null {
  const all = tree(d, keys).flatMap((x) => x.timeline.map((t) => t.ts));
  return all.length ? all.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a)) : null;
}

describe('lastEventSeen', () => {
  it('answers for every delegation of a chain 3,000 deep in one pass over the tree, not one walk each', () => {
    const reads = { n: 0 };
    const n = 3000;
    // d0 → d1 → … ; the latest event sits half-way down, so the top half's answer comes from below.
    const ds = Array.from({ length: n }, (_, i) => delegation(`d${i}`, i + 1 < n ? [`d${i + 1}`] : [], i === n / 2 ? [10 * n] : [i], reads));
    const keys = byKey(ds);
    const got = ds.map((d) => lastEventSeen(d, keys)?.ts ?? null);
    // A walk from each delegation reads the nested lists n²/2 times; one pass reads each a few times.
    expect(reads.n).toBeLessThanOrEqual(3 * n);
    expect(got[0]).toBe(ts(10 * n));
    expect(got[n / 2]).toBe(ts(10 * n));
    expect(got[n / 2 + 1]).toBe(ts(n - 1));
    expect(got[n - 1]).toBe(ts(n - 1));
  });

  it('gives the delegations of a nesting loop the latest event of everything the loop reaches', () => {
    const reads = { n: 0 };
    // a ⇄ b, b → c → d, d → b (a second loop through c), e alone, f → a.
    const ds = [
      delegation('a', ['b'], [1], reads),
      delegation('b', ['a', 'c'], [2], reads),
      delegation('c', ['d'], [3], reads),
      delegation('d', ['b', 'missing'], [9], reads),
      delegation('e', [], [20], reads),
      delegation('f', ['a'], [], reads),
      delegation('g', [], [], reads),
    ];
    const keys = byKey(ds);
    for (const d of ds) expect(lastEventSeen(d, keys)?.ts ?? null, d.key).toBe(walked(d, keys));
    expect(lastEventSeen(ds[0], keys)?.ts).toBe(ts(9));
    expect(lastEventSeen(ds[6], keys)).toBeNull();
  });

  it('matches the walk on random nesting graphs', () => {
    let seed = 7;
    const rand = (m: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % m;
    };
    for (let round = 0; round < 50; round++) {
      const reads = { n: 0 };
      const n = 1 + rand(30);
      const ds = Array.from({ length: n }, (_, i) =>
        delegation(
          `k${i}`,
          Array.from({ length: rand(3) }, () => `k${rand(n + 2)}`),
          Array.from({ length: rand(3) }, () => rand(100)),
          reads,
        ),
      );
      const keys = byKey(ds);
      for (const d of ds) expect(lastEventSeen(d, keys)?.ts ?? null, `round ${round} ${d.key}`).toBe(walked(d, keys));
    }
  });
});
