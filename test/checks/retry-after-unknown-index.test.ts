// retry-after-unknown looks up, for each run, the newest unknown outcome of its agent that it came
// after. One parent run can delegate thousands of times, so the lookup is indexed (per agent,
// newest first, binary search); it must pick exactly what a scan of every unknown picks.
import { describe, expect, it } from 'vitest';
import { latestUnknownBefore, unknownsOfAgent, type Unknown } from '../../src/checks/rules/retry-after-unknown.js';
import { compareInstants, parseTimestamp } from '../../src/journal/time.js';
import type { Instant, JournalEvent } from '../../src/journal/types.js';
import type { SubRun } from '../../src/model/delegation.js';
import { happenedAfter } from '../../src/model/evidence.js';
import { random } from '../helpers/shuffled.js';

const at = (s: number) => parseTimestamp(`2026-03-10T10:00:${String(s).padStart(2, '0')}.000000000+00:00`)!;

/** The lookup as a scan: every unknown of the agent the start came after, the newest (ties in list order). */
function scanned(unknowns: readonly Unknown[], run: SubRun, start: JournalEvent & { time: Instant }): Unknown | undefined {
  return unknowns
    .filter((u) => u.run !== run && u.run.agentId === run.agentId && (u.atEvent ? happenedAfter(start, u.atEvent) : compareInstants(u.at, start.time) < 0))
    .sort((a, b) => compareInstants(b.at, a.at))[0];
}

describe('retry-after-unknown: the indexed lookup of earlier unknown outcomes', () => {
  it('picks what a scan of every unknown picks, on random runs with many equal instants, files and lines', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const agents = ['a', 'b', 'c'];
      const runs = Array.from({ length: 2 + Math.floor(next() * 30) }, (_, i) => ({ runId: `r${i}`, agentId: agents[Math.floor(next() * agents.length)] }) as unknown as SubRun);
      const event = (): JournalEvent & { time: Instant } => ({ time: at(Math.floor(next() * 8)), file: next() < 0.5 ? 'a.jsonl' : 'b.jsonl', line: 1 + Math.floor(next() * 20) }) as unknown as JournalEvent & { time: Instant };
      const unknowns: Unknown[] = runs
        .filter(() => next() < 0.6)
        .map((run) => {
          const e = event();
          const withEvent = next() < 0.5;
          return { run, delegation: null as never, at: e.time, atEvent: withEvent ? e : null, evidence: { file: e.file, line: e.line }, why: '' };
        });
      for (const run of runs) {
        const start = event();
        expect(latestUnknownBefore(unknownsOfAgent(unknowns, run.agentId!), run, start), `seed ${seed}, run ${run.runId}`).toBe(scanned(unknowns, run, start));
      }
    }
  });
});
