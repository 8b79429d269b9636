import { isSuccess } from '../../model/delegation.js';
import { hasSubRunEvents, loc, startedChildren } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

const PATTERNS = new Set(['fan_out', 'pipeline', 'fork', 'adversarial_review']);

export const missingStart: Check = {
  meta: {
    id: 'missing-start',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'An expected child never journaled a sub-run start although the delegation completed.',
    symptom: 'No child runs',
    docs: {
      why: 'The delegation finished and reported its totals, but one of the children its pattern promises never entered Running. Unless the totals count it as a setup failure, an agent vanished without a trace.',
      example: 'delegation_started agent_ids ["eu","us","apac"]\ndelegation_sub_run_started eu\ndelegation_sub_run_started us\ndelegation_completed total_sub_runs 2',
      reportLine: '- [error] missing-start: agent apac: 1 expected child never started and the totals do not account for it (total_sub_runs 2, 2 started) (j.jsonl:1, j.jsonl:6)',
      fix: 'Look at record_sub_run and transition_state(..., Running) for the agent, its allowlist and the recursion depth; a setup failure should at least be counted in total_sub_runs and failed.',
    },
  },
  run({ delegation: d, expectation: e }) {
    const out: Report[] = [];
    // Without a completion that is delegation-incomplete; without any sub-run event the tracker was unbound.
    if (!d.completed || !d.started || !hasSubRunEvents(d) || !PATTERNS.has(d.pattern ?? '') || !e.agents) return out;
    const started = startedChildren(d);
    const startedBy = new Map<string, number>();
    for (const c of started) if (c.agentId) startedBy.set(c.agentId, (startedBy.get(c.agentId) ?? 0) + 1);
    const expectedBy = new Map<string, number>();
    for (const a of e.agents) expectedBy.set(a, (expectedBy.get(a) ?? 0) + 1);
    const { totalSubRuns: total, failed } = d.completed;
    const failedWithEvents = d.children.filter((c) => c.attempts.some((r) => r.starts.length > 0) && !isSuccess(c.final)).length;
    let unexplained = Math.max(0, (total ?? 0) - started.length);
    let failedLeft = Math.max(0, (failed ?? 0) - failedWithEvents);
    for (const [agent, want] of expectedBy) {
      const missing = want - (startedBy.get(agent) ?? 0);
      if (missing <= 0) continue;
      const explained = total !== null && failed !== null && unexplained >= missing && failedLeft >= missing;
      const what = `agent ${agent}: ${missing} expected ${missing === 1 ? 'child' : 'children'} never started`;
      if (explained) {
        unexplained -= missing;
        failedLeft -= missing;
        out.push({
          severity: 'info',
          message: `${what}; the totals account for it as a setup or launch failure without events (total_sub_runs ${total} − ${started.length} started ≥ ${missing}, failed ${failed} covers it)`,
          evidence: [loc(d.started), loc(d.completed)],
        });
      } else {
        out.push({
          message: `${what} and the totals do not account for it (total_sub_runs ${total ?? '?'}, ${started.length} started, failed ${failed ?? '?'})`,
          evidence: [loc(d.started), loc(d.completed)],
        });
      }
    }
    return out;
  },
};
