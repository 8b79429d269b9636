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
      why: 'A timeout says the caller stopped waiting, not that the work did not happen. Side effects may have landed, so treating it as a clean failure invites duplicates on retry.',
      example: '{"type":"delegation_sub_run_completed",…,"metadata":{"error":"agent quick-fixer exceeded per-stage timeout of 120s","status":"failed",…}}',
      reportLine: '- [info] timeout-as-failure: sub-run 9e8d… (agent quick-fixer) failed with a timeout ("agent quick-fixer exceeded per-stage timeout of 120s"): the outcome is unknown, it may have run (s.jsonl:21)',
      fix: 'Make the agent\'s effects idempotent or check for them before a fallback runs; cancel timed-out work explicitly (cancel_tokens).',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    for (const child of d.children) {
      const c = finalCompletion(child.final);
      if (c?.status === 'failed' && isTimeoutError(c.error))
        out.push({ message: `sub-run ${child.final.runId} (agent ${child.final.agentId ?? '?'}) failed with a timeout (${JSON.stringify(c.error)}): the outcome is unknown, it may have run`, evidence: [loc(c)], runs: [child.final.runId] });
    }
    return out;
  },
};
