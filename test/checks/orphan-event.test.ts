import { testCheck } from './harness.js';

const TRACKER = '099cb9b7-b94f-4c8b-98bc-a59bdf8cff8c.jsonl';

testCheck('orphan-event', {
  invalid: [
    {
      // Only the tracker's session (owner b64-dS00ODIx) was read; delegation_started is in the request session.
      fixture: 'trigger-start-not-read',
      findings: [
        {
          severity: 'warning',
          delegation: '0ec8d73b-886a-4d09-a229-bf1d7c91cb38',
          messageIncludes: [
            '4 events of delegation 0ec8d73b-886a-4d09-a229-bf1d7c91cb38 (2 delegation_sub_run_started, 2 delegation_sub_run_completed) have no delegation_started in the files read',
            'widen --sessions',
          ],
          evidenceLines: [`${TRACKER}:2`, `${TRACKER}:3`, `${TRACKER}:5`, `${TRACKER}:6`],
        },
      ],
    },
    {
      // Gen A: delegation_completed in the session file, started in an unread delegation.jsonl.
      fixture: 'trigger-completed-only.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: '1 event of delegation 402da3cf-c6f4-41ae-b4e2-5ba902960395 (1 delegation_completed) has no delegation_started in the files read',
          evidenceLines: ['trigger-completed-only.jsonl:4'],
        },
      ],
    },
  ],
  valid: [
    // The same delegation with both owner directories read.
    'trap-start-in-other-file',
    // Gen A: started/retry/completed in delegation.jsonl, sub-run events in the session file.
    'retry-unlinked/trap-gen-a-order',
    // Tracker on another host with a skewed clock, both files read.
    'time-order/trigger-event-before-start',
  ],
});
