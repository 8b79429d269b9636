import { describe, expect, it } from 'vitest';
import { analyzeFixture, testCheck } from './harness.js';

testCheck('missing-start', {
  invalid: [
    {
      // 3 agents, 2 starts, total_sub_runs 2: scan-apac vanished and nothing explains it.
      fixture: 'trigger-vanished-agent.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: 'e5ece73b-4f41-4756-b52c-2c7da8a08f78',
          messageIncludes: ['agent scan-apac: 1 expected child never started and the totals do not account for it', 'total_sub_runs 2 − 2 started = 0 < 1 missing'],
          evidenceLines: ['trigger-vanished-agent.jsonl:6', 'trigger-vanished-agent.jsonl:11'],
        },
      ],
    },
    {
      // test's start line was lost but its completion shows it ran: a warning about the journal, not a child that never started.
      fixture: 'trigger-start-line-lost.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-lost-start',
          messageIncludes: 'agent test: sub-run run-test has a completion but no delegation_sub_run_started: the child was journaled, and its start line is missing (a failed journal write drops an event silently)',
          evidenceLines: ['trigger-start-line-lost.jsonl:2', 'trigger-start-line-lost.jsonl:5', 'trigger-start-line-lost.jsonl:6'],
        },
      ],
    },
    {
      // fork w×3: w2 has only a completion (a lost start line), w3 nothing; the totals (3/2/1) leave room for w3 alone.
      fixture: 'trigger-fork-one-start-lost-one-never-started.jsonl',
      findings: [
        { severity: 'warning', messageIncludes: 'agent w: sub-run w2 has a completion but no delegation_sub_run_started' },
        { severity: 'info', messageIncludes: ['agent w: 1 expected child never started; the totals account for it', 'total_sub_runs 3 − 1 started − 1 without a start line = 1 ≥ 1 missing'] },
      ],
    },
    {
      // A pipeline cancelled at stage b, whose start line was lost: c never starting is the cancel's doing (info), b's lost line a warning.
      fixture: 'trap-pipeline-cancelled-stage-start-lost.jsonl',
      findings: [
        { severity: 'warning', messageIncludes: 'agent b: sub-run b1 has a completion but no delegation_sub_run_started' },
        { severity: 'info', messageIncludes: 'agent c: 1 expected child never started: the pipeline stopped after stage 2 of 3 (b) was cancelled' },
      ],
    },
    {
      // b4 ran (a failed completion, no start line): its failure is b's result, so nothing is left for c, which vanished.
      fixture: 'trigger-start-lost-and-agent-vanished.jsonl',
      findings: [
        { severity: 'error', messageIncludes: ['agent c: 1 expected child never started and the totals do not account for it', 'failed 1 − 1 journaled failure = 0 does not cover it'] },
        { severity: 'warning', messageIncludes: 'agent b: sub-run b4 has a completion but no delegation_sub_run_started' },
      ],
    },
    {
      // total_sub_runs has room for it, but failed 0 does not cover a child that never ran.
      fixture: 'trigger-counted-as-success.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: ['agent scan-apac', 'total_sub_runs 3 − 2 started = 1 ≥ 1 missing', 'failed 0 − 0 journaled failures = 0 does not cover it'],
          evidenceLines: ['trigger-counted-as-success.jsonl:4', 'trigger-counted-as-success.jsonl:9'],
        },
      ],
    },
    {
      // fork tester×4: 3 starts, total 4, failed 1 — a launch failure the totals explain.
      fixture: 'trigger-setup-failure-info.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: ['agent tester: 1 expected child never started; the totals account for it as a setup or launch failure', 'total_sub_runs 4 − 3 started = 1 ≥ 1 missing', 'failed 1 − 0 journaled failures = 1 covers it'],
          evidenceLines: ['trigger-setup-failure-info.jsonl:6', 'trigger-setup-failure-info.jsonl:13'],
        },
      ],
    },
    {
      // fork coder×3: one start (it crashed), total 2, failed 2. One missing child is the
      // synthetic failure the totals count; nothing explains the other. Each is judged alone
      // (errors are listed first).
      fixture: 'trigger-fork-partly-accounted.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'agent coder: 1 expected child never started and the totals do not account for the other one',
          evidenceLines: ['trigger-fork-partly-accounted.jsonl:1', 'trigger-fork-partly-accounted.jsonl:4'],
        },
        {
          severity: 'info',
          messageIncludes: ['agent coder: 2 expected children never started; the totals account for 1 of them', 'total_sub_runs 2 − 1 started = 1 left; failed 2 − 1 journaled failure = 1 left'],
          evidenceLines: ['trigger-fork-partly-accounted.jsonl:1', 'trigger-fork-partly-accounted.jsonl:4'],
        },
      ],
    },
    {
      // A failed pipeline stage does not stop the pipeline (only a cancel does): stage c vanished.
      fixture: 'trigger-pipeline-failed-stage.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'agent c: 1 expected child never started and the totals do not account for it' }],
    },
    {
      // The pipeline's stage b was cancelled: c never starts, by design (info, with the cancel as evidence).
      fixture: 'trap-pipeline-cancelled-stage.jsonl',
      findings: [
        {
          severity: 'info',
          messageIncludes: 'agent c: 1 expected child never started: the pipeline stopped after stage 2 of 3 (b) was cancelled',
          evidenceLines: ['trap-pipeline-cancelled-stage.jsonl:1', 'trap-pipeline-cancelled-stage.jsonl:5', 'trap-pipeline-cancelled-stage.jsonl:7'],
        },
      ],
    },
    {
      // The fork's shared deadline ran out part-way: the child not launched by then is info too.
      fixture: 'trap-fork-deadline-partway.jsonl',
      findings: [
        { severity: 'info', messageIncludes: 'the totals account for 1 of them' },
        {
          severity: 'info',
          messageIncludes: ['agent coder: 1 expected child never started: the fork\'s shared deadline ran out part-way', 'fork child timeout: shared deadline exceeded'],
          evidenceLines: ['trap-fork-deadline-partway.jsonl:1', 'trap-fork-deadline-partway.jsonl:3', 'trap-fork-deadline-partway.jsonl:4'],
        },
      ],
    },
    {
      // A Gen A/B fork child timed out on its own per-agent timeout: that stops no launch, so coder's third child vanished.
      fixture: 'trigger-fork-per-agent-timeout.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: 'd-fork-per-agent',
          messageIncludes: ['agent coder: 1 expected child never started and the totals do not account for it', 'total_sub_runs 2 − 2 started = 0 < 1 missing'],
          evidenceLines: ['trigger-fork-per-agent-timeout.jsonl:1', 'trigger-fork-per-agent-timeout.jsonl:6'],
        },
      ],
    },
    {
      // An agent replaced by another (security-auditor ran instead of reviewer).
      fixture: 'agent-set-mismatch/trigger-unknown-agent.jsonl',
      findings: [{ severity: 'error', messageIncludes: 'agent reviewer: 1 expected child never started' }],
    },
  ],
  valid: [
    // sequential stopping after a failed stage whose successor's start failure the totals count.
    'trap-sequential-failed-stage-counted.jsonl',
    // sequential stopping after a success is sequential-stopped-early's business.
    'trap-sequential-stop.jsonl',
    // and so is a stop after a failed stage that nothing explains: never an error (journal-format.md §9).
    'sequential-stopped-early/trigger-failed-stage-unexplained.jsonl',
    // no delegation_completed: delegation-incomplete instead.
    'trap-no-completion.jsonl',
    // no sub-run event at all: the tracker was unbound (a Limits line).
    'trap-no-subrun-events.jsonl',
    // nor when the join counts no sub-run: 33 fan_out agents, refused before any started (journal-format §9).
    'trap-no-agent-started.jsonl',
    // fork ×3 with three starts; adversarial_review sized by its totals.
    'agent-set-mismatch/trap-fork.jsonl',
    'agent-set-mismatch/trap-adversarial-review.jsonl',
    // a retry does not stand in for, nor add to, the agent's start.
    'retry-unlinked/trap-gen-b-order',
  ],
});

describe('missing-start look-alikes', () => {
  it('says under Limits that no sub-run event was journaled', async () => {
    const report = await analyzeFixture('missing-start', 'trap-no-subrun-events.jsonl');
    expect(report.delegations).toHaveLength(1);
    expect(report.delegations[0].limits).toContain(
      "No sub-run event was journaled for this delegation (the engine's tracker was not bound to a session); start, completion, totals and retry checks were skipped.",
    );
  });

  it('does not blame an unbound tracker when the join counts no sub-run', async () => {
    const report = await analyzeFixture('missing-start', 'trap-no-agent-started.jsonl');
    expect(report.delegations).toHaveLength(1);
    const limits = report.delegations[0].limits;
    expect(limits.some((l) => l.includes('tracker was not bound'))).toBe(false);
    expect(limits).toContain(
      'No sub-run event was journaled for this delegation, and its completion counts none (total_sub_runs 0: no agent was started, as when none was named or the delegation failed before starting one); start, completion, totals and retry checks were skipped.',
    );
  });

  it('an open delegation with no sub-run event: the Limits line names the open join before the tracker', async () => {
    const report = await analyzeFixture('delegation-incomplete', 'trigger-engine-error.jsonl');
    const limits = report.delegations[0].limits;
    expect(report.delegations[0].findings.map((f) => f.id)).toContain('delegation-incomplete');
    expect(limits).toContain(
      "No sub-run event was journaled for this delegation, which has no delegation_completed either (its sub-runs may not have been written yet, or the journal was cut short; else the engine's tracker was not bound to a session); start, completion, totals and retry checks were skipped.",
    );
  });

  it('leaves the delegation without a completion to delegation-incomplete', async () => {
    const report = await analyzeFixture('missing-start', 'trap-no-completion.jsonl');
    expect(report.delegations[0].findings.map((f) => f.id)).toEqual(['delegation-incomplete']);
  });
});
