import { loc, openDelegationCause } from '../../model/evidence.js';
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
    docs: {
      why: 'The engine writes delegation_completed only when pattern execution returns Ok. Without it the parent got an error, the process died, or the delegation is still in flight.',
      example: '{"type":"delegation_started",…}\n{"type":"delegation_sub_run_started",…}\n(end of file)',
      reportLine: '- [warning] delegation-incomplete: no delegation_completed: crashed (its events are the last lines of their files) (j.jsonl:1, j.jsonl:2)',
      fix: 'Engine error: look for startup or admission errors (missing profile, >32 fan-out agents, model admission). Crashed: the process log. Still running: wait, or use --follow.',
    },
  },
  run({ delegation: d, files, options }) {
    if (!d.started || d.completed) return [];
    const why = openDelegationCause(d, files, options.nowMs, options.staleAfterMs);
    const start = loc(d.started);
    const evidence = [start, ...why.evidence.filter((l) => l.file !== start.file || l.line !== start.line)];
    return [{ message: `no delegation_completed: ${why.cause} (${why.detail})`, evidence, runs: [...d.runs.keys()], symptom: delegationIncomplete.meta.symptomByCause?.[why.cause] } satisfies Report];
  },
};
