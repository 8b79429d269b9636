import type { RetryEvent, JournalEvent } from '../../journal/types.js';
import type { Delegation } from '../../model/delegation.js';
import { compareInstants } from '../../journal/time.js';
import { hasSubRunEvents, loc } from '../../model/evidence.js';
import { placeOf } from '../../model/target.js';
import type { Check, Report } from '../types.js';

/**
 * The retry is the last the journals show of an unjoined delegation (but for its original's
 * completion): the gate's next steps (the original's verification_failed, the retry's start) were
 * never written because the engine stopped or is still writing them. delegation-incomplete says which; they are not a wiring fault.
 */
function cutShortAt(d: Delegation, retry: RetryEvent): boolean {
  if (d.completed) return false;
  // The original's completion is the gate's own next step: the engine may have stopped just after it.
  const gateStep = (e: JournalEvent) => e.type === 'delegation_sub_run_completed' && e.subRunId === retry.originalRunId;
  return !d.events.some((e) => e !== retry && !gateStep(e) && notBefore(e, retry));
}

/**
 * Whether e may have been written after the retry: later in time (journal-format.md: never file
 * order for causality; an untimed line at its place in its file), or at the same time in another
 * file. Without a place for either, a later line of the retry's file.
 */
function notBefore(e: JournalEvent, retry: JournalEvent): boolean {
  const a = placeOf(e);
  const b = placeOf(retry);
  if (!a || !b) return e.file === retry.file && e.line > retry.line;
  const c = compareInstants(a, b);
  return c > 0 || (c === 0 && (e.file !== retry.file || e.line > retry.line));
}

export const retryUnlinked: Check = {
  meta: {
    id: 'retry-unlinked',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'A verification retry cannot be folded into the child it replaces.',
    symptom: 'Retry loop',
    docs: {
      why: 'A retry must name the run it replaces (delegation_retry original → retry, retry_of on the retry start), run the same agent, and the original must be marked verification_failed; otherwise the child set, totals and chain length are guesses. A retry that is the last event of a delegation with no delegation_completed is not judged on the steps that follow it (the original marked verification_failed, the retry started): the engine stopped (or is still writing) before them, which delegation-incomplete reports.',
      example: '{"type":"delegation_retry",…,"original_run_id":"r-1","retry_run_id":"r-2",…}\n{"type":"delegation_sub_run_started",…,"sub_run_id":"r-2","retry_of":null,…}',
      reportLine: '- [error] retry-unlinked: retry run r-2 starts with retry_of null, but delegation_retry says it retries r-1 (j.jsonl:4, j.jsonl:6)',
      fix: 'Check apply_gate: the retry start must carry retry_of = original, and the original must be completed as verification_failed before the retry starts.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    if (!hasSubRunEvents(d)) return out;
    const known = (id: string | null) => !!id && !!d.runs.get(id) && (d.runs.get(id)!.starts.length > 0 || d.runs.get(id)!.completions.length > 0);
    for (const r of d.retries) {
      const retryRun = r.retryRunId ? d.runs.get(r.retryRunId) : undefined;
      const originalKnown = !!r.originalRunId && known(r.originalRunId);
      // The original runs before its retry is written: a stop after the retry does not explain it.
      if (!originalKnown) out.push({ message: `delegation_retry names original run ${r.originalRunId ?? '(none)'}, which has no start or completion`, evidence: [loc(r)], runs: [r.retryRunId ?? ''].filter(Boolean) });
      if (cutShortAt(d, r)) continue; // the gate's next steps (verification_failed, the retry's start) were never written
      if (originalKnown && r.originalRunId) {
        const original = d.runs.get(r.originalRunId)!;
        if (!original.completions.some((c) => c.status === 'verification_failed'))
          out.push({ message: `original run ${r.originalRunId} of retry ${r.retryRunId ?? '?'} is not marked verification_failed (statuses: ${original.completions.map((c) => c.status).join(',') || 'none'})`, evidence: [loc(r), ...original.completions.map(loc)], runs: [r.originalRunId] });
      }
      if (!retryRun || retryRun.starts.length === 0) {
        out.push({ message: `delegation_retry names retry run ${r.retryRunId ?? '(none)'}, which never started`, evidence: [loc(r)], runs: [r.originalRunId ?? ''].filter(Boolean) });
        continue;
      }
      const start = retryRun.starts[0];
      if (start.retryOf !== r.originalRunId)
        out.push({ message: `retry run ${retryRun.runId} starts with retry_of ${start.retryOf ?? 'null'}, but delegation_retry says it retries ${r.originalRunId ?? '(none)'}`, evidence: [loc(r), loc(start)], runs: [retryRun.runId] });
    }
    const retried = new Set(d.retries.map((r) => r.retryRunId));
    for (const run of d.runs.values()) {
      const start = run.starts[0];
      if (!start?.retryOf || retried.has(run.runId)) continue;
      if (!known(start.retryOf)) {
        out.push({ message: `sub-run ${run.runId} has retry_of ${start.retryOf}, an unknown run`, evidence: [loc(start)], runs: [run.runId] });
        continue;
      }
      const original = d.runs.get(start.retryOf)!;
      // A retry runs the agent it replaces.
      if (run.agentId && original.agentId && run.agentId !== original.agentId)
        out.push({ message: `sub-run ${run.runId} (agent ${run.agentId}) has retry_of ${start.retryOf}, a run of agent ${original.agentId}: a retry runs the same agent`, evidence: [loc(start), ...(original.starts[0] ? [loc(original.starts[0])] : [])], runs: [run.runId, start.retryOf] });
      else if (!original.completions.some((c) => c.status === 'verification_failed'))
        out.push({ message: `sub-run ${run.runId} retries ${start.retryOf}, which is not marked verification_failed`, evidence: [loc(start), ...original.completions.map(loc)], runs: [run.runId, start.retryOf] });
    }
    return out;
  },
};
