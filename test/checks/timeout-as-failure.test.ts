import { testCheck } from './harness.js';

testCheck('timeout-as-failure', {
  invalid: [
    {
      // An exception name is a timeout too ("TimeoutError: …").
      fixture: '../safe/timeout-as-failure-exception-name.jsonl',
      findings: [
        { severity: 'info', delegation: 'd-1', messageIncludes: 'sub-run run-0 (agent a0) failed with a timeout ("TimeoutError: operation took too long")', evidenceLines: ['timeout-as-failure-exception-name.jsonl:4'] },
        { severity: 'info', delegation: 'd-1', messageIncludes: 'sub-run run-1 (agent a1) failed with a timeout', evidenceLines: ['timeout-as-failure-exception-name.jsonl:5'] },
      ],
    },
    {
      fixture: '../safe/timeout-as-failure.jsonl',
      findings: [
        {
          severity: 'info',
          delegation: 'd-fork-deadline',
          messageIncludes: 'sub-run sr-worker-3 (agent worker) failed with a timeout ("fork child timeout: shared deadline exceeded"): the outcome is unknown, it may have run',
          evidenceLines: ['timeout-as-failure.jsonl:8'],
        },
        {
          severity: 'info',
          delegation: 'd-stage-deadline',
          messageIncludes: 'sub-run sr-checker (agent checker) failed with a timeout ("agent checker stage timeout: deadline exceeded")',
          evidenceLines: ['timeout-as-failure.jsonl:12'],
        },
      ],
    },
    {
      // The sample's quick-fixer stage (Gen B per-stage timeout).
      fixture: '../samples/astra-sample.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: 'sub-run 9e8d7c6b-5a49-4382-a1f0-e9d8c7b6a594 (agent quick-fixer) failed with a timeout ("agent quick-fixer exceeded per-stage timeout of 120s")',
          evidenceLines: ['astra-sample.jsonl:23'],
        },
      ],
    },
  ],
  valid: [
    // "sequential model admission timed out" (the agent never ran), "runtime output could not be
    // parsed" (the letters "time out" across two words), and a cancellation.
    '../safe/timeout-as-failure-lookalike.jsonl',
    // The first deployer attempt timed out (line 6) and a retry of it completed (line 9): the
    // child's final status is completed (retry-after-unknown and retry-unlinked report the retry).
    'trap-timed-out-then-retried.jsonl',
  ],
});
