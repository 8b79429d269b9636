import { testCheck } from './harness.js';

testCheck('sequential-stopped-early', {
  invalid: [
    {
      // Stage a completed with an error: a failure (is_success), which falls through to b; not stop_on_success.
      fixture: 'trigger-completed-with-error.jsonl',
      findings: [{ severity: 'info', messageIncludes: 'stopped after stage 1 of 2 (a, completed); b never started: a failed stage falls through to the next, and total_sub_runs 1 counts no start failure of it' }],
    },
    {
      // Stage 1's Gen A completion says waiting (not terminal): left unfinished, as missing-completion says.
      fixture: 'trigger-waiting-stage.jsonl',
      findings: [{ severity: 'info', messageIncludes: 'stopped after stage 1 of 3 (a, waiting); b, c never started: the stage was left unfinished (paused or waiting)' }],
    },
    {
      // Stage 1's completion has no status: it settled, as a failure (the Limits line says so), not "never settled".
      fixture: 'trigger-no-status-stage.jsonl',
      findings: [{ severity: 'info', messageIncludes: 'stopped after stage 1 of 3 (a, status ?); b, c never started: a failed stage falls through to the next' }],
    },
    {
      fixture: 'trigger-stop-on-success.jsonl',
      findings: [
        {
          severity: 'info',
          delegation: 'c651dd2f-998d-488b-820b-7b833fddbfa5',
          messageIncludes: ['stopped after stage 2 of 3 (sonnet-fixer, completed); opus-fixer never started', 'probably stop_on_success, which is not journaled'],
          // started, the last stage's completion, delegation_completed
          evidenceLines: ['trigger-stop-on-success.jsonl:6', 'trigger-stop-on-success.jsonl:12', 'trigger-stop-on-success.jsonl:13'],
        },
      ],
    },
    {
      // The same stop after the second stage was retried (verification): total_sub_runs 2 leaves
      // the retry out, so two stages were counted, both started: still stop_on_success.
      fixture: 'trigger-stop-on-success-after-retry.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: ['stopped after stage 2 of 3 (sonnet-fixer, completed); opus-fixer never started', 'probably stop_on_success, which is not journaled'],
          evidenceLines: ['trigger-stop-on-success-after-retry.jsonl:6', 'trigger-stop-on-success-after-retry.jsonl:15', 'trigger-stop-on-success-after-retry.jsonl:16'],
        },
      ],
    },
    {
      // As above, with total_sub_runs 3: two stages started (the retry folded into its stage), so
      // the third was counted without starting. Counting runs (3, with the retry) hid it.
      fixture: 'trigger-counted-stage-after-retry.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: ['opus-fixer never started: total_sub_runs 3 counts more stages than the 2 that started'],
          evidenceLines: ['trigger-counted-stage-after-retry.jsonl:6', 'trigger-counted-stage-after-retry.jsonl:15', 'trigger-counted-stage-after-retry.jsonl:16'],
        },
      ],
    },
    {
      // The same stop, but total_sub_runs 3 counts the stage that never started: it was admitted
      // and failed to start (journal-format §9), which stop_on_success would not count.
      fixture: 'trigger-counted-stage-never-started.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: ['opus-fixer never started: total_sub_runs 3 counts more stages than the 2 that started, so the next stage probably failed admission or start (not stop_on_success'],
          evidenceLines: ['trigger-counted-stage-never-started.jsonl:6', 'trigger-counted-stage-never-started.jsonl:12', 'trigger-counted-stage-never-started.jsonl:13'],
        },
      ],
    },
    {
      fixture: 'trigger-stop-after-pause.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: ['stopped after stage 1 of 2 (migrator, no completion); verifier never started', 'left unfinished (paused or waiting)'],
          // the pause marker is what left the stage open
          evidenceLines: ['trigger-stop-after-pause.jsonl:4', 'trigger-stop-after-pause.jsonl:7', 'trigger-stop-after-pause.jsonl:8'],
        },
      ],
    },
    {
      fixture: 'trigger-paused-then-failed.jsonl',
      findings: [
        {
          severity: 'info',
          // paused, then resumed and failed: the pause no longer explains the stop
          messageIncludes: ['stopped after stage 1 of 2 (migrator, failed); verifier never started', 'a failed stage falls through to the next', 'nothing in the journal explains the stop'],
          evidenceLines: ['trigger-paused-then-failed.jsonl:1', 'trigger-paused-then-failed.jsonl:4', 'trigger-paused-then-failed.jsonl:5'],
        },
      ],
    },
    {
      fixture: 'trigger-stop-after-cancel.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: ['stopped after stage 1 of 2 (indexer, cancelled); summarizer never started', 'the stage was cancelled'],
          evidenceLines: ['trigger-stop-after-cancel.jsonl:4', 'trigger-stop-after-cancel.jsonl:7', 'trigger-stop-after-cancel.jsonl:8'],
        },
      ],
    },
    {
      // A failed stage falls through to the next; that one's admission failed (counted in totals).
      fixture: 'totals-mismatch/trigger-setup-failure-info.jsonl',
      findings: [{ severity: 'info', messageIncludes: ['stopped after stage 1 of 3 (haiku-fixer, failed); sonnet-fixer, opus-fixer never started', 'failed admission or start'] }],
    },
    {
      // Stage a failed, which falls through to b; b never started and total_sub_runs 1 counts no
      // start failure. Nothing explains the stop, but journal-format.md §9: never an error.
      fixture: 'trigger-failed-stage-unexplained.jsonl',
      findings: [
        {
          severity: 'info',
          delegation: 'd-seqfail',
          messageIncludes: ['stopped after stage 1 of 3 (a, failed); b, c never started', 'total_sub_runs 1 counts no start failure of it: nothing in the journal explains the stop'],
          evidenceLines: ['trigger-failed-stage-unexplained.jsonl:1', 'trigger-failed-stage-unexplained.jsonl:3', 'trigger-failed-stage-unexplained.jsonl:4'],
        },
      ],
    },
    {
      // An unfinished join names no stage: checker settled as failed, so its stop is not "left
      // unfinished" (drafter's pause was earlier). Gen A writes the same delegation as the next fixture.
      fixture: 'trigger-unfinished-earlier-stage.jsonl',
      findings: [
        {
          severity: 'info',
          delegation: 'd-unfin-early',
          messageIncludes: ['stopped after stage 2 of 3 (checker, failed); publisher never started', 'total_sub_runs 2 counts no start failure of it: nothing in the journal explains the stop'],
          evidenceLines: ['trigger-unfinished-earlier-stage.jsonl:1', 'trigger-unfinished-earlier-stage.jsonl:5', 'trigger-unfinished-earlier-stage.jsonl:6'],
        },
      ],
    },
    {
      // The same delegation in Gen A's encoding (a `paused` completion, no `unfinished`): the same verdict.
      fixture: 'trigger-paused-earlier-stage-gen-a.jsonl',
      findings: [{ severity: 'info', delegation: 'd-unfin-early', messageIncludes: ['stopped after stage 2 of 3 (checker, failed); publisher never started', 'nothing in the journal explains the stop'] }],
    },
    {
      // a failed, then c ran in b's place (agent-set-mismatch reports the order): b is the stage
      // that never started, not c.
      fixture: 'trigger-stage-skipped.jsonl',
      findings: [{ severity: 'info', messageIncludes: 'stopped after stage 2 of 3 (c, failed); b never started' }],
    },
    {
      // The shared sample: quick-fixer failed, deep-fixer succeeded, escalation legitimately never ran.
      fixture: 'missing-start/trap-sequential-stop.jsonl',
      findings: [{ severity: 'info', messageIncludes: 'stopped after stage 2 of 3 (deep-fixer, completed); escalation never started' }],
    },
  ],
  valid: [
    // every stage ran: two failures fell through to a success
    'trap-all-stages-ran.jsonl',
    // not sequential: pipeline and fan_out never "stop early"
    'agent-set-mismatch/trap-retry-same-agent.jsonl',
    'missing-start/trigger-vanished-agent.jsonl',
    // a sequential delegation without delegation_completed is delegation-incomplete's
    'missing-completion/trigger-crashed.jsonl',
  ],
});
