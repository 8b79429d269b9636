import { finalStatus, isPausedStatus, isSuccess } from '../../model/delegation.js';
import { hasSubRunEvents, journaledChildren, lastMarker, loc, pauseThatHeld, unexplainedSequentialStop } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';
import { shortList } from '../short-list.js';

export const sequentialStoppedEarly: Check = {
  meta: {
    id: 'sequential-stopped-early',
    category: 'trace',
    defaultSeverity: 'info',
    description: 'A sequential delegation ended before its later stages started (stop_on_success, unfinished or cancelled stage, or a stop nothing explains).',
    symptom: 'No child runs',
    docs: {
      why: 'Sequential delegations legitimately stop after the first success when stop_on_success is set, which is not journaled; this says which stages never ran and the probable reason, so nobody mistakes it for a lost child. A stop after a failed stage (which should fall through to the next) that the totals do not explain either is said so, still as information: journal-format.md §9 never makes a sequential stop an error.',
      example: 'delegation_started sequential agent_ids ["quick-fixer","deep-fixer","escalation"]\nquick-fixer failed, deep-fixer completed\ndelegation_completed total_sub_runs 2',
      reportLine: '- [info] sequential-stopped-early: stopped after stage 2 of 3 (deep-fixer, completed); escalation never started: probably stop_on_success, which is not journaled (s.jsonl:20, s.jsonl:24, s.jsonl:25)',
      fix: 'Nothing to fix when the stop was intended; otherwise check the stop_on_success setting and why the next stage was not admitted.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    if (d.pattern !== 'sequential' || !d.completed || !d.started || !hasSubRunEvents(d)) return out;
    const started = journaledChildren(d); // a stage whose start line was lost still ran: not a stop
    const ids = d.started.agentIds;
    if (started.length === 0 || started.length >= ids.length) return out;
    // Never an error (journal-format.md §9): a stop nothing explains is said so, still as info.
    const unexplained = unexplainedSequentialStop(d) !== null;
    const last = started[started.length - 1];
    const status = finalStatus(last.final);
    const completed = last.final.completions.length > 0; // a completion with no status (null) still ended the stage
    const pause = pauseThatHeld(last.final); // paused, then resumed and failed: it falls through
    const cancel = lastMarker(last.final, 'cancel_requested');
    // Totals that count more runs than journaled any event: the next stage was counted, so it was
    // admitted and failed to start; stop_on_success would not have counted it.
    // Retries are not counted in the totals (journal-format §9): compare with stages, not runs.
    const counted = d.completed.totalSubRuns;
    const countedUnstarted = typeof counted === 'number' && counted > started.length;
    // Success as the engine counts it: `completed` with an error failed, and falls through (§2.5, §9).
    const succeeded = isSuccess(last.final);
    const reason =
      succeeded && countedUnstarted
        ? `total_sub_runs ${counted} counts more stages than the ${started.length} that started, so the next stage probably failed admission or start (not stop_on_success, which would not count it)`
        : succeeded
        ? 'probably stop_on_success, which is not journaled'
        : // an `unfinished` join names no stage: it explains this stop only when this stage never settled
          pause || isPausedStatus(status) || (d.completed.aggregatedStatus === 'unfinished' && !completed)
          ? 'the stage was left unfinished (paused or waiting), which stops a sequential delegation'
          : status === 'cancelled' || cancel
            ? 'the stage was cancelled, which stops a sequential delegation'
            : !completed
              ? 'the stage never settled'
              : unexplained
                ? `a failed stage falls through to the next, and total_sub_runs ${counted} counts no start failure of it: nothing in the journal explains the stop (an agent that vanished, or a start failure the totals missed)`
                : 'a failed stage falls through to the next, so the next stage probably failed admission or start (counted in the totals if so)';
    // The line that settled (or left open) the last stage, so the reader sees why it stopped there.
    const settled = last.final.completions.at(-1) ?? pause ?? cancel ?? last.final.starts[0];
    const never = neverStarted(ids, started.map((c) => c.agentId));
    out.push({
      message: `stopped after stage ${started.length} of ${ids.length} (${last.agentId ?? '?'}, ${completed ? (status ?? 'status ?') : 'no completion'}); ${shortList(never)} never started: ${reason}`,
      evidence: [loc(d.started), loc(settled), loc(d.completed)],
      runs: [last.final.runId],
    });
    return out;
  },
};

/** The agent_ids entries no started stage stands for (stages out of order are agent-set-mismatch's). */
function neverStarted(ids: string[], startedAgents: (string | null)[]): string[] {
  const left = [...startedAgents];
  return ids.filter((id) => {
    const at = left.indexOf(id);
    if (at === -1) return true;
    left.splice(at, 1);
    return false;
  });
}
