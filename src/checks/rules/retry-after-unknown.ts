import { compareInstants } from '../../journal/time.js';
import type { Instant, JournalEvent, Location } from '../../journal/types.js';
import type { Delegation, SubRun } from '../../model/delegation.js';
import { delegationsByParentRun, memoPerScan } from '../../model/cross-index.js';
import { happenedAfter, isTimeoutError, loc, terminalCompletions } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

/** An earlier run whose outcome the parent cannot know: it may have done its work. */
export interface Unknown {
  run: SubRun;
  delegation: Delegation;
  /** From when the parent could see the outcome was unknown. */
  at: Instant;
  /** The event journaled at `at`, when there is one: a start at the same instant on a later line of its file came after it. */
  atEvent: JournalEvent | null;
  evidence: Location;
  why: string;
}

/** Patterns that run one child at a time: a later stage starts only after the engine moved on. */
const ONE_AT_A_TIME = new Set(['sequential', 'pipeline', 'adversarial_review']);

export const retryAfterUnknown: Check = {
  meta: {
    id: 'retry-after-unknown',
    category: 'safe',
    defaultSeverity: 'warning',
    description: 'A retry or a later run of the same agent follows a timeout or unknown outcome: side effects may repeat.',
    symptom: 'Retry loop',
    docs: {
      why:
        'At-most-once: after a timeout, or a run that started and never settled, the first attempt may still have done its work. Running the same agent again (a later stage, or the same parent run delegating to it again) without checking can apply the same side effect twice: two deployments, two emails, two charges. A fallback to a different agent, a run that started before the outcome was known (parallel children), an admission timeout (the agent never ran), and a run a verification retry replaced (the gate had its output, even when its verification_failed line is missing) are not reported.',
      example: [
        '{"type":"delegation_started","ts":"2026-03-10T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":1,"agent_ids":["deployer"],"delegation_id":"d-1","parent_run_id":"r-1","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"deployer","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-1"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:05:00.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"deployer","delegation_id":"d-1","error":"agent execution timeout: shared deadline exceeded","output_preview":null,"status":"failed","sub_run_id":"run-1"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:05:00.100000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":null,"aggregated_status":"failed","delegation_id":"d-1","failed":1,"pattern":"fan_out","succeeded":0,"total_sub_runs":1}}',
        '{"type":"delegation_started","ts":"2026-03-10T10:05:03.000000000+00:00","session_id":"s-1","metadata":{"agent_count":1,"agent_ids":["deployer"],"delegation_id":"d-2","parent_run_id":"r-1","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:05:03.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"deployer","delegation_id":"d-2","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-2"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:06:00.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"deployer","delegation_id":"d-2","error":null,"output_preview":"Deployed build 418 to production","status":"completed","sub_run_id":"run-2"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:06:00.100000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":"Deployed build 418 to production","aggregated_status":"completed","delegation_id":"d-2","failed":0,"pattern":"fan_out","succeeded":1,"total_sub_runs":1}}',
      ].join('\n'),
      reportLine:
        '- [warning] retry-after-unknown: agent deployer runs again (sub-run run-2) after sub-run run-1 of delegation d-1 ended with an unknown outcome (it failed with a timeout: "agent execution timeout: shared deadline exceeded"); side effects may repeat (at-most-once hazard) (example.jsonl:3, example.jsonl:6)',
      fix: "Give the agent's side effects an idempotency key, or check what the first attempt did before running the agent again; cancel the first attempt explicitly so it cannot finish later (cancel_tokens).",
    },
  },
  run({ delegation: d, all }) {
    const out: Report[] = [];
    // The same parent run delegating to the same agent again is the classic repeat, so siblings count too.
    const unknowns = d.parentRunId === null ? unknownsOf([d]) : unknownsByParentRun(all).get(d.parentRunId) ?? unknownsOf([d]);
    for (const run of d.runs.values()) {
      const start = run.starts[0];
      if (!start?.time || !run.agentId) continue;
      const prior = latestUnknownBefore(unknownsOfAgent(unknowns, run.agentId), run, start as JournalEvent & { time: Instant });
      if (!prior) continue;
      const where = prior.delegation === d ? '' : ` of delegation ${prior.delegation.key}`;
      out.push({
        message: `agent ${run.agentId} runs again (sub-run ${run.runId}) after sub-run ${prior.run.runId}${where} ended with an unknown outcome (${prior.why}); side effects may repeat (at-most-once hazard)`,
        evidence: [prior.evidence, loc(start)],
        runs: [prior.run.runId, run.runId],
      });
    }
    return out;
  },
};

/** One agent's unknowns, newest first (ties in list order): one parent run can delegate thousands of times. */
const byAgent = new WeakMap<readonly Unknown[], Map<string, Unknown[]>>();
export function unknownsOfAgent(unknowns: readonly Unknown[], agentId: string): readonly Unknown[] {
  let m = byAgent.get(unknowns);
  if (!m) {
    m = new Map();
    for (const u of unknowns) {
      if (u.run.agentId === null) continue;
      const list = m.get(u.run.agentId);
      if (list) list.push(u);
      else m.set(u.run.agentId, [u]);
    }
    for (const list of m.values()) list.sort((a, b) => compareInstants(b.at, a.at)); // stable: ties keep list order
    byAgent.set(unknowns, m);
  }
  return m.get(agentId) ?? [];
}

/** The most recent unknown this run repeats: the first one, newest first, that its start came after. */
export function latestUnknownBefore(newestFirst: readonly Unknown[], run: SubRun, start: JournalEvent & { time: Instant }): Unknown | undefined {
  // Only unknowns at or before the start can qualify: skip the newer ones by binary search.
  let lo = 0;
  let hi = newestFirst.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareInstants(newestFirst[mid].at, start.time) > 0) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < newestFirst.length; i++) {
    const u = newestFirst[i];
    if (u.run !== run && (u.atEvent ? happenedAfter(start, u.atEvent) : compareInstants(u.at, start.time) < 0)) return u;
  }
  return undefined;
}

function unknownsOf(delegations: readonly Delegation[]): Unknown[] {
  const out: Unknown[] = [];
  for (const o of delegations) {
    const retried = retriedRuns(o);
    for (const run of o.runs.values()) {
      const u = unknownOutcome(o, run, retried);
      if (u) out.push(u);
    }
  }
  return out;
}

/** parent_run_id → the unknown outcomes of every delegation that parent run started. */
const unknownsByParentRun = memoPerScan((all) => new Map([...delegationsByParentRun(all)].map(([parent, ds]) => [parent, unknownsOf(ds)] as const)));

/** A final timeout failure, or a run that started and never settled (CHECKS.md resolved detail 7). */
function unknownOutcome(d: Delegation, run: SubRun, retried: ReadonlySet<string>): Unknown | null {
  const done = terminalCompletions(run);
  const c = done[done.length - 1];
  if (c) {
    if (c.status === 'failed' && isTimeoutError(c.error) && c.time) return { run, delegation: d, at: c.time, atEvent: c, evidence: loc(c), why: `it failed with a timeout: ${JSON.stringify(c.error)}` };
    return null;
  }
  const start = run.starts[0];
  if (!start?.time) return null;
  // A verification retry of it (delegation_retry, or a retry_of naming it) says the gate had its
  // output and rejected it: its outcome is known, the missing verification_failed line is retry-unlinked's.
  if (retried.has(run.runId)) return null;
  // A stage is given up on when the next one starts; parallel children only at the join (or the last sign of life).
  const oneAtATime = !!d.pattern && ONE_AT_A_TIME.has(d.pattern);
  const at = oneAtATime ? start.time : d.completed?.time ?? lastTime(d) ?? start.time;
  return { run, delegation: d, at, atEvent: oneAtATime ? start : null, evidence: loc(start), why: 'it started and never settled' };
}

/** Runs a verification retry names as its original: by a delegation_retry, or by a retry_of of the same agent. */
function retriedRuns(d: Delegation): Set<string> {
  const ids = new Set(d.retries.flatMap((r) => (r.originalRunId ? [r.originalRunId] : [])));
  for (const o of d.runs.values()) if (o.retryOf && d.runs.get(o.retryOf)?.agentId === o.agentId) ids.add(o.retryOf);
  return ids;
}

function lastTime(d: Delegation): Instant | null {
  for (let i = d.events.length - 1; i >= 0; i--) if (d.events[i].time) return d.events[i].time;
  return null;
}
