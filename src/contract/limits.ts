import type { Delegation } from '../model/delegation.js';
import { delegationTree } from '../model/group.js';
import { bindContract, contractGoverns } from './binding.js';
import type { DelegationPlan } from './types.js';

/** Limits lines for a delegation checked against a contract: how subtasks were matched, and what was not checked. */
export function contractLimits(plan: DelegationPlan, file: string, d: Delegation): string[] {
  if (!contractGoverns(plan, d)) {
    let root = d;
    while (root.parent) root = root.parent.delegation;
    const governed = delegationTree(root).find((x) => contractGoverns(plan, x));
    return [`Contract ${file} was not applied to this delegation: it describes ${governed ? `delegation ${governed.key}` : 'another delegation'} in the same tree.`];
  }
  const b = bindContract(plan, d);
  const mapping = b.assignments.map((a) => `${a.subtask.id}→${a.child ? a.child.attempts[0].runId : 'none'}`).join(', ');
  const lines = [
    `Contract ${file}: the journal carries no subtask ids, so subtasks were matched to sub-runs by agent (in order of start when one agent has several subtasks): ${mapping}.`,
    'Contract: inputs, outputs, verification criteria, interfaces, handoff context and constraints other than timeout are not journaled and were not checked.',
  ];
  if (plan.merge_plan.strategy !== 'custom') lines.push('Contract: the aggregation strategy is not journaled; merge_plan checks infer it from the aggregate preview (fan_out only) and the sub-run previews, both truncated to 500 characters.');
  return lines;
}
