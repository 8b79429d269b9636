import { testCheck } from './harness.js';

testCheck('totals-mismatch', {
  invalid: [
    {
      // One id, two parent runs: p1's join (2/0/2) counts a stage that never started (its setup
      // failure, no events), p2's (3/0/3) a paused run. Each join goes to its own use (a started,
      // unsettled run counts as failed, as the engine counts it): only p1's arithmetic, as info.
      fixture: 'trigger-reused-id-join-with-paused-and-unjournaled-runs.jsonl',
      findings: [{ severity: 'info', delegation: 'dX', messageIncludes: 'total_sub_runs 2 = 1 journaled child + 1 without events (setup or launch failures), counted in failed (1 + 1 = 2)' }],
    },
    {
      // Gen B: the retried original was counted as a third result (total 3, failed 1).
      fixture: 'trigger-retry-counted.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: '59127f9a-8230-4e5e-89f4-a6da6433685a',
          messageIncludes: [
            'total_sub_runs is 3 but 2 children were journaled (retries folded) and every expected child started, so 1 extra result is unexplained',
            'retried original ab284fdb-8479-4d57-a68e-ac98aa06b867 must not be counted',
          ],
          // The join, and the retried original the message names (its verification_failed completion).
          evidenceLines: ['trigger-retry-counted.jsonl:12', 'trigger-retry-counted.jsonl:8'],
        },
      ],
    },
    {
      // tester failed, yet the totals say 3 succeeded.
      fixture: 'trigger-failure-counted-as-success.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: ['succeeded is 3 but 2 children succeeded (completed without error)', 'failed is 0 but 1 result did not succeed'],
          // The join, and the child it counted as a success: tester's failed completion.
          evidenceLines: ['trigger-failure-counted-as-success.jsonl:14', 'trigger-failure-counted-as-success.jsonl:13'],
        },
      ],
    },
    {
      fixture: 'trigger-success-counted-as-failure.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: ['succeeded is 1 but 2 children succeeded', 'failed is 1 but 0 results did not succeed'],
          // The join, and the children that succeeded (one of them was counted as failed).
          evidenceLines: ['trigger-success-counted-as-failure.jsonl:12', 'trigger-success-counted-as-failure.jsonl:10', 'trigger-success-counted-as-failure.jsonl:11'],
        },
      ],
    },
    {
      // Sequential: stage 2's model admission failed with no events; the totals count it. Info.
      fixture: 'trigger-setup-failure-info.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: 'total_sub_runs 2 = 1 journaled child + 1 without events (setup or launch failures), counted in failed (1 + 1 = 2)',
          evidenceLines: ['trigger-setup-failure-info.jsonl:7'],
        },
      ],
    },
    {
      // fork tester×4 with a launch failure: 3 + 1 = 4, failed 0 + 1 = 1.
      fixture: 'missing-start/trigger-setup-failure-info.jsonl',
      findings: [{ severity: 'info', messageIncludes: 'total_sub_runs 4 = 3 journaled children + 1 without events (setup or launch failures), counted in failed (0 + 1 = 1)' }],
    },
    {
      // An unlinkable retry makes the coder look like two children.
      fixture: 'retry-unlinked/trigger-retry-of-unknown-run.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: [
            'total_sub_runs is 2 but 3 children were journaled',
            'a retry that could not be folded counts as its own child: 78b8ddba-9496-4ae9-8396-a4150eb78be9 (retry_of 79f5783e-5711-4e01-ba3d-e1513b51edf0) (see retry-unlinked)',
            'failed is 0 but 1 result did not succeed',
          ],
        },
      ],
    },
  ],
  valid: [
    // One id reused from another session by another parent after the first use ended in an Err:
    // the second session's join is not the first use's (a start and its join share a session).
    'trap-reused-id-other-session',
    // Two concurrent fan_out uses of one id: a join of total 1 is not the use that already started 3 runs.
    'trap-reused-id-join-over-total.jsonl',
    // One id started by two parent runs a second apart, both completions after every run settled:
    // each join goes to the use whose outputs make its aggregate (not to the later start) …
    'trap-reused-id-join-by-aggregate.jsonl',
    // … or, with no aggregate (sequential), to the use whose settled runs its totals count.
    'trap-reused-id-join-by-totals.jsonl',
    // A success journaled 0.4 ms after a join that did not count it (1 succeeded, its output not in
    // the aggregate): within the window either reading holds, and this one fits the totals.
    'trap-success-just-after-join-not-counted.jsonl',
    // A child whose completion is written just after the join (1 µs, 0.4 ms) or whose output is in
    // the aggregate was counted by the join: its totals are right (journal-format.md §8.1).
    '../join/late-result-inverted.jsonl',
    // A late result whose output ("ok") the join holds from a run that had settled: not counted, totals right.
    '../join/late-result-same-output.jsonl',
    // A completed run with "error": "" is counted failed, as the engine's is_success counts it.
    '../safe/silent-failure-empty-error.jsonl',
    // The retried original is not counted (Gen B, 3 children + 1 retry, total 3).
    'trap-retried-original-not-counted.jsonl',
    // Gen C: a paused child is counted in failed with no completion.
    'trap-paused-counted-as-failed.jsonl',
    'missing-completion/trigger-unfinished.jsonl',
    // Gen A: the gated original completed, then verification_failed; the retry's result counts.
    'retry-unlinked/trap-gen-a-order',
    // No sub-run events: nothing to compare with (a Limits line instead).
    'missing-start/trap-no-subrun-events.jsonl',
  ],
});
