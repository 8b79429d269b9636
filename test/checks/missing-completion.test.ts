import { testCheck } from './harness.js';

const STILL_RUNNING = 'trigger-still-running/v1/users/b64-bG9jYWw/sessions/25fe86c8-cf4b-421a-9d77-1996965c5916.jsonl';

testCheck('missing-completion', {
  invalid: [
    {
      // Gen C: sync_marker pause for doc-writer; the delegation ended unfinished.
      fixture: 'trigger-paused-marker.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd26e5a2b-252f-40eb-aceb-756fa6775a62',
          messageIncludes: 'sub-run 57ddd678-b167-44e5-95f3-fea2fb9f2676 (agent doc-writer) started but never completed: paused (a pause marker names it)',
          evidenceLines: ['trigger-paused-marker.jsonl:8', 'trigger-paused-marker.jsonl:10'],
        },
      ],
    },
    {
      // Gen A wrote the paused result as a completion with status "paused".
      fixture: 'trigger-gen-a-paused-completion.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run d1d010de-e361-483a-a048-5a7cc91f72e5 (agent writer)', 'paused (a Gen A completion says paused, which is not terminal)'],
          evidenceLines: ['trigger-gen-a-paused-completion.jsonl:6', 'trigger-gen-a-paused-completion.jsonl:8'],
        },
      ],
    },
    {
      // No marker, but the delegation ended unfinished: a waiting child.
      fixture: 'trigger-unfinished.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run 5b10ab61-2848-47e0-a9d2-5236a024f4d3 (agent deployer)', 'paused (the delegation ended unfinished)'],
          evidenceLines: ['trigger-unfinished.jsonl:7', 'trigger-unfinished.jsonl:11'],
        },
      ],
    },
    {
      fixture: 'trigger-cancel-requested.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run d2e5d363-14a1-4ccd-8ffa-484c4bd50bf2 (agent crawler)', 'cancelled (cancel was requested and no cancelled completion followed)'],
          evidenceLines: ['trigger-cancel-requested.jsonl:5', 'trigger-cancel-requested.jsonl:8'],
        },
      ],
    },
    {
      // The same cancel, and the delegation ended unfinished (the cancel's reconciliation ran out
      // of budget, journal-format §5.2): the run's own cancel marker outranks the delegation's state.
      fixture: 'trigger-cancel-unfinished.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['cancelled (cancel was requested and no cancelled completion followed)'],
          evidenceLines: ['trigger-cancel-unfinished.jsonl:5', 'trigger-cancel-unfinished.jsonl:8'],
          symptom: 'Cancellation leak',
        },
      ],
    },
    {
      // Paused, then a second delegation_sub_run_started for the same run (a resume through
      // transition_state, journal-format §5.1) and no resume marker: it was running again, so the
      // pause does not explain the missing completion; the delegation completed without it.
      fixture: 'trigger-paused-then-restarted.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'sub-run ra (agent a) started but never completed: unknown (the delegation completed without it)',
          evidenceLines: ['trigger-paused-then-restarted.jsonl:2', 'trigger-paused-then-restarted.jsonl:7'],
          symptom: 'Child cannot message parent',
        },
      ],
    },
    {
      // The look-alike: restarted first, paused after that: still paused.
      fixture: 'trigger-restarted-then-paused.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: 'sub-run ra (agent a) started but never completed: paused (a pause marker names it)',
          evidenceLines: ['trigger-restarted-then-paused.jsonl:2', 'trigger-restarted-then-paused.jsonl:5'],
        },
      ],
    },
    {
      // Newest line 3 minutes before the pinned now (2030-01-01T00:00:00Z), under the 10 min default.
      fixture: 'trigger-still-running',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run b8ea5b45-7f3f-43aa-9a1f-47e1c2d7638d (agent coder)', 'still running (the newest line in its files is 179s old)'],
          evidenceLines: [`${STILL_RUNNING}:7`, `${STILL_RUNNING}:10`],
          // As delegation-incomplete files the same open delegation.
          symptom: 'Missing UI progress',
        },
      ],
    },
    {
      // The same journal judged with a 1-minute --stale-after: stale, and lines followed its last event.
      fixture: 'trigger-still-running',
      options: { staleAfterMs: 60_000 },
      findings: [{ severity: 'warning', messageIncludes: 'started but never completed: engine error' }],
    },
    {
      // No delegation_completed, and the session went on (turn_error, another turn, session_end).
      fixture: 'trigger-engine-error.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run 22f21132-1588-4190-ac43-6eee6ccd2a8f (agent coder)', 'engine error (', 'goes on to line 12 after its last event'],
          evidenceLines: ['trigger-engine-error.jsonl:5', 'trigger-engine-error.jsonl:12'],
        },
      ],
    },
    {
      // The file ends with the sub-run start.
      fixture: 'trigger-crashed.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run 482be097-9525-4a49-a8f7-3d12fa63ab78 (agent planner)', 'crashed (its events are the last lines of their files)'],
          evidenceLines: ['trigger-crashed.jsonl:7'],
        },
      ],
    },
    {
      // The file ends in a write cut short (no newline): that fragment is not an event, so the
      // session did not go on after the start: crashed, not engine error.
      fixture: 'trigger-crashed-partial-line.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run 482be097-9525-4a49-a8f7-3d12fa63ab78 (agent planner)', 'crashed (its events are the last whole lines of their files; a line cut short follows, the write the crash interrupted)'],
          evidenceLines: ['trigger-crashed-partial-line.jsonl:7'],
        },
      ],
    },
    {
      // The session's plain journal, beside the archive holding the delegation, ends in a line cut
      // short (stamped after the delegation's last event): a write cut short, not the session going
      // on, so crashed; its one whole line is older than the delegation.
      fixture: 'trigger-crashed-sibling-partial',
      findings: [{ severity: 'warning', messageIncludes: ['sub-run r-1 (agent a)', 'crashed (its events are the last lines of their files)'], evidenceLines: ['s1.jsonl.gz:2'] }],
    },
    {
      // Its newest event is 90 s before now, though the file's last line is a turn-buffered
      // llm_round stamped 29 min earlier (journal-format §8.1): still running, its event cited.
      fixture: 'trigger-still-running-buffered.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['sub-run sb-2 (agent writer)', 'still running (the newest line in its files is 90s old)'],
          evidenceLines: ['trigger-still-running-buffered.jsonl:4', 'trigger-still-running-buffered.jsonl:5'],
        },
      ],
    },
    {
      // The delegation completed without the coder's completion and nothing explains it.
      fixture: 'trigger-unknown.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: ['sub-run 5163c343-b9fa-4d74-8ea9-cf705a4a462b (agent coder)', 'unknown (the delegation completed without it)'],
          evidenceLines: ['trigger-unknown.jsonl:5', 'trigger-unknown.jsonl:8'],
        },
      ],
    },
  ],
  valid: [
    // The original's own completion was lost, but its retry settled the child.
    'trap-retried-original.jsonl',
    // Both retry orders fold cleanly.
    'retry-unlinked/trap-gen-b-order',
    'retry-unlinked/trap-gen-a-order',
    // cancel_requested followed by a cancelled completion is settled.
    'sequential-stopped-early/trigger-stop-after-cancel.jsonl',
    // Gen A gate exhaustion: the last attempt is re-completed as verification_failed.
    'duplicate-completion/trigger-gen-a-recompleted.jsonl',
  ],
});
