import type { Report } from '../../checks/types.js';
import { compareInstants, diffMs } from '../../journal/time.js';
import { isSuccess } from '../../model/delegation.js';
import { JOIN_INVERSION_MS, loc } from '../../model/evidence.js';
import type { ContractCheck } from './types.js';
import { childStart, humanDuration, q, settledBy, startOf, who } from './util.js';

export const contractDependencyOrder: ContractCheck = {
  meta: {
    id: 'contract-dependency-order',
    category: 'contract',
    defaultSeverity: 'error',
    description: 'A sub-run started before every sub-run its subtask depends on had completed.',
    symptom: 'No child runs',
    docs: {
      why: 'A dependency means the subtask consumes what the other one produces. Starting early means it ran on inputs that did not exist yet, typically because a pipeline was run as a parallel fan_out. Starting after a dependency that failed is reported as a warning: its inputs were never produced.',
      example: 'contract: enrich-data depends on validate-data\ndelegation_sub_run_started r-2 agent_id enricher at 10:00:01\ndelegation_sub_run_completed r-1 agent_id validator status completed at 10:00:40',
      reportLine: '- [error] contract-dependency-order: subtask "enrich-data" (agent enricher, run r-2) started at …10:00:01+00:00, 39s before its dependency "validate-data" (run r-1) completed at …10:00:40+00:00 (subtasks[1].dependencies) (j.jsonl:3, j.jsonl:5)',
      fix: 'Run dependent subtasks in order (sequential or pipeline pattern), or remove the dependency from the contract if the subtask does not need the output.',
    },
  },
  run(_ctx, b) {
    const out: Report[] = [];
    for (const a of b.assignments) {
      const start = a.child ? childStart(a.child) : null;
      if (!a.child || !start?.time) continue;
      for (const depId of a.subtask.dependencies ?? []) {
        const dep = b.byId.get(depId);
        if (!dep) continue; // the validator reports unknown dependencies
        const field = `(subtasks[${a.index}].dependencies)`;
        const runs = [a.child.attempts[0].runId];
        if (!dep.child) {
          out.push({ message: `${who(a)} started at ${start.ts}, but its dependency ${q(depId)} (agent ${dep.subtask.agent}) never ran ${field}`, evidence: [loc(start)], runs });
          continue;
        }
        const final = dep.child.final;
        const done = settledBy(final);
        runs.push(final.runId);
        if (!done) {
          const depStart = startOf(dep.child.attempts[0]);
          const when = depStart?.time && compareInstants(depStart.time, start.time) > 0 ? 'before its dependency even started' : 'while its dependency was still running';
          out.push({ message: `${who(a)} started at ${start.ts} ${when}: ${q(depId)} (run ${final.runId}) never completed ${field}`, evidence: [loc(start), ...(depStart ? [loc(depStart)] : [])], runs });
        } else if (done.time && diffMs(done.time, start.time) > JOIN_INVERSION_MS) {
          // Within a millisecond is the writers' inversion (ts is taken before the file lock, journal-format §8.1), as for late-result.
          out.push({ message: `${who(a)} started at ${start.ts}, ${humanDuration(diffMs(done.time, start.time))} before its dependency ${q(depId)} (run ${final.runId}) completed at ${done.ts} ${field}`, evidence: [loc(start), loc(done)], runs });
        } else if (!isSuccess(final)) {
          // A completed run with an error (even "") failed is_success: name the error, or "ended completed" reads as a success.
          out.push({ message: `${who(a)} started at ${start.ts} after its dependency ${q(depId)} (run ${final.runId}) ended ${done.status ?? '?'}${done.error === null ? '' : done.status === 'completed' || done.error === '' ? ` with error ${JSON.stringify(done.error)}` : ` (${done.error})`}: the outputs it depends on were never produced ${field}`, evidence: [loc(done), loc(start)], runs, severity: 'warning' });
        }
      }
    }
    return out;
  },
};
