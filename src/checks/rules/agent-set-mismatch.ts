import { firstStart, type Child } from '../../model/delegation.js';
import { journaledChildren, loc, retriesUnknownRun } from '../../model/evidence.js';
import { allowedStartsPerAgent } from '../../model/expected.js';
import type { Check, Report } from '../types.js';

/** The pattern strings the engine writes (the seed skill's pattern table). */
const ENGINE_PATTERNS = new Set(['fan_out', 'pipeline', 'sequential', 'adversarial_review', 'fork']);

export const agentSetMismatch: Check = {
  meta: {
    id: 'agent-set-mismatch',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'The started agent set, the sub-runs that ran and the pattern disagree.',
    symptom: 'No child runs',
    docs: {
      why: 'The agents that ran are not the agents the delegation asked for: a child ran under the wrong agent, an agent ran more often than its pattern allows, or a sequential stage ran out of order. The pattern itself is verified too: delegation_completed naming another pattern than delegation_started is an error, a pattern the engine does not emit a warning (its expected children cannot be checked).',
      example: '{"type":"delegation_started",…,"metadata":{"agent_count":2,"agent_ids":["coder","reviewer"],…}}\n{"type":"delegation_sub_run_started",…,"metadata":{"agent_id":"tester",…}}',
      reportLine: '- [error] agent-set-mismatch: sub-run 5f1… ran agent tester, which is not in the started agent set (coder,reviewer) (journal.jsonl:2)',
      fix: 'Check request validation and allowlists in the engine (record_sub_run, transition_state) and which agent ids the planner sent.',
    },
  },
  run({ delegation: d, expectation: e }) {
    const out: Report[] = [];
    const started = d.started;
    if (!started) return out;
    const ids = started.agentIds;
    if (d.pattern === 'fork') {
      if (!e.fork) out.push({ message: `fork agent_ids ${JSON.stringify(ids)} is not the single "<agent>×N" entry the engine writes`, evidence: [loc(started)] });
      else if (started.agentCount !== null && started.agentCount !== 1) out.push({ message: `fork agent_count is ${started.agentCount}, expected 1 for agent_ids ${JSON.stringify(ids)}`, evidence: [loc(started)] });
    } else if (started.agentCount !== null && started.agentCount !== ids.length) {
      out.push({ message: `agent_count is ${started.agentCount} but agent_ids lists ${ids.length} (${ids.join(',')})`, evidence: [loc(started)] });
    }
    // Workflow step 2: verify the expected pattern. The join names the pattern too; an unknown
    // one leaves the agent set unverifiable (only agent_count is known).
    const join = d.completed;
    if (join && join.pattern !== null && started.pattern !== null && join.pattern !== started.pattern)
      out.push({ message: `delegation_started says pattern ${started.pattern}, delegation_completed says ${join.pattern}`, evidence: [loc(started), loc(join)] });
    if (started.pattern !== null && !ENGINE_PATTERNS.has(started.pattern))
      out.push({ severity: 'warning', message: `pattern ${started.pattern} is not one the engine emits (${[...ENGINE_PATTERNS].join(', ')}): which children it expects cannot be checked`, evidence: [loc(started)] });
    const known = new Set(e.fork ? [e.fork.agent] : ids);
    for (const run of d.runs.values()) {
      const where = firstStart(run) ?? run.completions[0];
      if (!run.agentId || !where || known.size === 0 || known.has(run.agentId)) continue;
      out.push({ message: `sub-run ${run.runId} ran agent ${run.agentId}, which is not in the started agent set (${[...known].join(',')})`, evidence: [loc(started), loc(where)], runs: [run.runId] });
    }
    // Retries are folded into their child, so only original runs count as starts; so does a retry
    // whose link is broken (retry_of names no run here: retry-unlinked reports it) after a child
    // of its agent. One naming another agent's run is not a retry of its own agent: it counts.
    const roots: Child[] = [];
    const agentsSeen = new Set<string | null>();
    // A stage whose start line was lost (only its completion journaled) keeps its place in the order.
    for (const c of journaledChildren(d)) {
      if (!(agentsSeen.has(c.agentId) && retriesUnknownRun(d, c))) roots.push(c);
      agentsSeen.add(c.agentId);
    }
    const allowed = allowedStartsPerAgent(d, e);
    if (allowed) {
      const counts = new Map<string, typeof roots>();
      for (const c of roots) {
        // A child whose start line was lost ran all the same (its completion says so): it counts.
        if (!c.agentId || !known.has(c.agentId)) continue;
        const list = counts.get(c.agentId);
        if (list) list.push(c);
        else counts.set(c.agentId, [c]);
      }
      for (const [agent, cs] of counts) {
        const max = allowed.get(agent) ?? 0;
        if (cs.length <= max) continue;
        const lost = cs.filter((c) => c.attempts[0].starts.length === 0).length;
        const ran = lost === 0 ? `started ${cs.length} distinct sub-runs` : `ran ${cs.length} distinct sub-runs (${lost} with ${lost === 1 ? 'its start line' : 'their start lines'} missing)`;
        out.push({ message: `agent ${agent} ${ran}; ${d.pattern ?? 'the pattern'} allows ${max}`, evidence: [loc(started), ...cs.map((c) => loc(c.attempts[0].starts[0] ?? c.attempts[0].completions[0]))], runs: cs.map((c) => c.key) });
      }
    }
    if ((d.pattern === 'sequential' || d.pattern === 'pipeline') && roots.every((c) => c.agentId && known.has(c.agentId))) {
      const bad = roots.findIndex((c, i) => c.agentId !== ids[i]);
      if (bad !== -1) {
        const c = roots[bad];
        out.push({ message: `${d.pattern} stage ${bad + 1} started agent ${c.agentId}, but agent_ids order expects ${ids[bad] ?? '(no stage)'}`, evidence: [loc(started), loc(c.attempts[0].starts[0] ?? c.attempts[0].completions[0])], runs: [c.key] });
      }
    }
    return out;
  },
};

