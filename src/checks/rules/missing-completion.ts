import { hasSubRunEvents, loc, missingCompletionCause, terminalCompletions } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const missingCompletion: Check = {
  meta: {
    id: 'missing-completion',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'A started sub-run has no terminal completion; the message names the probable cause.',
    symptom: 'Child cannot message parent',
    symptomByCause: {
      paused: 'Pause/resume stuck',
      cancelled: 'Cancellation leak',
      // As delegation-incomplete classifies the same open delegation: one cause, one symptom.
      'still running': 'Missing UI progress',
    },
    docs: {
      why: 'A child that started but never settled is paused, cancelled without cleanup, crashed, still running, or lost. Its result is missing from the join. The cause comes from the run\'s own evidence first (a pause marker that neither a resume marker nor a second start of the run followed, or a Gen A paused completion no later start followed: paused; a cancel_requested marker: cancelled), then from the delegation\'s (it ended unfinished: paused; no delegation_completed: still running when the newest time its journals show is younger than --stale-after (its own newest event, any delegation event of its files, or the last line of a file: a turn-buffered line can end a file with an older ts; with a session file of its own, not another session\'s line in Gen A\'s shared delegation.jsonl), engine error when its session went on with whole lines in any of its journals (a partial last line, a write cut short, does not count; in a file other than the one holding its newest event, only a line stamped after that event), journal cut short when the file holding its last events could not be read past them (a damaged archive), or crashed), else unknown. CHECKS.md (resolved detail 2) lists "ended unfinished" before the cancel marker; the run\'s own marker is taken first here, since a cancel whose reconciliation runs out of budget leaves the run waiting and the delegation unfinished (journal-format §5.2).',
      example: '{"type":"delegation_sub_run_started",…,"sub_run_id":"r-2",…}\n{"type":"sync_marker",…,"metadata":{"action":"pause","run_id":"r-2"}}\n(no delegation_sub_run_completed for r-2)',
      reportLine: '- [warning] missing-completion: sub-run r-2 (agent us) started but never completed: paused (a pause marker names it) (p.jsonl:3, p.jsonl:5)',
      fix: 'Paused: resume or cancel it (resume_children_of). Cancelled: check cancel_children_of and cleanup_delegation. Crashed: look at the process log around the last line. Unknown: the tracker lost the completion.',
    },
  },
  run({ delegation: d, files, options }) {
    const out: Report[] = [];
    if (!hasSubRunEvents(d)) return out;
    for (const child of d.children) {
      const run = child.final; // earlier attempts are settled by the retry that replaced them
      if (run.starts.length === 0 || terminalCompletions(run).length > 0) continue;
      const why = missingCompletionCause(d, run, files, options.nowMs, options.staleAfterMs);
      out.push({
        severity: why.cause === 'unknown' ? 'error' : 'warning',
        message: `sub-run ${run.runId} (agent ${run.agentId ?? '?'}) started but never completed: ${why.cause} (${why.detail})`,
        evidence: [loc(run.starts[0]), ...why.evidence.filter((l) => l.file !== run.starts[0].file || l.line !== run.starts[0].line)],
        runs: [run.runId],
        symptom: missingCompletion.meta.symptomByCause?.[why.cause],
      });
    }
    return out;
  },
};
