import { compareInstants } from '../../journal/time.js';
import type { Instant } from '../../journal/types.js';
import { loc, terminalCompletions } from '../../model/evidence.js';
import { delegationTree } from '../../model/group.js';
import type { Check, Report } from '../types.js';

export const fanoutBudget: Check = {
  meta: {
    id: 'fanout-budget',
    category: 'safe',
    defaultSeverity: 'warning',
    description: 'More sub-runs at once than --max-fanout, or a delegation tree larger than --max-tree (policy thresholds).',
    symptom: 'No child runs',
    docs: {
      why: 'Every concurrent child costs tokens, rate limit and blast radius. These are policy thresholds, not engine faults: the engine itself allows up to 32 fan-out agents.',
      example: 'delegation_started fan_out with 12 agents, 12 delegation_sub_run_started before any completion',
      reportLine: '- [warning] fanout-budget: 12 sub-runs were running at once, above --max-fanout 8 (a policy threshold; the engine allows up to 32 fan-out agents) (f.jsonl:2)',
      fix: 'Batch the work, lower the fan-out in the plan, or raise the threshold if the budget allows it.',
    },
  },
  run({ delegation: d, options }) {
    const out: Report[] = [];
    const end = d.completed?.time ?? lastTime(d);
    const points: { t: Instant; delta: number }[] = [];
    for (const run of d.runs.values()) {
      const s = run.starts[0]?.time;
      if (!s) continue;
      const done = terminalCompletions(run);
      const e = done[done.length - 1]?.time ?? end ?? s;
      points.push({ t: s, delta: 1 }, { t: e, delta: -1 });
    }
    // [start, completion): at equal times an end is applied before a start.
    points.sort((a, b) => compareInstants(a.t, b.t) || a.delta - b.delta);
    let cur = 0;
    let peak = 0;
    for (const p of points) peak = Math.max(peak, (cur += p.delta));
    if (peak > options.maxFanout)
      out.push({ message: `${peak} sub-runs were running at once, above --max-fanout ${options.maxFanout} (a policy threshold; the engine allows up to 32 fan-out agents)`, evidence: d.started ? [loc(d.started)] : [] });
    if (!d.parent) {
      const tree = delegationTree(d);
      const runs = new Set(tree.flatMap((x) => [...x.runs.keys()]));
      if (tree.length > 1 && runs.size > options.maxTree)
        out.push({ message: `the delegation tree (${tree.length} delegations) holds ${runs.size} distinct runs, above --max-tree ${options.maxTree} (a policy threshold)`, evidence: tree.filter((x) => x.started).map((x) => loc(x.started!)) });
      else if (tree.length === 1 && runs.size > options.maxTree)
        out.push({ message: `the delegation holds ${runs.size} distinct runs, above --max-tree ${options.maxTree} (a policy threshold; the engine allows up to 32 fan-out agents)`, evidence: d.started ? [loc(d.started)] : [] });
    }
    return out;
  },
};

function lastTime(d: { events: { time: Instant | null }[] }): Instant | null {
  for (let i = d.events.length - 1; i >= 0; i--) if (d.events[i].time) return d.events[i].time;
  return null;
}
