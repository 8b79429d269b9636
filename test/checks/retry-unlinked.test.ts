import { testCheck } from './harness.js';

testCheck('retry-unlinked', {
  invalid: [
    {
      // a2 (agent a) names b1, agent b's run, as its original: a retry runs the agent it replaces.
      fixture: 'agent-set-mismatch/trigger-retry-of-another-agents-run.jsonl',
      findings: [{ severity: 'error', delegation: 'd-x-1', messageIncludes: 'sub-run a2 (agent a) has retry_of b1, a run of agent b: a retry runs the same agent', evidenceLines: ['trigger-retry-of-another-agents-run.jsonl:8', 'trigger-retry-of-another-agents-run.jsonl:3'] }],
    },
    {
      // delegation_retry's original_run_id is a run no event mentions.
      fixture: 'trigger-original-never-started.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: '2b08c391-736f-4234-b043-d67fef7af9e8',
          messageIncludes: 'delegation_retry names original run f0176f30-cf55-40b8-8d91-7421b064778d, which has no start or completion',
          evidenceLines: ['trigger-original-never-started.jsonl:9'],
        },
      ],
    },
    {
      // delegation_retry's retry_run_id never started.
      fixture: 'trigger-retry-never-started.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'delegation_retry names retry run 4286f30c-cc95-4ff5-8014-6dc2bb4a36cf, which never started',
          evidenceLines: ['trigger-retry-never-started.jsonl:10'],
        },
      ],
    },
    {
      fixture: 'trigger-retry-of-missing.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'retry run c2515d4e-faa2-42f7-912b-573c0b11defe starts with retry_of null, but delegation_retry says it retries 6dea367f-1e08-4e70-b4fd-1140607c3aaa',
          evidenceLines: ['trigger-retry-of-missing.jsonl:10', 'trigger-retry-of-missing.jsonl:12'],
        },
      ],
    },
    {
      // retry_of names the reviewer's run instead of the coder original.
      fixture: 'trigger-retry-of-elsewhere.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'retry run 11b97ec6-6982-484d-9401-4d6434b146dc starts with retry_of d47a81f5-24a0-4c90-ab92-296f9f57e5da, but delegation_retry says it retries 84cb6e28-2532-4f11-81d1-882e42ad077a',
          evidenceLines: ['trigger-retry-of-elsewhere.jsonl:10', 'trigger-retry-of-elsewhere.jsonl:12'],
        },
      ],
    },
    {
      // No delegation_retry, and retry_of names a run nobody journaled.
      fixture: 'trigger-retry-of-unknown-run.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'sub-run 78b8ddba-9496-4ae9-8396-a4150eb78be9 has retry_of 79f5783e-5711-4e01-ba3d-e1513b51edf0, an unknown run',
          evidenceLines: ['trigger-retry-of-unknown-run.jsonl:11'],
        },
      ],
    },
    {
      fixture: 'trigger-original-not-verification-failed.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'original run 0a637c84-f406-449b-ab37-0a72f83ce6f5 of retry af582935-f4f5-4c09-afcb-17b16e904989 is not marked verification_failed (statuses: failed)',
          evidenceLines: ['trigger-original-not-verification-failed.jsonl:10', 'trigger-original-not-verification-failed.jsonl:11'],
        },
      ],
    },
    {
      // Not cut short by a stop: after the retry the engine went on (the reviewer's child ran), and no join came.
      fixture: 'trigger-retry-never-started-engine-went-on.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'delegation_retry names retry run e4e4e4e4-5f5f-4060-b171-828282828282, which never started', evidenceLines: ['trigger-retry-never-started-engine-went-on.jsonl:4'] }],
    },
    {
      // Cut short by a stop, but the original it names was never journaled before it: that is not the stop's doing.
      fixture: 'trigger-original-unknown-before-crash.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'delegation_retry names original run d3d3d3d3-4e4e-4f5f-a060-717171717171, which has no start or completion', evidenceLines: ['trigger-original-unknown-before-crash.jsonl:4'] }],
    },
    {
      // The retry's start has the retry's very ts, in the tracker's file: written after it, so not cut short.
      fixture: 'trigger-retry-start-same-ts-other-file',
      findings: [{ severity: 'error', messageIncludes: 'retry run e4e4e4e4-5f5f-4060-b171-828282828282 starts with retry_of null' }],
    },
    {
      // The original's verification_failed completion was never written.
      fixture: 'missing-completion/trap-retried-original.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'is not marked verification_failed (statuses: none)', evidenceLines: ['trap-retried-original.jsonl:7'] }],
    },
  ],
  valid: [
    // Gen B order: retry, verification_failed original, retry start with retry_of (v1 layout).
    'trap-gen-b-order',
    // Gen A order: completed, then a second verification_failed completion of the same run;
    // started/retry/completed in delegation.jsonl, sub-run events in the session file.
    'trap-gen-a-order',
    // A chain of three attempts and gate exhaustion link cleanly too.
    'retry-attempt-gap/trigger-chain-too-long.jsonl',
    'retry-attempt-gap/trap-gate-exhausted.jsonl',
    'duplicate-completion/trigger-gen-a-recompleted.jsonl',
    // The engine stopped mid-retry, no join: a torn line where the original's verification_failed
    // was being written, then a restart; or that completion written and the restart before the
    // retry's start. delegation-incomplete reports the stop; the gate's wiring is not at fault.
    'trap-crash-mid-retry.jsonl',
    'trap-crash-before-retry-start.jsonl',
    // The same, with the first child's start (stamped 4 s before the retry) written after it: time order, not file order.
    'trap-crash-earlier-line-written-after.jsonl',
  ],
});
