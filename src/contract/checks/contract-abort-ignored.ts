import type { Report } from '../../checks/types.js';
import { compareInstants } from '../../journal/time.js';
import type { SubRun } from '../../model/delegation.js';
import { happenedAfter, loc } from '../../model/evidence.js';
import type { ContractCheck } from './types.js';
import { childStart, failedAttempt, q, settledBy } from './util.js';

export const contractAbortIgnored: ContractCheck = {
  meta: {
    id: 'contract-abort-ignored',
    category: 'contract',
    defaultSeverity: 'error',
    description: 'Under failure_handling.policy abort, sub-runs were started after a sub-run had failed.',
    symptom: 'Cancellation leak',
    docs: {
      why: 'Abort means the first failure stops the delegation: later stages would work on missing or bad data (and may write it somewhere). The engine\'s sequential pattern falls through to the next stage after a failure, so an abort contract needs the caller to stop it.',
      example: 'contract: failure_handling {policy: abort}\ndelegation_sub_run_completed r-1 agent_id validator status failed at 10:00:20\ndelegation_sub_run_started r-2 agent_id enricher at 10:00:21',
      reportLine: '- [error] contract-abort-ignored: subtask "enrich-data" (agent enricher, run r-2) started at …10:00:21+00:00, after run r-1 (subtask "validate-data") ended failed at …10:00:20+00:00; failure_handling.policy is abort (j.jsonl:4, j.jsonl:5)',
      fix: 'Stop the delegation at the first failure (a pipeline that aborts, or a check between stages), or change the contract\'s policy to continue with a fallback.',
    },
  },
  run(_ctx, b) {
    const out: Report[] = [];
    if (b.plan.failure_handling.policy !== 'abort') return out;
    const nameOf = new Map<SubRun, string>();
    for (const a of b.assignments) for (const r of a.child?.attempts ?? []) nameOf.set(r, `subtask ${q(a.subtask.id)}`);
    const all = [...b.assignments.flatMap((a) => (a.child ? [a.child] : [])), ...b.unassigned];
    // The earliest settled failure of any attempt: after it, nothing new may start.
    let first: { run: SubRun; done: NonNullable<ReturnType<typeof settledBy>> } | null = null;
    for (const run of all.flatMap((c) => c.attempts)) {
      const done = settledBy(run);
      if (!done?.time || !failedAttempt(run)) continue;
      if (!first || compareInstants(done.time, first.done.time!) < 0) first = { run, done };
    }
    if (!first) return out;
    for (const c of all) {
      const start = childStart(c);
      // The same instant on a later line counts: the start was journaled after the failure.
      if (!start || !happenedAfter(start, first.done)) continue;
      const run = c.attempts[0];
      const name = nameOf.get(run) ?? `agent ${c.agentId ?? '?'} (no subtask)`;
      out.push({
        message: `${name} (agent ${c.agentId ?? '?'}, run ${run.runId}) started at ${start.ts}, after run ${first.run.runId}${nameOf.has(first.run) ? ` (${nameOf.get(first.run)})` : ''} ended ${first.done.status ?? '?'} at ${first.done.ts}; failure_handling.policy is abort`,
        evidence: [loc(first.done), loc(start)],
        runs: [first.run.runId, run.runId],
      });
    }
    return out;
  },
};
