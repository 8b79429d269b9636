import { isSuccess } from '../../model/delegation.js';
import { hasSubRunEvents, loc, startedChildren } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

// Only these promise every expected child a start (CHECKS.md resolved detail 1); sequential stops
// early by design and adversarial_review sizes itself from total_sub_runs.
const PATTERNS = new Set(['fan_out', 'pipeline', 'fork']);

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
      reportLine: '- [error] missing-start: agent apac: 1 expected child never started and the totals do not account for it (total_sub_runs 2 − 2 started = 0 < 1 missing; failed 0 − 0 journaled failures = 0 does not cover it) (j.jsonl:1, j.jsonl:6)',
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
    // What the totals leave for children without events: results not started, failures not journaled.
    let unexplained = (total ?? 0) - started.length;
    let failedLeft = (failed ?? 0) - failedWithEvents;
    let used = 0;
    for (const [agent, want] of expectedBy) {
      const missing = want - (startedBy.get(agent) ?? 0);
      if (missing <= 0) continue;
      const what = `agent ${agent}: ${missing} expected ${missing === 1 ? 'child' : 'children'} never started`;
      const evidence = [loc(d.started), loc(d.completed)];
      if (total === null || failed === null) {
        out.push({ message: `${what} and the totals cannot account for it (total_sub_runs or failed is missing)`, evidence });
        continue;
      }
      const earlier = used > 0 ? ` − ${used} explained above` : '';
      const room = `total_sub_runs ${total} − ${started.length} started${earlier} = ${unexplained} ${unexplained >= missing ? '≥' : '<'} ${missing} missing`;
      const cover = `failed ${failed} − ${failedWithEvents} journaled ${failedWithEvents === 1 ? 'failure' : 'failures'}${earlier} = ${failedLeft} ${failedLeft >= missing ? 'covers' : 'does not cover'} ${missing === 1 ? 'it' : 'them'}`;
      if (unexplained >= missing && failedLeft >= missing) {
        unexplained -= missing;
        failedLeft -= missing;
        used += missing;
        out.push({ severity: 'info', message: `${what}; the totals account for it as a setup or launch failure without events (${room}; ${cover})`, evidence });
      } else {
        out.push({ message: `${what} and the totals do not account for it (${room}; ${cover})`, evidence });
      }
    }
    return out;
  },
};
