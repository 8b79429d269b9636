import { compareInstants } from '../../journal/time.js';
import type { Instant, Location } from '../../journal/types.js';
import { finalCompletion, type Delegation, type SubRun } from '../../model/delegation.js';
import { isTimeoutError, loc, terminalCompletions } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

interface Unknown {
  run: SubRun;
  delegation: Delegation;
  /** When the outcome became unknown: the timeout completion, or the start of a run that never settled. */
  at: Instant;
  evidence: Location;
  why: string;
}

export const retryAfterUnknown: Check = {
  meta: {
    id: 'retry-after-unknown',
    category: 'safe',
    defaultSeverity: 'warning',
    description: 'A retry or a later run of the same agent follows a timeout or unknown outcome: side effects may repeat.',
    symptom: 'Retry loop',
    docs: {
      why: 'At-most-once: after a timeout the first attempt may still have done its work. Running the same agent again without checking can apply the same side effect twice.',
      example: 'sub-run r-1 agent deployer failed "deadline exceeded"\nsub-run r-2 agent deployer started 3s later',
      reportLine: '- [warning] retry-after-unknown: agent deployer runs again (sub-run r-2) after sub-run r-1 ended with an unknown outcome (timeout: "deadline exceeded"); side effects may repeat (j.jsonl:4, j.jsonl:5)',
      fix: 'Give the agent an idempotency key, or check the first attempt\'s effects before running again.',
    },
  },
  run({ delegation: d, all }) {
    const out: Report[] = [];
    // The same parent re-delegating to the same agent is the classic repeat, so siblings count too.
    const siblings = all.filter((o) => o === d || (o.parentRunId && o.parentRunId === d.parentRunId));
    const unknowns: Unknown[] = [];
    for (const o of siblings) for (const run of o.runs.values()) {
      const u = unknownOutcome(o, run);
      if (u) unknowns.push(u);
    }
    for (const run of d.runs.values()) {
      const start = run.starts[0];
      if (!start?.time || !run.agentId) continue;
      const prior = unknowns.find((u) => u.run !== run && u.run.agentId === run.agentId && compareInstants(u.at, start.time!) <= 0);
      if (!prior) continue;
      const where = prior.delegation === d ? '' : ` of delegation ${prior.delegation.id}`;
      out.push({
        message: `agent ${run.agentId} runs again (sub-run ${run.runId}) after sub-run ${prior.run.runId}${where} ended with an unknown outcome (${prior.why}); side effects may repeat`,
        evidence: [prior.evidence, loc(start)],
        runs: [prior.run.runId, run.runId],
      });
    }
    return out;
  },
};

function unknownOutcome(d: Delegation, run: SubRun): Unknown | null {
  const c = finalCompletion(run);
  if (c?.status === 'failed' && isTimeoutError(c.error) && c.time) return { run, delegation: d, at: c.time, evidence: loc(c), why: `timeout: ${JSON.stringify(c.error)}` };
  const start = run.starts[0];
  if (start?.time && terminalCompletions(run).length === 0) return { run, delegation: d, at: start.time, evidence: loc(start), why: 'it never settled' };
  return null;
}
