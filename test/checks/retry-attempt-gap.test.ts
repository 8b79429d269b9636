import { testCheck } from './harness.js';

testCheck('retry-attempt-gap', {
  invalid: [
    {
      // The first retry is numbered 3.
      fixture: 'trigger-attempt-skipped.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: '87e7522e-0c87-4c35-aced-42b33a02607b',
          messageIncludes: 'attempts of the coder chain are numbered 3, expected 2 (2ec53eb3-5987-4f94-8b4b-fc3adff29340 → 4dd7f040-4dd8-46a5-a031-af9e98491f0f)',
          evidenceLines: ['trigger-attempt-skipped.jsonl:10'],
        },
      ],
    },
    {
      // Three attempts (2 and 3 correctly numbered) exceed the default gate of 2 total attempts.
      fixture: 'trigger-chain-too-long.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: [
            'child of agent coder ran 3 attempts (52c3406b-1e8c-4042-a2d7-6a8e298e61ea → d604e09a-081c-42c2-88b2-01a83c5f92d8 → 034a6ba7-6115-4cf1-a5ed-e29699e63406)',
            'the gate allows 2 total attempts (--max-attempts)',
          ],
          evidenceLines: ['trigger-chain-too-long.jsonl:6', 'trigger-chain-too-long.jsonl:9'],
        },
      ],
    },
    {
      // The same chain with the original's lines lost (its start and verification_failed): the
      // chain starts at retry 2, so 3 is in order, and the lost original still counts as an attempt.
      fixture: 'trigger-chain-too-long-original-lost.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: [
            'child of agent coder ran 3 attempts (52c3406b-1e8c-4042-a2d7-6a8e298e61ea (no event here) → d604e09a-081c-42c2-88b2-01a83c5f92d8 → 034a6ba7-6115-4cf1-a5ed-e29699e63406)',
            'the gate allows 2 total attempts (--max-attempts)',
          ],
          evidenceLines: ['trigger-chain-too-long-original-lost.jsonl:5', 'trigger-chain-too-long-original-lost.jsonl:7'],
        },
      ],
    },
    {
      // Only the third attempt was journaled (its delegation_retry numbers it 3): the two lost before it count.
      fixture: 'trigger-only-retry-earlier-attempts-lost.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: [
            'child of agent coder ran 3 attempts (d604e09a-081c-42c2-88b2-01a83c5f92d8 and 1 before it (no event here) → 034a6ba7-6115-4cf1-a5ed-e29699e63406)',
            'the gate allows 2 total attempts (--max-attempts)',
          ],
          evidenceLines: ['trigger-only-retry-earlier-attempts-lost.jsonl:5'],
        },
      ],
    },
  ],
  valid: [
    'trap-one-retry.jsonl',
    // Gate exhaustion after 2 attempts is within the default limit.
    'trap-gate-exhausted.jsonl',
    // A delegation_retry without `attempt`: the CLI projection defaults it to 2 (journal-format §4).
    'trap-retry-without-attempt.jsonl',
    // A gate configured for 3 attempts.
    { fixture: 'trigger-chain-too-long.jsonl', options: { maxAttempts: 3 } },
    // Only delegation_retry lines, no sub-run event: the tracker was unbound, retry checks are skipped (a Limits line).
    'trap-no-sub-run-events.jsonl',
    // Attempts 2 and 3 after a lost original are in order.
    { fixture: 'trigger-chain-too-long-original-lost.jsonl', options: { maxAttempts: 3 } },
    { fixture: 'trigger-only-retry-earlier-attempts-lost.jsonl', options: { maxAttempts: 3 } },
    'retry-unlinked/trap-gen-a-order',
    'retry-unlinked/trap-gen-b-order',
  ],
});
