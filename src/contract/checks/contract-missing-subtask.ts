import type { Report } from '../../checks/types.js';
import { isSuccess, type Delegation } from '../../model/delegation.js';
import { loc, startedChildren } from '../../model/evidence.js';
import type { Assignment, ContractBinding } from '../binding.js';
import type { ContractCheck } from './types.js';
import { dependsOn, failedAttempt, q } from './util.js';

export const contractMissingSubtask: ContractCheck = {
  meta: {
    id: 'contract-missing-subtask',
    category: 'contract',
    defaultSeverity: 'error',
    description: "A contract subtask's agent never ran in the delegation.",
    symptom: 'No child runs',
    docs: {
      why: 'The plan promised every subtask; a subtask with no sub-run means its outputs were never produced and the merge worked on less than the contract says. It is information only when the contract itself explains the gap: a failed dependency, or a sequential or pipeline delegation that completed after its last started stage failed (policy abort) or succeeded (first_wins, for a subtask that does not need that stage\'s output). fan_out and fork start every child up front, so no later outcome explains a child that never started, nor does any explain an agent the delegation was not started with.',
      example: 'contract: subtasks security-review (security-agent), perf-review (perf-agent), style-review (style-agent)\ndelegation_started agent_ids [security-agent, perf-agent]\n(no sub-run of style-agent)',
      reportLine: '- [error] contract-missing-subtask: subtask "style-review" (agent style-agent) never ran: no sub-run of style-agent in this delegation; the delegation was not started with style-agent (subtasks[2]) (j.jsonl:1, j.jsonl:9)',
      fix: 'Start the delegation with every agent the contract assigns (agent_ids), or change the contract; when a stage was skipped on purpose, say so in failure_handling or the merge plan.',
    },
  },
  run({ delegation: d }, b) {
    const out: Report[] = [];
    const evidence = [d.started, d.completed].flatMap((e) => (e ? [loc(e)] : []));
    for (const a of b.assignments) {
      if (a.child) continue;
      const requested = !d.started || d.started.agentIds.some((x) => x.replace(/×\d+$/, '') === a.subtask.agent);
      const notStarted = requested ? '' : `; the delegation was not started with ${a.subtask.agent}`;
      const reason = explainedBy(a, b, d, requested);
      out.push({
        message: `subtask ${q(a.subtask.id)} (agent ${a.subtask.agent}) never ran: no sub-run of ${a.subtask.agent} in this delegation${notStarted}${reason ? `; ${reason.text}` : ''} (subtasks[${a.index}])`,
        evidence,
        severity: reason?.severity,
      });
    }
    return out;
  },
};

// Patterns that start one child at a time: only they can stop before a later stage because of
// what an earlier one did. fan_out and fork start every child up front (journal-format.md §9).
const ONE_AT_A_TIME = new Set(['sequential', 'pipeline']);

/** Why a missing subtask may be legitimate under the contract itself. */
function explainedBy(a: Assignment, b: ContractBinding, d: Delegation, requested: boolean): { text: string; severity: 'info' | 'warning' } | null {
  const failedDep = (a.subtask.dependencies ?? []).map((id) => b.byId.get(id)).find((dep) => dep && (!dep.child || !isSuccess(dep.child.final)));
  if (failedDep) return { text: `its dependency ${q(failedDep.subtask.id)} ${failedDep.child ? 'did not succeed' : 'never ran'}, so its inputs never existed`, severity: 'info' };
  // abort and first_wins say how the engine stops at the join; without one, nothing shows it stopped on purpose.
  if (!d.completed) return { text: 'the delegation has no delegation_completed, so it may have stopped (or still be running) before this subtask', severity: 'warning' };
  // A stop after a stage explains the stages after it only: the delegation asked for the agent at
  // a place after every stage that started, and those stages ran in agent_ids order (a skipped
  // stage before a later start was not a stop).
  const last = requested && ONE_AT_A_TIME.has(d.pattern ?? '') && comesAfterStartedPrefix(d, a.subtask.agent) ? startedChildren(d).at(-1) : undefined;
  const lastAssigned = last && b.assignments.find((x) => x.child === last);
  if (lastAssigned && b.plan.failure_handling.policy === 'abort' && last.attempts.some(failedAttempt))
    return { text: `failure_handling.policy is abort and subtask ${q(lastAssigned.subtask.id)}, the last stage that started, failed, so stopping was correct`, severity: 'info' };
  // A subtask that needs the winner's output is still owed after it: the plan asks for both.
  if (lastAssigned && b.plan.merge_plan.strategy === 'first_wins' && isSuccess(last.final) && !dependsOn(b, a.subtask.id, lastAssigned.subtask.id))
    return { text: `merge_plan.strategy is first_wins and subtask ${q(lastAssigned.subtask.id)}, the last stage that started, succeeded`, severity: 'info' };
  return null;
}

/** Whether the started stages are a prefix of agent_ids and `agent` has a place after them. */
function comesAfterStartedPrefix(d: Delegation, agent: string): boolean {
  const ids = d.started?.agentIds ?? [];
  const started = startedChildren(d);
  if (!started.every((c, i) => c.agentId === ids[i])) return false;
  return ids.indexOf(agent, started.length) !== -1;
}
