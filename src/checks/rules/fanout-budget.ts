import { compareInstants } from '../../journal/time.js';
import type { Instant, SubRunStartedEvent } from '../../journal/types.js';
import type { Delegation } from '../../model/delegation.js';
import { loc, terminalCompletions } from '../../model/evidence.js';
import { delegationTree } from '../../model/group.js';
import type { Check, Report } from '../types.js';

/** The engine refuses a fan_out of more agents than this (journal-format.md §2.5). */
const ENGINE_FANOUT_LIMIT = 32;

export const fanoutBudget: Check = {
  meta: {
    id: 'fanout-budget',
    category: 'safe',
    defaultSeverity: 'warning',
    description: 'More sub-runs at once than --max-fanout, or a delegation tree larger than --max-tree (policy thresholds).',
    symptom: 'No child runs',
    docs: {
      why:
        'Every concurrent child costs tokens, rate limit and blast radius, and nested delegations multiply them. These are policy thresholds, not engine faults: the engine itself allows up to 32 fan-out agents. "Running at once" is the largest overlap of the sub-runs\' [start, completion) intervals within one delegation (an open run lasts until delegation_completed or the last event); the tree count is the distinct sub-run ids of a delegation plus its nested descendants, reported once, on the outermost delegation. Tune with --max-fanout (default 8) and --max-tree (default 32), or in the config file.',
      example: [
        '{"type":"delegation_started","ts":"2026-03-10T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":3,"agent_ids":["a","b","c"],"delegation_id":"d-1","parent_run_id":"r-1","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.010000000+00:00","session_id":"s-1","metadata":{"agent_id":"a","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-a"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.020000000+00:00","session_id":"s-1","metadata":{"agent_id":"b","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-b"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.030000000+00:00","session_id":"s-1","metadata":{"agent_id":"c","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-c"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:10.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"a","delegation_id":"d-1","error":null,"output_preview":"A done","status":"completed","sub_run_id":"run-a"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:11.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"b","delegation_id":"d-1","error":null,"output_preview":"B done","status":"completed","sub_run_id":"run-b"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:12.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"c","delegation_id":"d-1","error":null,"output_preview":"C done","status":"completed","sub_run_id":"run-c"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:00:12.100000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":"A done\\n---\\nB done\\n---\\nC done","aggregated_status":"completed","delegation_id":"d-1","failed":0,"pattern":"fan_out","succeeded":3,"total_sub_runs":3}}',
      ].join('\n'),
      reportLine:
        '- [warning] fanout-budget: 3 sub-runs were running at once (from 2026-03-10T10:00:00.030000000+00:00), above --max-fanout 2 (a policy threshold, not an engine fault: the engine allows up to 32 fan-out agents) (example.jsonl:1, example.jsonl:4)',
      exampleFlags: ['--max-fanout', '2'],
      fix: 'Batch the work or lower the fan-out in the plan (fewer agents per delegation, fewer nested levels); or raise --max-fanout / --max-tree if the budget allows it.',
    },
  },
  run({ delegation: d, options }) {
    const out: Report[] = [];
    const peak = peakConcurrency(d);
    if (peak && peak.count > options.maxFanout)
      out.push({
        message: `${peak.count} sub-runs were running at once (from ${peak.at.ts}), above --max-fanout ${options.maxFanout} (a policy threshold, not an engine fault: the engine allows up to ${ENGINE_FANOUT_LIMIT} fan-out agents)`,
        evidence: [...(d.started ? [loc(d.started)] : []), loc(peak.at)],
      });
    // The tree is judged once, on its outermost delegation.
    if (!d.parent) {
      const tree = delegationTree(d);
      const runs = new Set(tree.flatMap((x) => [...x.runs.keys()]));
      if (runs.size > options.maxTree) {
        const shape = tree.length === 1 ? 'the delegation' : `the delegation tree of ${d.key} (${tree.length} delegations)`;
        out.push({
          message: `${shape} holds ${runs.size} distinct sub-runs, above --max-tree ${options.maxTree} (a policy threshold, not an engine fault: the engine allows up to ${ENGINE_FANOUT_LIMIT} fan-out agents)`,
          evidence: tree.filter((x) => x.started).map((x) => loc(x.started!)),
        });
      }
    }
    return out;
  },
};

/** Largest overlap of [start, completion) intervals; the start event where it was first reached. */
function peakConcurrency(d: Delegation): { count: number; at: SubRunStartedEvent } | null {
  const end = d.completed?.time ?? lastTime(d);
  // order at equal times: a completion (0) before a start (1) before the assumed end of a run that
  // never completed (2), which is still running when the last one starts (a crash mid-fan-out).
  const points: { t: Instant; delta: 1 | -1; order: number; start?: SubRunStartedEvent }[] = [];
  for (const run of d.runs.values()) {
    const s = run.starts[0];
    if (!s?.time) continue;
    const done = terminalCompletions(run);
    const completedAt = done[done.length - 1]?.time;
    points.push({ t: s.time, delta: 1, order: 1, start: s }, { t: completedAt ?? end ?? s.time, delta: -1, order: completedAt ? 0 : 2 });
  }
  // Half-open intervals: at equal times an end is applied before a start.
  points.sort((a, b) => compareInstants(a.t, b.t) || a.order - b.order);
  let cur = 0;
  let best: { count: number; at: SubRunStartedEvent } | null = null;
  for (const p of points) {
    cur += p.delta;
    if (p.start && (!best || cur > best.count)) best = { count: cur, at: p.start };
  }
  return best;
}

function lastTime(d: Delegation): Instant | null {
  for (let i = d.events.length - 1; i >= 0; i--) if (d.events[i].time) return d.events[i].time;
  return null;
}
