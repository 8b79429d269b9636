import { testCheck } from './harness.js';

const RUNNING = '34145727-59b3-4648-afde-4931be598fcf.jsonl';

testCheck('delegation-incomplete', {
  invalid: [
    {
      // Model admission failed: no start, no completion, and the session went on (turn_error, turn, session_end).
      fixture: 'trigger-engine-error.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: '4f5fbff6-8a1e-4c1e-84a4-9f1f9175782d',
          messageIncludes: ['no delegation_completed: engine error', 'goes on to line 11 after its last event'],
          evidenceLines: ['trigger-engine-error.jsonl:6', 'trigger-engine-error.jsonl:11'],
          // Err on a child's startup or admission (journal-format §8.10): the delegation had passed validation.
          symptom: 'No child runs',
        },
      ],
    },
    {
      // The session's first lines were archived (.jsonl.gz) and it went on in its plain journal:
      // the session went on, whichever file holds the delegation's own lines (not "crashed").
      fixture: 'trigger-engine-error-archived',
      findings: [
        {
          severity: 'warning',
          messageIncludes: ['no delegation_completed: engine error (its session goes on in', '5d2e8f41-3a6b-4c90-b7d1-e2f4a6c8b0d3.jsonl to line 3, after its last event'],
          evidenceLines: ['5d2e8f41-3a6b-4c90-b7d1-e2f4a6c8b0d3.jsonl.gz:2', '5d2e8f41-3a6b-4c90-b7d1-e2f4a6c8b0d3.jsonl:3'],
          symptom: 'No child runs',
        },
      ],
    },
    {
      // Its session file went on 25 s after its newest event (in delegation.jsonl), then a write was
      // torn: the whole lines before the torn one show the session went on (was "crashed").
      fixture: 'trigger-engine-error-torn-tail',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error (', evidenceLines: ['delegation.jsonl:1', 'sess-32.jsonl:2'] }],
    },
    {
      // The look-alike: the session file's whole lines after its start are older than its newest event.
      fixture: 'trigger-crashed-torn-tail-earlier-line',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: crashed (its events are the last whole lines of their files; a line cut short follows' }],
    },
    {
      // The archive goes on with another delegation after a1c3's first lines, but a1c3 went on in the
      // plain journal, whose last lines it wrote: as in one file, crashed (was engine error).
      fixture: 'trigger-crashed-archived-then-live',
      findings: [
        {
          severity: 'warning',
          delegation: 'a1c3e5f7-0b2d-4e6f-8a1c-3e5f7a9b1d30',
          messageIncludes: 'no delegation_completed: crashed (its events are the last lines of their files)',
          evidenceLines: ['6b1e0c52-8d3a-4f27-9a41-3c5e7d9f1b20.jsonl.gz:2', '6b1e0c52-8d3a-4f27-9a41-3c5e7d9f1b20.jsonl.gz:3', '6b1e0c52-8d3a-4f27-9a41-3c5e7d9f1b20.jsonl:2'],
        },
      ],
    },
    {
      // Gen A: c9e1 ends delegation.jsonl.gz and the plain delegation.jsonl goes on with d0f2: as in
      // one file, engine error (was crashed: the shared file's archive was no sibling).
      fixture: 'trigger-engine-error-shared-archived',
      findings: [
        {
          severity: 'warning',
          delegation: 'c9e1a3b5-8d0f-4a17-9c9e-1a3b5d7f9a18',
          messageIncludes: 'no delegation_completed: engine error (its session goes on in',
          evidenceLines: ['delegation.jsonl.gz:1', 'delegation.jsonl:4'],
        },
      ],
    },
    {
      // Stage 1 completed and the process died: its completion is the last line of the file.
      fixture: 'trigger-crashed.jsonl',
      findings: [
        {
          severity: 'warning',
          messageIncludes: 'no delegation_completed: crashed (its events are the last lines of their files)',
          evidenceLines: ['trigger-crashed.jsonl:4', 'trigger-crashed.jsonl:6'],
        },
      ],
    },
    {
      // Gen A: d30 started in the shared delegation.jsonl, its sub-run in sess-30.jsonl, whose last
      // line it is. delegation.jsonl goes on with d31, another parent's delegation: not d30's session.
      fixture: 'trigger-crashed-gen-a-shared-file',
      findings: [
        {
          severity: 'warning',
          delegation: 'd30',
          messageIncludes: "no delegation_completed: crashed (its session's files end with its events; ",
          evidenceLines: ['delegation.jsonl:1', 'sess-30.jsonl:1'],
        },
      ],
    },
    {
      // The same, with d31's lines in the shared delegation.jsonl a minute before the pinned now:
      // another session's recent write there does not make d30 (its session file silent since 2026) still running.
      fixture: 'trigger-crashed-gen-a-shared-file-recent',
      findings: [
        {
          severity: 'warning',
          delegation: 'd30',
          messageIncludes: "no delegation_completed: crashed (its session's files end with its events; ",
          evidenceLines: ['delegation.jsonl:1', 'sess-30.jsonl:1'],
        },
      ],
    },
    {
      // The look-alike: d30's own session file goes on 3 minutes before the pinned now: still running.
      fixture: 'trigger-still-running-gen-a-own-session-recent',
      findings: [
        {
          severity: 'warning',
          delegation: 'd30',
          messageIncludes: 'no delegation_completed: still running (the newest line in its files is 180s old)',
          evidenceLines: ['delegation.jsonl:1', 'sess-30.jsonl:2'],
        },
      ],
    },
    {
      // fork tester×2 in the v1 layout, newest line 4 minutes before the pinned now.
      fixture: 'trigger-still-running',
      findings: [
        {
          severity: 'warning',
          messageIncludes: 'no delegation_completed: still running (the newest line in its files is 243s old)',
          evidenceLines: [`${RUNNING}:4`, `${RUNNING}:8`],
          symptom: 'Missing UI progress',
        },
      ],
    },
    {
      // The same journal once --stale-after is shorter than its silence: lines followed its last event.
      fixture: 'trigger-still-running',
      options: { staleAfterMs: 120_000 },
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error' }],
    },
    {
      // Err after a start failure: the started children were settled as cancelled.
      fixture: 'missing-start/trap-no-completion.jsonl',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error', evidenceLines: ['trap-no-completion.jsonl:4', 'trap-no-completion.jsonl:13'], symptom: 'No child runs' }],
    },
    {
      // Every agent's child started, then all were cancelled and the engine returned Err: the
      // cancellation path is where to look, not a child that never ran.
      fixture: 'trigger-engine-error-all-cancelled.jsonl',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error', evidenceLines: ['trigger-engine-error-all-cancelled.jsonl:4', 'trigger-engine-error-all-cancelled.jsonl:15'], symptom: 'Cancellation leak' }],
    },
    {
      // The same with one child's start line lost: its cancelled completion says it ran.
      fixture: 'trigger-engine-error-all-cancelled-start-lost.jsonl',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error', symptom: 'Cancellation leak' }],
    },
    {
      // The same for a fork (agent scan×3: three children of one agent, all started, all cancelled).
      fixture: 'trigger-engine-error-fork-all-cancelled.jsonl',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error', symptom: 'Cancellation leak' }],
    },
    {
      // agent_ids [scan-eu, scan-eu, scan-us]: the second scan-eu never started (counted, not listed).
      fixture: 'trigger-engine-error-repeated-agent-not-started.jsonl',
      findings: [{ severity: 'warning', messageIncludes: 'no delegation_completed: engine error', symptom: 'No child runs' }],
    },
    {
      // An archive cut short (as a crash while archiving leaves it) after the delegation's last
      // readable lines: what followed is not known, so not "crashed" (the session had ended).
      fixture: 'trigger-archive-cut-short',
      findings: [{ severity: 'warning', delegation: 'b7a2e915-3c6d-4f80-9e14-5d2c8a7b6f31', messageIncludes: ['no delegation_completed: journal cut short (', 'could not be read after line 13 (corrupt gzip data'], evidenceLines: ['5e0b9c4a-2f7d-4c1e-b8a3-91d6f20c7e45.jsonl.gz:6', '5e0b9c4a-2f7d-4c1e-b8a3-91d6f20c7e45.jsonl.gz:12'] }],
    },
  ],
  valid: [
    'missing-start/trap-no-subrun-events.jsonl',
    // started and completed in different files (request vs tracker session).
    'orphan-event/trap-start-in-other-file',
    'retry-unlinked/trap-gen-a-order',
    // No delegation_started at all: that is orphan-event's business.
    'orphan-event/trigger-start-not-read',
  ],
});
