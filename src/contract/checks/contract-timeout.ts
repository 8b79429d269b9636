import type { Report } from '../../checks/types.js';
import { loc } from '../../model/evidence.js';
import { subtaskTimeoutMs } from '../validate.js';
import type { ContractCheck } from './types.js';
import { humanDuration, q, runningMs, startOf, stoppedBy } from './util.js';

export const contractTimeout: ContractCheck = {
  meta: {
    id: 'contract-timeout',
    category: 'contract',
    defaultSeverity: 'warning',
    description: "A sub-run ran longer than its subtask's constraints.timeout (time spent paused does not count).",
    symptom: 'Cancellation leak',
    docs: {
      why: 'The contract bounds each subtask in time; a run past its limit means the runtime deadline is looser than the plan (or missing), and the parent waited longer than it agreed to. It is a warning because some engine versions journal fan_out completions after the whole batch, so a completion time can be later than the real finish. A run is measured to its first completion: Gen A\'s gate re-completes a finished run as verification_failed after the whole batch, which is its verdict, not more running time.',
      example: 'contract: security-review constraints.timeout "5m"\ndelegation_sub_run_started r-1 agent_id security-agent at 10:00:00\ndelegation_sub_run_completed r-1 status completed at 10:06:12',
      reportLine: '- [warning] contract-timeout: subtask "security-review" (agent security-agent, run r-1) ran 6m12s (…10:00:00+00:00 → …10:06:12+00:00); its constraints.timeout is 5m (subtasks[0].contract.constraints.timeout) (j.jsonl:2, j.jsonl:7)',
      fix: 'Give the delegation a timeout no longer than the contract\'s (timeout_sec; fan_out shares one deadline for the batch), or raise the contract\'s limit.',
    },
  },
  run(_ctx, b) {
    const out: Report[] = [];
    for (const a of b.assignments) {
      const limit = subtaskTimeoutMs(a.subtask.contract.constraints);
      if (!a.child || typeof limit !== 'number') continue;
      for (const run of a.child.attempts) {
        const start = startOf(run);
        // A gate's later re-completion is a verdict, not more running time.
        const done = stoppedBy(run);
        if (!start?.time || !done?.time) continue; // an open run is missing-completion's concern
        // Time spent paused is not running time (a resumed run starts again: journal-format §5.1).
        const { ms: took, pausedMs } = runningMs(run, start.time, done.time);
        if (took <= limit) continue;
        const paused = pausedMs > 0 ? `, not counting ${humanDuration(pausedMs)} paused` : '';
        out.push({
          message: `subtask ${q(a.subtask.id)} (agent ${a.subtask.agent}, run ${run.runId}) ran ${humanDuration(took)} (${start.ts} → ${done.ts}${paused}); its constraints.timeout is ${String(a.subtask.contract.constraints.timeout)} (subtasks[${a.index}].contract.constraints.timeout)`,
          evidence: [loc(start), loc(done)],
          runs: [run.runId],
        });
      }
    }
    return out;
  },
};
