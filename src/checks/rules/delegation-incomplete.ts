import { finalStatus } from '../../model/delegation.js';
import { everyExpectedChildJournaled, loc, openDelegationCause } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const delegationIncomplete: Check = {
  meta: {
    id: 'delegation-incomplete',
    category: 'trace',
    defaultSeverity: 'warning',
    description: 'delegation_started has no delegation_completed (engine error, crash, or still running).',
    // It started: its children's results never reached a join (a crash, an unknown cause).
    symptom: 'Child cannot message parent',
    symptomByCause: {
      paused: 'Pause/resume stuck',
      cancelled: 'Cancellation leak',
      'still running': 'Missing UI progress',
      // The engine returned Err on a child's startup or admission (journal-format §8.10): the
      // delegation itself had passed validation, since delegation_started is written after it.
      'engine error': 'No child runs',
    },
    symptomException: 'An engine error after every expected child started (per agent, a fork\'s ×N counted; a child whose start line was lost counts by its completion) and was cancelled → *Cancellation leak*.',
    docs: {
      why: 'The engine writes delegation_completed only when pattern execution returns Ok. Without it the parent got an error, the process died, or the delegation is still in flight.',
      example: '{"type":"delegation_started",…}\n{"type":"delegation_sub_run_started",…}\n(end of file)',
      reportLine: '- [warning] delegation-incomplete: no delegation_completed: crashed (its events are the last lines of their files) (j.jsonl:1, j.jsonl:2)',
      fix: 'Engine error: look for startup or admission errors (missing profile, >32 fan-out agents, model admission). Crashed: the process log. Journal cut short: the damaged archive (a crash while archiving); its plain journal may still exist elsewhere. Still running: wait, or use --follow.',
    },
  },
  run({ delegation: d, files, options, expectation }) {
    if (!d.started || d.completed) return [];
    const why = openDelegationCause(d, files, options.nowMs, options.staleAfterMs);
    const start = loc(d.started);
    const evidence = [start, ...why.evidence.filter((l) => l.file !== start.file || l.line !== start.line)];
    // An engine error after every expected agent's child started and was cancelled is the
    // cancellation path's; with an agent that never started, it stays a child that never ran.
    // A child whose start line was lost ran too: its cancelled completion says so.
    const allCancelled = d.children.length > 0 && everyExpectedChildJournaled(d, expectation.agentCounts) && d.children.every((c) => finalStatus(c.final) === 'cancelled');
    const symptom = why.cause === 'engine error' && allCancelled ? 'Cancellation leak' : delegationIncomplete.meta.symptomByCause?.[why.cause];
    return [{ message: `no delegation_completed: ${why.cause} (${why.detail})`, evidence, runs: [...d.runs.keys()], symptom } satisfies Report];
  },
};
