import { compareInstants, diffMs } from '../../journal/time.js';
import { JOIN_INVERSION_MS, joinedOutput, loc, seconds, settledAtJoin, terminalCompletions } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const lateResult: Check = {
  meta: {
    id: 'late-result',
    category: 'join',
    defaultSeverity: 'warning',
    description: 'A sub-run completed after delegation_completed: its result was not in the join.',
    symptom: 'Wrong aggregate',
    docs: {
      why:
        'The join already published its answer (and its totals). A result that arrives afterwards is ignored unless someone publishes a follow-up, so the published answer lacks work the run paid for, and the child kept running after nobody was waiting for it. Times are compared as parsed instants: a completion at the same instant as the join, or written later in the file with an earlier `ts`, is not late.',
      example: [
        '{"type":"delegation_started","ts":"2026-03-10T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":2,"agent_ids":["eu","apac"],"delegation_id":"d-1","parent_run_id":"r42","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"eu","delegation_id":"d-1","depth":1,"parent_run_id":"r42","retry_of":null,"status":"running","sub_run_id":"run-eu"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.060000000+00:00","session_id":"s-1","metadata":{"agent_id":"apac","delegation_id":"d-1","depth":1,"parent_run_id":"r42","retry_of":null,"status":"running","sub_run_id":"run-apac"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:08.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"eu","delegation_id":"d-1","error":null,"output_preview":"EU price 102","status":"completed","sub_run_id":"run-eu"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:00:20.000000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":"EU price 102","aggregated_status":"unfinished","delegation_id":"d-1","failed":1,"pattern":"fan_out","succeeded":1,"total_sub_runs":2}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:25.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"apac","delegation_id":"d-1","error":null,"output_preview":"APAC price 110","status":"completed","sub_run_id":"run-apac"}}',
      ].join('\n'),
      reportLine:
        '- [warning] late-result: sub-run run-apac (agent apac) completed at 2026-03-10T10:00:25.000000000+00:00 (status completed), 5s after the join at 2026-03-10T10:00:20.000000000+00:00: its result was not in the join (ignored, or it needs a follow-up) (example.jsonl:5, example.jsonl:6)',
      fix: 'Move the join deadline past the slowest child, or publish a follow-up update when a late result arrives; cancel children whose results you will not use (cancel_children_of).',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    const join = d.completed;
    if (!join?.time) return out;
    for (const run of d.runs.values()) {
      // A run that had settled by the join was in it; a later re-completion is duplicate-completion's business.
      if (settledAtJoin(run, join)) continue;
      const done = terminalCompletions(run);
      const last = done[done.length - 1];
      if (!last?.time || compareInstants(last.time, join.time) <= 0) continue;
      // Its output in the aggregate says the join had it after all: the two `ts` are inverted (journal-format.md §8.1).
      const joined = joinedOutput(last, join, d);
      const gap = diffMs(last.time, join.time);
      // Seconds apart, the same text in the aggregate has two readings: say both (failed-in-aggregate
      // names another delegation that wrote it before the join, when there is one).
      const verdict = joined
        ? gap <= JOIN_INVERSION_MS
          ? 'yet its output is in the aggregate, so the join had it: the timestamps are out of order'
          : 'yet its output is in the aggregate: the join had it and the completion was recorded late (some engines write completions after the batch), or the aggregate took the same text from elsewhere'
        : gap <= JOIN_INVERSION_MS
          ? 'within a millisecond, as concurrent writers invert timestamps: it may have been in the join, or it was not (ignored, or it needs a follow-up)'
          : 'its result was not in the join (ignored, or it needs a follow-up)';
      out.push({
        message: `sub-run ${run.runId} (agent ${run.agentId ?? '?'}) completed at ${last.ts} (status ${last.status}), ${seconds(diffMs(last.time, join.time))} after the join at ${join.ts}: ${verdict}`,
        evidence: [loc(join), loc(last)],
        runs: [run.runId],
      });
    }
    return out;
  },
};
