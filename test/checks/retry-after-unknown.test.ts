import { testCheck } from './harness.js';

testCheck('retry-after-unknown', {
  invalid: [
    {
      // The next stage starts at the very instant the first one timed out, on the next line: after it.
      fixture: '../safe/retry-after-unknown-same-instant.jsonl',
      findings: [{ severity: 'warning', delegation: 'd-1', messageIncludes: 'agent deployer runs again (sub-run run-2) after sub-run run-1 ended with an unknown outcome', evidenceLines: ['retry-after-unknown-same-instant.jsonl:3', 'retry-after-unknown-same-instant.jsonl:4'] }],
    },
    {
      fixture: '../safe/retry-after-unknown.jsonl',
      findings: [
        {
          // The same parent run re-delegates to the deployer 3 s after its timeout (line 4 → line 7).
          severity: 'warning',
          delegation: 'd-deploy-2',
          messageIncludes:
            'agent deployer runs again (sub-run sr-deploy-2) after sub-run sr-deploy-1 of delegation d-deploy-1 ended with an unknown outcome (it failed with a timeout: "agent execution timeout: shared deadline exceeded"); side effects may repeat',
          evidenceLines: ['retry-after-unknown.jsonl:4', 'retry-after-unknown.jsonl:7'],
        },
        {
          // A pipeline's third stage is the same agent as its timed-out first stage.
          severity: 'warning',
          delegation: 'd-migrate',
          messageIncludes: 'agent migrator runs again (sub-run sr-migrate-2) after sub-run sr-migrate-1 ended with an unknown outcome',
          evidenceLines: ['retry-after-unknown.jsonl:12', 'retry-after-unknown.jsonl:15'],
        },
      ],
    },
    {
      // The first mailer run started (line 3) and never settled; the parent delegates to the mailer again.
      fixture: '../safe/retry-after-unknown-never-settled.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-notify-2',
          messageIncludes: 'agent mailer runs again (sub-run sr-mail-2) after sub-run sr-mail-1 of delegation d-notify-1 ended with an unknown outcome (it started and never settled)',
          evidenceLines: ['retry-after-unknown-never-settled.jsonl:3', 'retry-after-unknown-never-settled.jsonl:6'],
        },
      ],
    },
    {
      // Sequential: the first deployer stage started (line 5) and never settled; the engine moved on
      // to the next stage, the deployer again (line 6), long before the join. A stage's unknown
      // outcome dates from its start, not from the join.
      fixture: 'trigger-sequential-stage-never-settled.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: '1e2f3a4b-5c6d-4e7f-8a9b-0c1d2e3f4a49',
          messageIncludes: 'agent deployer runs again (sub-run 7d8e9f0a-1b2c-4d3e-9f4a-5b6c7d8e9f49) after sub-run 6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e49 ended with an unknown outcome (it started and never settled)',
          evidenceLines: ['trigger-sequential-stage-never-settled.jsonl:5', 'trigger-sequential-stage-never-settled.jsonl:6'],
        },
      ],
    },
  ],
  valid: [
    // The same instant, but journaled before the timeout: not known to follow it.
    '../safe/retry-after-unknown-same-instant-lookalike.jsonl',
    // A fan_out retry journaled while its original had not settled: silent. delegation_retry is a
    // verification retry (journal-format §4), so the engine had the first output and rejected it;
    // the missing verification_failed mark is retry-unlinked's finding, as CHECKS.md folds it.
    '../safe/retry-after-unknown-retried-unsettled.jsonl',
    // The same retry in a sequential delegation, where the retry starts after its original's start
    // (a stage is given up on at its start): still silent, the retry says the gate had its output.
    'trap-sequential-retried-unsettled.jsonl',
    // The same retry with the original marked verification_failed first.
    '../safe/retry-after-unknown-retried-lookalike.jsonl',
    // A fallback to another agent after a timeout; an admission timeout then the same agent; a clean
    // failure then the same agent; fork children that all started before the shared deadline expired.
    '../safe/retry-after-unknown-lookalike.jsonl',
    // The sample: quick-fixer times out and deep-fixer (another agent) takes over.
    '../samples/astra-sample.jsonl',
  ],
});
