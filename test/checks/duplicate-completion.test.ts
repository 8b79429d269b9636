import { testCheck } from './harness.js';

testCheck('duplicate-completion', {
  invalid: [
    {
      // Two writers raced: failed, then completed for the same run.
      fixture: 'trigger-conflicting-statuses.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: 'd9193afe-7d9f-4b24-a937-7d1ecd858ff1',
          messageIncludes: 'sub-run 33a99dd7-41a8-4209-b46e-4157af511438 has 2 completions with different statuses (failed, completed); the last one wins',
          evidenceLines: ['trigger-conflicting-statuses.jsonl:7', 'trigger-conflicting-statuses.jsonl:8'],
        },
      ],
    },
    {
      // Gen A: the gate re-completes the original (retry) and the retry (exhaustion): info, twice.
      fixture: 'trigger-gen-a-recompleted.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: 'sub-run e920ea6a-a758-41a7-92e9-9e5a8d79ae2d completed, then was re-completed as verification_failed by the gate (Gen A pattern)',
          evidenceLines: ['trigger-gen-a-recompleted.jsonl:6', 'trigger-gen-a-recompleted.jsonl:8'],
        },
        {
          severity: 'info',
          messageIncludes: 'sub-run 56828792-e238-405b-9a01-6572ed057a8d completed, then was re-completed as verification_failed by the gate (Gen A pattern)',
          evidenceLines: ['trigger-gen-a-recompleted.jsonl:10', 'trigger-gen-a-recompleted.jsonl:11'],
        },
      ],
    },
    {
      // PascalCase journal with two DelegationCompleted events that disagree.
      fixture: 'trigger-two-delegation-completed.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'delegation has 2 delegation_completed events that disagree (total 2, succeeded 1, failed 1, partial vs total 2, succeeded 2, failed 0, completed); the last one is used',
          evidenceLines: ['trigger-two-delegation-completed.jsonl:9', 'trigger-two-delegation-completed.jsonl:10'],
        },
      ],
    },
    {
      // The Gen A retry order seen from the retry-unlinked fixture (two files): info, not error.
      fixture: 'retry-unlinked/trap-gen-a-order',
      findings: [{ severity: 'info', messageIncludes: 'sub-run 848e38e0-4226-4cb8-909f-8b54f40f8dc4 completed, then was re-completed as verification_failed' }],
    },
  ],
  valid: [
    // The same status written twice, and two identical delegation_completed events.
    'trap-same-status-repeated.jsonl',
    // Gen B: the original gets exactly one completion.
    'retry-unlinked/trap-gen-b-order',
    // Gen A paused completion is not terminal, so it does not conflict.
    'missing-completion/trigger-gen-a-paused-completion.jsonl',
  ],
});
