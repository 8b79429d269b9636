import { compareInstants, diffMs } from '../../journal/time.js';
import { loc, seconds, terminalCompletions } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const lateResult: Check = {
  meta: {
    id: 'late-result',
    category: 'join',
    defaultSeverity: 'warning',
    description: 'A sub-run completed after delegation_completed: its result was not in the join.',
    symptom: 'Wrong aggregate',
    docs: {
      why: 'The join already published its answer; a result that arrives later is ignored unless someone sends a follow-up. The published answer may be missing data the run paid for.',
      example: 'delegation_completed at 20s\ndelegation_sub_run_completed apac status completed at 25s',
      reportLine: '- [warning] late-result: sub-run run-apac (agent apac) completed at …:25+00:00, 5s after the join at …:20+00:00; its result was not in the aggregate (j.jsonl:6, j.jsonl:7)',
      fix: 'Move the join deadline past the slowest child, or publish a follow-up update when late results arrive; cancel work you will not use.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    const join = d.completed;
    if (!join?.time) return out;
    for (const run of d.runs.values()) {
      const done = terminalCompletions(run);
      const last = done[done.length - 1];
      if (!last?.time || compareInstants(last.time, join.time) <= 0) continue;
      out.push({
        message: `sub-run ${run.runId} (agent ${run.agentId ?? '?'}) completed ${last.status ?? ''} at ${last.ts}, ${seconds(diffMs(last.time, join.time))} after the join at ${join.ts}; its result was not in the aggregate`.replace('  ', ' '),
        evidence: [loc(join), loc(last)],
        runs: [run.runId],
      });
    }
    return out;
  },
};
