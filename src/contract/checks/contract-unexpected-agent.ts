import type { Report } from '../../checks/types.js';
import type { Child } from '../../model/delegation.js';
import { loc } from '../../model/evidence.js';
import type { ContractCheck } from './types.js';
import { q } from './util.js';
import { shortList } from '../../checks/short-list.js';

export const contractUnexpectedAgent: ContractCheck = {
  meta: {
    id: 'contract-unexpected-agent',
    category: 'contract',
    defaultSeverity: 'error',
    description: 'An agent ran that the contract does not name, or ran more sub-runs than it has subtasks.',
    symptom: 'No child runs',
    docs: {
      why: 'Every delegated piece of work needs an explicit contract (seed rule: never delegate without one). An agent outside the plan did work nobody specified, verified or merged; extra runs of a named agent are work the plan did not ask for (warning).',
      example: 'contract agents: security-agent, perf-agent, style-agent\ndelegation_sub_run_started sub_run_id r-4 agent_id docs-agent',
      reportLine: '- [error] contract-unexpected-agent: agent docs-agent ran (run r-4) but the contract names no subtask for it (contract agents: security-agent, perf-agent, style-agent) (j.jsonl:5)',
      fix: 'Add a subtask with a full contract for the agent, or stop delegating to it; for repeated runs, add one subtask per run or treat them as retries (retry_of) within max_retries.',
    },
  },
  run(_ctx, b) {
    const out: Report[] = [];
    const byAgent = new Map<string, Child[]>();
    for (const c of b.unassigned) byAgent.set(c.agentId ?? '?', [...(byAgent.get(c.agentId ?? '?') ?? []), c]);
    for (const [agent, children] of byAgent) {
      const runs = children.map((c) => c.attempts[0].runId);
      const evidence = children.flatMap((c) => [...c.attempts[0].starts, ...c.attempts[0].completions].slice(0, 1).map(loc));
      const subtasks = b.plan.subtasks.filter((s) => s.agent === agent);
      if (subtasks.length === 0) {
        out.push({
          message: `agent ${agent} ran (${runs.length === 1 ? 'run' : 'runs'} ${shortList(runs)}) but the contract names no subtask for it (contract agents: ${[...b.agents].join(', ')})`,
          evidence,
          runs,
        });
      } else {
        out.push({
          message: `agent ${agent} ran ${subtasks.length + children.length} sub-runs but the contract assigns it ${subtasks.length} (${subtasks.map((s) => q(s.id)).join(', ')}); extra: ${shortList(runs)}`,
          evidence,
          runs,
          severity: 'warning',
        });
      }
    }
    return out;
  },
};
