import type { Report } from '../../checks/types.js';
import type { Child } from '../../model/delegation.js';
import { loc } from '../../model/evidence.js';
import type { ContractCheck } from './types.js';
import { q } from './util.js';
import { shortList } from '../../checks/short-list.js';

export const contractRetryPolicy: ContractCheck = {
  meta: {
    id: 'contract-retry-policy',
    category: 'contract',
    defaultSeverity: 'error',
    description: 'A subtask was retried more often than failure_handling.max_retries allows, or at all under policy abort.',
    symptom: 'Retry loop',
    docs: {
      why: 'The contract fixes how often a failed subtask may be tried again; extra attempts cost time and tokens and may repeat side effects. Under policy abort the first failure ends the delegation, so any retry breaks the contract. Note that the engine\'s own gate counts total attempts (its max_retries 2 means one retry) while the contract counts retries.',
      example: 'contract: failure_handling {policy: continue, max_retries: 1}\ndelegation_retry r-1 → r-2 attempt 2 (agent perf-agent)\ndelegation_retry r-2 → r-3 attempt 3',
      reportLine: '- [error] contract-retry-policy: subtask "perf-review" (agent perf-agent) was retried 2 times (r-1 → r-2 → r-3); failure_handling.max_retries 1 allows 1 (j.jsonl:6, j.jsonl:9)',
      fix: 'Align the runtime\'s retry limit (the verification gate\'s max_retries, in total attempts) with the contract, or raise max_retries in the contract if the retries are wanted.',
    },
  },
  run(_ctx, b) {
    const out: Report[] = [];
    const { policy, max_retries: max } = b.plan.failure_handling;
    const subtaskOf = new Map(b.assignments.flatMap((a) => (a.child ? [[a.child, a] as const] : [])));
    const children: Child[] = [...b.assignments.flatMap((a) => (a.child ? [a.child] : [])), ...b.unassigned];
    for (const c of children) {
      const retries = c.attempts.length - 1;
      if (retries === 0) continue;
      const a = subtaskOf.get(c);
      const name = a ? `subtask ${q(a.subtask.id)} (agent ${a.subtask.agent})` : `agent ${c.agentId ?? '?'} (no subtask)`;
      const chain = shortList(c.attempts.map((r) => r.runId), ' → ');
      const evidence = c.attempts.slice(1).flatMap((r) => (r.retryEvent ? [loc(r.retryEvent)] : r.starts.slice(0, 1).map(loc)));
      const times = `${retries} ${retries === 1 ? 'time' : 'times'}`;
      if (policy === 'abort')
        out.push({ message: `${name} was retried ${times} (${chain}), but failure_handling.policy is abort: the first failure should have ended the delegation`, evidence, runs: c.attempts.map((r) => r.runId) });
      else if (retries > max)
        out.push({ message: `${name} was retried ${times} (${chain}); failure_handling.max_retries ${max} allows ${max}`, evidence, runs: c.attempts.map((r) => r.runId) });
    }
    return out;
  },
};
