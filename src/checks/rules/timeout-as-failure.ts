import { finalCompletion } from '../../model/delegation.js';
import { isTimeoutError, loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const timeoutAsFailure: Check = {
  meta: {
    id: 'timeout-as-failure',
    category: 'safe',
    defaultSeverity: 'info',
    description: 'A sub-run failed with a timeout: its outcome is unknown (it may have run), not a clean failure.',
    symptom: 'Cancellation leak',
    docs: {
      why:
        'A timeout means the parent stopped waiting, not that the work did not happen: the child may still be running, may have finished, or may have crashed, and its side effects may have landed. The engine journals it as failed, and totals count it as a clean failure. Timeout errors are recognised by "timeout", "timed out" or "deadline exceeded", and by exception names such as TimeoutError and DEADLINE_EXCEEDED; admission timeouts ("model admission timed out") are excluded, because the agent never ran.',
      example: [
        '{"type":"delegation_started","ts":"2025-11-03T09:18:12.671305218+00:00","session_id":"s-1","metadata":{"agent_count":2,"agent_ids":["quick-fixer","deep-fixer"],"delegation_id":"d-1","parent_run_id":"r-1","pattern":"sequential"}}',
        '{"type":"delegation_sub_run_started","ts":"2025-11-03T09:18:12.742990114+00:00","session_id":"s-1","metadata":{"agent_id":"quick-fixer","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-1"}}',
        '{"type":"delegation_sub_run_completed","ts":"2025-11-03T09:20:12.760244871+00:00","session_id":"s-1","metadata":{"agent_id":"quick-fixer","delegation_id":"d-1","error":"agent quick-fixer exceeded per-stage timeout of 120s","output_preview":null,"status":"failed","sub_run_id":"run-1"}}',
        '{"type":"delegation_sub_run_started","ts":"2025-11-03T09:20:12.768517309+00:00","session_id":"s-1","metadata":{"agent_id":"deep-fixer","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-2"}}',
        '{"type":"delegation_sub_run_completed","ts":"2025-11-03T09:21:03.115833402+00:00","session_id":"s-1","metadata":{"agent_id":"deep-fixer","delegation_id":"d-1","error":null,"output_preview":"Fixed the flaky test","status":"completed","sub_run_id":"run-2"}}',
        '{"type":"delegation_completed","ts":"2025-11-03T09:21:03.120476955+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":null,"aggregated_status":"partial","delegation_id":"d-1","failed":1,"pattern":"sequential","succeeded":1,"total_sub_runs":2}}',
      ].join('\n'),
      reportLine:
        '- [info] timeout-as-failure: sub-run run-1 (agent quick-fixer) failed with a timeout ("agent quick-fixer exceeded per-stage timeout of 120s"): the outcome is unknown, it may have run (example.jsonl:3)',
      fix: "Treat a timeout as unknown: before a fallback or retry runs, check whether the first attempt's effects landed, make the agent's effects idempotent, and cancel timed-out work explicitly (cancel_tokens, cancel_children_of).",
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    for (const child of d.children) {
      const c = finalCompletion(child.final);
      if (c?.status === 'failed' && isTimeoutError(c.error))
        out.push({
          message: `sub-run ${child.final.runId} (agent ${child.final.agentId ?? '?'}) failed with a timeout (${JSON.stringify(c.error)}): the outcome is unknown, it may have run`,
          evidence: [loc(c)],
          runs: [child.final.runId],
        });
    }
    return out;
  },
};
