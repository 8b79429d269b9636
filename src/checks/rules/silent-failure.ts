import { finalCompletion } from '../../model/delegation.js';
import { loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

const FAILURE_WORDING = /^\s*(error|failed|failure|partial|could not|couldn't|unable to)\b/i;

export const silentFailure: Check = {
  meta: {
    id: 'silent-failure',
    category: 'safe',
    defaultSeverity: 'warning',
    description: 'A sub-run reports completed but carries an error, an empty output, or output that reads as failure.',
    symptom: 'Wrong aggregate',
    docs: {
      why: 'Under the SAFE model a success must be a success: a completed status with an error or no output is a failure the aggregate will count as a result.',
      example: '{"type":"delegation_sub_run_completed",…,"metadata":{"error":"tool crashed","output_preview":"","status":"completed",…}}',
      reportLine: '- [warning] silent-failure: sub-run r-1 (agent coder) is completed but carries error "tool crashed" (j.jsonl:5)',
      fix: 'Map errors and empty outputs to failed in agent_result_status_to_subrun_state, or make the agent fail loudly instead of returning an apology as output.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    for (const child of d.children) {
      const run = child.final;
      const c = finalCompletion(run);
      if (!c || c.status !== 'completed') continue;
      const who = `sub-run ${run.runId} (agent ${run.agentId ?? '?'})`;
      if (c.error) out.push({ message: `${who} is completed but carries error ${JSON.stringify(c.error.slice(0, 120))}`, evidence: [loc(c)], runs: [run.runId] });
      else if (c.outputPreview !== undefined && (c.outputPreview === null || c.outputPreview.trim() === ''))
        out.push({ message: `${who} is completed but its output_preview is ${c.outputPreview === null ? 'null' : 'blank'}`, evidence: [loc(c)], runs: [run.runId] });
      else if (c.outputPreview && FAILURE_WORDING.test(c.outputPreview))
        out.push({ severity: 'info', message: `${who} is completed but its output reads as failure or partial work (${JSON.stringify(c.outputPreview.slice(0, 60))}); this is a wording heuristic`, evidence: [loc(c)], runs: [run.runId] });
    }
    return out;
  },
};
