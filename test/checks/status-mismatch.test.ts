import { testCheck } from './harness.js';

testCheck('status-mismatch', {
  invalid: [
    {
      fixture: 'trigger-completed-with-failure.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: 'aeeb13f7-2a00-4b80-9864-133f4467c1c7',
          messageIncludes: 'aggregated_status completed but failed=1',
          evidenceLines: ['trigger-completed-with-failure.jsonl:12'],
        },
      ],
    },
    {
      // PascalCase journal (DelegationCompleted).
      fixture: 'trigger-failed-with-success.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'aggregated_status failed but succeeded=1', evidenceLines: ['trigger-failed-with-success.jsonl:12'] }],
    },
    {
      fixture: 'trigger-partial-without-failure.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'aggregated_status partial needs successes and failures, but succeeded=2 failed=0', evidenceLines: ['trigger-partial-without-failure.jsonl:12'] }],
    },
    {
      // Every started sub-run completed, yet the delegation says unfinished: a warning.
      fixture: 'trigger-unfinished-without-paused.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: 'aggregated_status unfinished but no paused or waiting child is in evidence',
          evidenceLines: ['trigger-unfinished-without-paused.jsonl:12'],
        },
      ],
    },
    {
      // A child was paused, then resumed and settled before the join: no child was paused at the join.
      fixture: 'trigger-unfinished-paused-then-resumed.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: 'aggregated_status unfinished but no paused or waiting child is in evidence',
          evidenceLines: ['trigger-unfinished-paused-then-resumed.jsonl:15'],
        },
      ],
    },
  ],
  valid: [
    // unfinished with a paused child (SyncMarker pause, PascalCase journal).
    'trap-unfinished-paused.jsonl',
    // unfinished with a waiting child (no completion, no marker).
    'missing-completion/trigger-unfinished.jsonl',
    // Gen A: completed for zero results (vacuous truth).
    'trap-gen-a-empty-completed.jsonl',
    // partial with one of each, failed with none succeeded.
    'missing-start/trap-sequential-stop.jsonl',
    'sequential-stopped-early/trigger-stop-after-cancel.jsonl',
  ],
});
