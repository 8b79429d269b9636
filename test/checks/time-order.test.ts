import { testCheck } from './harness.js';

const REQUEST = '63192a66-866b-470b-90e1-ca23b0f9f597.jsonl';
const TRACKER = '95d8e38e-a7b1-46f8-8b9a-67578f949749.jsonl';

testCheck('time-order', {
  invalid: [
    {
      // The reviewer's completion is stamped 3 s before its start (and before the delegation start).
      fixture: 'trigger-completed-before-start.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'e6272493-f269-42b1-9fa4-a825645eb81e',
          messageIncludes: 'sub-run 526b1b28-e9e6-49b0-a924-c3879dcbd4be completes at 2026-03-16T10:00:17.940577856+00:00, 3s before it starts at 2026-03-16T10:00:20.940365048+00:00',
          evidenceLines: ['trigger-completed-before-start.jsonl:6', 'trigger-completed-before-start.jsonl:7'],
        },
        {
          severity: 'warning',
          messageIncludes: '1 event precedes the delegation start (2026-03-16T10:00:20.821133248+00:00) by more than the 1s clock skew allowed',
          evidenceLines: ['trigger-completed-before-start.jsonl:4', 'trigger-completed-before-start.jsonl:7'],
        },
      ],
    },
    {
      // The tracker session was written on a host whose clock is 90 s behind.
      fixture: 'trigger-event-before-start',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['4 events precede the delegation start (2026-03-17T09:00:30.884542144+00:00)', 'earliest 2026-03-17T08:59:00.954111201+00:00'],
          evidenceLines: [`${REQUEST}:4`, `${TRACKER}:2`, `${TRACKER}:3`, `${TRACKER}:4`, `${TRACKER}:5`],
        },
      ],
    },
    {
      // 400 ms behind is only early once --clock-skew is tighter than that.
      fixture: 'trap-within-clock-skew',
      options: { clockSkewMs: 100 },
      findings: [{ severity: 'warning', messageIncludes: 'precede the delegation start', evidenceLines: ['a524d5ae-d86a-4421-96cd-e87df1217f1c.jsonl:4', '7e233f68-fbc7-4245-ae21-be914c27abd4.jsonl:2', '7e233f68-fbc7-4245-ae21-be914c27abd4.jsonl:3'] }],
    },
    {
      // Parent P5 delegates the id twice; the second use's child completes 2 s before its start (and before
      // that use's start): the fault is reported on that use, not read as a late result of the first.
      fixture: 'trigger-reused-id-completion-before-start.jsonl',
      findings: [
        { severity: 'warning', delegation: 'f5f5f5f5-2222-4333-8444-555555555555#2', messageIncludes: 'sub-run ee55ff66-0077-4188-9299-330011223344 completes at 2025-11-12T10:00:08.000000000+00:00, 2.01s before it starts', evidenceLines: ['trigger-reused-id-completion-before-start.jsonl:7', 'trigger-reused-id-completion-before-start.jsonl:8'] },
        { severity: 'warning', delegation: 'f5f5f5f5-2222-4333-8444-555555555555#2', messageIncludes: '1 event precedes the delegation start', evidenceLines: ['trigger-reused-id-completion-before-start.jsonl:6', 'trigger-reused-id-completion-before-start.jsonl:8'] },
      ],
    },
  ],
  valid: [
    // File order ≠ time order: a late-flushed llm_round and out-of-order start/completion lines.
    'trap-file-order.jsonl',
    // Two hosts 400 ms apart, within the default 1 s clock skew.
    'trap-within-clock-skew',
    // The buffered llm_round of the parent turn comes after the delegation with an earlier ts.
    'retry-unlinked/trap-gen-a-order',
    { fixture: 'trigger-event-before-start', options: { clockSkewMs: 120_000 } },
  ],
});
