import { testCheck } from './harness.js';

testCheck('duplicate-completion', {
  invalid: [
    {
      // Two joins with the same counts and status but different outputs: the parent got two answers.
      fixture: 'trigger-joins-differ-in-output.jsonl',
      findings: [{ severity: 'error', delegation: 'd-two-answers', messageIncludes: ['2 delegation_completed events that disagree', 'output "EU price 102\\n---\\nUS price 97.5" vs', 'output "EU price 102")'] }],
    },
    {
      // Two joins that differ only in their pattern: the message names them, or both would read the same.
      fixture: 'trigger-joins-differ-in-pattern.jsonl',
      findings: [{ severity: 'error', delegation: 'd-two-patterns', messageIncludes: '(fan_out: total 2, succeeded 1, failed 1, partial vs fork: total 2, succeeded 1, failed 1, partial)' }],
    },
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
      // completed, failed (a racing writer), then the gate's verification_failed: more than the Gen A
      // pair, so an error, not the info of the gate pattern.
      fixture: 'trigger-completed-failed-verification-failed.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: '8c9d0e1f-2a3b-4c4d-9e5f-9a0b1c2d3e86',
          messageIncludes: 'sub-run b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d86 has 3 completions with different statuses (completed, failed, verification_failed); the last one wins',
          evidenceLines: [
            'trigger-completed-failed-verification-failed.jsonl:6',
            'trigger-completed-failed-verification-failed.jsonl:7',
            'trigger-completed-failed-verification-failed.jsonl:9',
          ],
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
