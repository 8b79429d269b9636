import { compareInstants, diffMs } from '../../journal/time.js';
import type { DelegationCompletedEvent, Location, SubRunCompletedEvent } from '../../journal/types.js';
import type { Child, Delegation, SubRun } from '../../model/delegation.js';
import { hasSubRunEvents, JOIN_INVERSION_MS, journaledPerAgent, loc, settledAtJoin, succeededAtJoin, terminalCompletions } from '../../model/evidence.js';
import { aggregateContains, longEnoughForSubstring, SEPARATOR, truncatedTail, withoutTruncationMark } from '../../journal/preview.js';
import { previewsIn } from '../../model/cross-index.js';
import { delegationTree } from '../../model/group.js';
import type { Check, Report } from '../types.js';

/** The AllResults separator (coordination.rs). */

export const failedInAggregate: Check = {
  meta: {
    id: 'failed-in-aggregate',
    category: 'join',
    defaultSeverity: 'error',
    description: "The aggregate counts or contains what did not succeed (a failed child, or another run's stale output).",
    symptom: 'Wrong aggregate',
    docs: {
      why:
        'A join that counts a failed child, or publishes an artifact of a failed run or of another delegation (yesterday\'s result still in the store), delivers a wrong answer on time with no error anywhere. Two facts are checked: `succeeded` against the children that had completed without error by the join (a completion timestamped just after it, by 1 ms at most or with its output in the aggregate, was in it: concurrent writers invert timestamps), and each `\\n---\\n` segment of `aggregated_output_preview` against the output previews of runs that did not succeed or belong to another delegation (whole segments; substrings only for previews of 40+ characters; the last segment of an aggregate the journal cut at 500 characters matches the preview it is the start of, when it holds 40+ characters and no completed run\'s output starts the same way; runs of nested delegations are not compared with the outer aggregate).',
      example: [
        '{"type":"delegation_started","ts":"2026-03-09T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":1,"agent_ids":["us"],"delegation_id":"d-r41","parent_run_id":"r41","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-09T10:00:00.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"us","delegation_id":"d-r41","depth":1,"parent_run_id":"r41","retry_of":null,"status":"running","sub_run_id":"r41-us"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-09T10:00:09.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"us","delegation_id":"d-r41","error":null,"output_preview":"US price 97.5","status":"completed","sub_run_id":"r41-us"}}',
        '{"type":"delegation_completed","ts":"2026-03-09T10:00:09.200000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":"US price 97.5","aggregated_status":"completed","delegation_id":"d-r41","failed":0,"pattern":"fan_out","succeeded":1,"total_sub_runs":1}}',
        '{"type":"delegation_started","ts":"2026-03-10T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":2,"agent_ids":["eu","us"],"delegation_id":"d-r42","parent_run_id":"r42","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"eu","delegation_id":"d-r42","depth":1,"parent_run_id":"r42","retry_of":null,"status":"running","sub_run_id":"r42-eu"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.060000000+00:00","session_id":"s-1","metadata":{"agent_id":"us","delegation_id":"d-r42","depth":1,"parent_run_id":"r42","retry_of":null,"status":"running","sub_run_id":"r42-us"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:08.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"eu","delegation_id":"d-r42","error":null,"output_preview":"EU price 102","status":"completed","sub_run_id":"r42-eu"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:12.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"us","delegation_id":"d-r42","error":"US price service returned 503","output_preview":null,"status":"failed","sub_run_id":"r42-us"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:00:20.000000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":"EU price 102\\n---\\nUS price 97.5","aggregated_status":"completed","delegation_id":"d-r42","failed":0,"pattern":"fan_out","succeeded":2,"total_sub_runs":2}}',
      ].join('\n'),
      reportLine:
        '- [error] failed-in-aggregate: the aggregate contains "US price 97.5", the output of sub-run r41-us (agent us) of delegation d-r41 (parent run r41), not of this delegation; this delegation\'s own us run r42-us ended failed (example.jsonl:3, example.jsonl:10)',
      fix: 'Join only artifacts of tasks that completed in this run: check each artifact\'s task state and run id before aggregating (AggregationStrategy and aggregate_results in coordination.rs), and count only results with is_success().',
    },
  },
  run({ delegation: d, all, expectation }) {
    const join = d.completed;
    if (!join) return [];
    // Every join the parent received is checked for failed outputs, not only the last (two joins
    // that disagree are duplicate-completion's; what each one handed over is this check's).
    const joined: Report[] = [];
    const said = new Set<string>();
    for (const c of d.completions.length > 0 ? d.completions : [join])
      for (const r of joinedFailures(d, c, all))
        if (!said.has(r.message)) {
          said.add(r.message);
          joined.push(r);
        }
    return [...countedFailures(d, join, expectation.agentCounts), ...joined];
  },
};

/** `succeeded` against the children that had completed without error by the join. */
function countedFailures(d: Delegation, join: DelegationCompletedEvent, expected: ReadonlyMap<string, number> | null): Report[] {
  if (join.succeeded === null || !hasSubRunEvents(d)) return [];
  const ok = d.children.filter((c) => succeededAtJoin(c.final, join, d));
  if (join.succeeded <= ok.length) return [];
  const others = d.children.filter((c) => !ok.includes(c));
  const unstarted = neverStarted(d, expected);
  // More successes than children, each of which succeeded, and no expected child missing: nothing
  // that did not succeed was counted (totals-mismatch reports the excess).
  if (others.length === 0 && unstarted.length === 0) return [];
  return [
    {
      message: `succeeded=${join.succeeded} but only ${ok.length} ${ok.length === 1 ? 'child' : 'children'} had completed without error by the join at ${join.ts}: ${[...others.map((c) => describeAtJoin(c, join)), ...unstarted].join('; ')}`,
      evidence: [loc(join), ...others.flatMap((c) => childEvidence(c.final))],
      runs: others.map((c) => c.final.runId),
    },
  ];
}

/** Expected children that never started, by agent ("agent x: 1 expected child never started"). */
function neverStarted(d: Delegation, expected: ReadonlyMap<string, number> | null): string[] {
  if (!expected) return [];
  const started = journaledPerAgent(d); // a child with a completion but no start line is listed with the others
  const out: string[] = [];
  for (const [agent, want] of expected) {
    const missing = want - (started.get(agent) ?? 0);
    if (missing > 0) out.push(`agent ${agent}: ${missing} expected ${missing === 1 ? 'child' : 'children'} never started`);
  }
  return out;
}

function describeAtJoin(c: Child, join: DelegationCompletedEvent): string {
  const run = c.final;
  const who = `${run.agentId ?? '?'} (${run.runId})`;
  const atJoin = settledAtJoin(run, join);
  // An empty error still fails the engine's is_success (error must be absent): name it, or "completed" reads as a success.
  if (atJoin) return `${who} ${atJoin.status}${atJoin.error !== null ? ` with error ${JSON.stringify(clip(atJoin.error))}` : ''}`;
  const done = terminalCompletions(run);
  if (done.length) return `${who} was still running (it completed after the join, status ${done[done.length - 1].status})`;
  // No completion at all: still running at the join, or its completion line was lost (writes are best-effort).
  return run.starts.length ? `${who} has no completion (it was still running at the join, or its completion line was lost)` : `${who} never started`;
}

/** The line that shows the child's state: its last completion, else its start. */
function childEvidence(run: SubRun): Location[] {
  const done = terminalCompletions(run);
  if (done.length) return [loc(done[done.length - 1])];
  return run.starts.length ? [loc(run.starts[0])] : [];
}

/** Aggregate segments that are the output of a run that did not succeed, or of another delegation. */
function joinedFailures(d: Delegation, join: DelegationCompletedEvent, all: readonly Delegation[]): Report[] {
  const agg = join.aggregatedOutputPreview;
  if (typeof agg !== 'string' || agg.trim() === '') return [];
  const parts = agg.split(SEPARATOR).map((s) => s.trim());
  const segments = new Set(parts.filter(Boolean));
  const core = withoutTruncationMark;
  // What a run of this delegation completed by the join is its own output, whoever else wrote it too;
  // and a text it quotes in its own output reached the aggregate through that run.
  // A run that completed within JOIN_INVERSION_MS after the join's timestamp counts too: journal
  // timestamps invert by microseconds (late-result reports it). Seconds later, the join cannot
  // have had it: the same text in the aggregate is then another delegation's stale artifact.
  const own: string[] = [];
  for (const run of d.runs.values()) {
    const c = settledAtJoin(run, join) ?? justAfterJoin(run, join);
    if (c?.status === 'completed' && c.outputPreview?.trim()) own.push(c.outputPreview.trim());
  }
  const ownOutput = (p: string) => own.includes(p) || (longEnoughForSubstring(core(p)) && own.some((o) => o.includes(core(p))));
  const out: Report[] = [];
  const reported = new Set<string>();
  const report = (c: SubRunCompletedEvent, label: string, runId: string) => {
    const p = c.outputPreview?.trim();
    if (!p || ownOutput(p) || reported.has(p)) return;
    // Only an artifact that existed before the join can have been joined.
    if (join.time && c.time && compareInstants(c.time, join.time) > 0) return;
    reported.add(p);
    out.push({ message: `the aggregate contains ${JSON.stringify(clip(p))}, ${label}`, evidence: [loc(c), loc(join)], runs: [runId] });
  };
  // A cut last segment that a completed run's output also starts with may be that run's: it
  // proves nothing about a failed run with the same start.
  const tail = truncatedTail(agg);
  const tailMayBeOwn = tail !== null && own.some((o) => o.startsWith(tail));
  for (const run of d.runs.values()) {
    const c = finalTerminal(run);
    if (c && c.status !== 'completed' && c.outputPreview && aggregateContains(agg, c.outputPreview, !tailMayBeOwn))
      report(c, `the output of sub-run ${run.runId} (agent ${run.agentId ?? '?'}), whose final status is ${c.status}`, run.runId);
  }
  // A segment that is this delegation's own output (the last one may be cut by the journal's
  // truncation) holds nothing foreign: only the other segments are searched.
  const last = parts[parts.length - 1];
  const ownSegment = (seg: string) => own.includes(seg) || (seg === last && agg.endsWith('…') && own.some((o) => o.startsWith(core(seg))));
  const searched = [...segments].filter((seg) => !ownSegment(seg));
  if (searched.length === 0) return out;
  const tree = new Set(delegationTree(d)); // nested delegations feed the outer run legitimately
  const foreign = previewsIn(all, searched)
    .filter((ref) => !tree.has(ref.delegation))
    .sort((a, b) => newestFirst(a.completion, b.completion)); // the newest artifact is the one still in the store
  for (const ref of foreign)
    report(ref.completion, `the output of sub-run ${ref.run.runId} (agent ${ref.run.agentId ?? '?'}) of delegation ${ref.delegation.key} (parent run ${ref.delegation.parentRunId ?? '?'}), not of this delegation${staleNote(d, join, ref.run.agentId)}`, ref.run.runId);
  return out;
}

function newestFirst(a: SubRunCompletedEvent, b: SubRunCompletedEvent): number {
  if (a.time && b.time) return compareInstants(b.time, a.time) || b.fileIndex - a.fileIndex || b.line - a.line;
  return a.time ? -1 : b.time ? 1 : a.fileIndex - b.fileIndex || a.line - b.line;
}

/** When this delegation's own run of the same agent did not succeed, the foreign output stood in for it. */
function staleNote(d: Delegation, join: DelegationCompletedEvent, agentId: string | null): string {
  const states = d.children
    .filter((c) => agentId && c.final.agentId === agentId && !succeededAtJoin(c.final, join, d))
    .map((c) => {
      const s = settledAtJoin(c.final, join);
      return `${c.final.runId} ${s ? `ended ${s.status}` : 'had not completed by the join'}`;
    });
  return states.length ? `; this delegation's own ${agentId} run ${states.join(', ')}` : '';
}

function justAfterJoin(run: SubRun, join: DelegationCompletedEvent): SubRunCompletedEvent | null {
  const at = join.time;
  if (!at) return null;
  return terminalCompletions(run).find((c) => !!c.time && diffMs(c.time, at) <= JOIN_INVERSION_MS) ?? null;
}

function finalTerminal(run: SubRun): SubRunCompletedEvent | null {
  const done = terminalCompletions(run);
  return done.length ? done[done.length - 1] : null;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}
