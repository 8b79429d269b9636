import { testCheck } from './harness.js';

testCheck('late-result', {
  invalid: [
    {
      // Gen C fan_out: build-mac was still running at the join (line 8, unfinished); it completes at line 9.
      fixture: '../join/late-result.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-build-matrix',
          messageIncludes: [
            'sub-run sr-mac (agent build-mac) completed at 2026-03-12T14:01:15.000000000+00:00 (status completed)',
            '12.5s after the join at 2026-03-12T14:01:02.500000000+00:00',
            'its result was not in the join',
          ],
          evidenceLines: ['late-result.jsonl:8', 'late-result.jsonl:9'],
        },
      ],
    },
    {
      // The seed-000 opening run: APAC lands at 25 s, the join was made at 20 s.
      fixture: '../join/seed-000-any-artifact.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'deleg-r42',
          messageIncludes: ['sub-run r42-apac (agent apac)', '5s after the join at 2026-03-10T10:00:20.000000000+00:00'],
          evidenceLines: ['seed-000-any-artifact.jsonl:18', 'seed-000-any-artifact.jsonl:19'],
        },
      ],
    },
    {
      // Completions written after the join with a later ts: late by the times (CHECKS.md compares
      // them strictly), but the message says what the aggregate and the gap tell.
      fixture: '../join/late-result-inverted.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-inverted',
          messageIncludes: ['0.000001s after the join', 'yet its output is in the aggregate, so the join had it'],
          evidenceLines: ['late-result-inverted.jsonl:6', 'late-result-inverted.jsonl:7'],
        },
        {
          severity: 'warning',
          delegation: 'd-inverted-no-aggregate',
          messageIncludes: ['0.0004s after the join', 'within a millisecond, as concurrent writers invert timestamps: it may have been in the join'],
          evidenceLines: ['late-result-inverted.jsonl:12', 'late-result-inverted.jsonl:13'],
        },
        {
          severity: 'warning',
          delegation: 'd-late-but-joined',
          // Seconds apart: recorded late (Gen B writes completions after the batch), or the text came from elsewhere.
          messageIncludes: ['3s after the join', 'yet its output is in the aggregate: the join had it and the completion was recorded late (some engines write completions after the batch), or the aggregate took the same text from elsewhere'],
          evidenceLines: ['late-result-inverted.jsonl:18', 'late-result-inverted.jsonl:19'],
        },
      ],
    },
    {
      // beta's "ok" comes 15 s after the join, whose aggregate "ok" is alpha's: beta was not in it.
      fixture: '../join/late-result-same-output.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-same-output',
          messageIncludes: ['15s after the join', 'its result was not in the join'],
          evidenceLines: ['late-result-same-output.jsonl:5', 'late-result-same-output.jsonl:6'],
        },
      ],
    },
  ],
  valid: [
    // Line 7 follows the join (line 6) in the file but is 1 µs earlier (ts taken before the lock);
    // line 11 is the join's own instant written with 9 fraction digits (a string compare calls it later).
    '../join/late-result-lookalike.jsonl',
    // APAC completes at the 25 s deadline itself.
    '../join/seed-000-deadline-25s.jsonl',
    // tester completed before the join (line 8) and was re-completed as failed 10 s after it
    // (line 10): it had settled by the join, so it was in it (duplicate-completion reports the pair).
    'trap-recompleted-after-join.jsonl',
  ],
});
