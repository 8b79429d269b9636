import { testCheck } from './harness.js';

testCheck('agent-set-mismatch', {
  invalid: [
    {
      // Workflow step 2, the pattern: the join says sequential, the start fan_out.
      fixture: 'trigger-pattern-changed.jsonl',
      findings: [{ severity: 'error', delegation: 'd-pat', messageIncludes: 'delegation_started says pattern fan_out, delegation_completed says sequential', evidenceLines: ['trigger-pattern-changed.jsonl:1', 'trigger-pattern-changed.jsonl:6'] }],
    },
    {
      // A pattern the engine does not write: its expected children cannot be checked (a warning).
      fixture: 'trigger-unknown-pattern.jsonl',
      findings: [{ severity: 'warning', delegation: 'd-unk', messageIncludes: 'pattern swarm is not one the engine emits', evidenceLines: ['trigger-unknown-pattern.jsonl:1'] }],
    },
    {
      fixture: 'trigger-agent-count.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: '99e508cf-d967-471b-bd93-05d06980c154',
          messageIncludes: 'agent_count is 2 but agent_ids lists 3 (planner,coder,tester)',
          evidenceLines: ['trigger-agent-count.jsonl:6'],
        },
      ],
    },
    {
      fixture: 'trigger-unknown-agent.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'sub-run 713e9f3c-c39b-4b15-a4f0-17be3fcce1c6 ran agent security-auditor, which is not in the started agent set (coder,reviewer)',
          evidenceLines: ['trigger-unknown-agent.jsonl:6', 'trigger-unknown-agent.jsonl:8'],
        },
      ],
    },
    {
      // coder is listed once but two unlinked runs of it started (lines 5 and 7).
      fixture: 'trigger-extra-start.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'agent coder started 2 distinct sub-runs; fan_out allows 1',
          evidenceLines: ['trigger-extra-start.jsonl:4', 'trigger-extra-start.jsonl:5', 'trigger-extra-start.jsonl:7'],
        },
      ],
    },
    {
      // The same, with the second coder run's start line lost (only its completion, line 8): it ran all the same.
      fixture: 'trigger-extra-start-line-lost.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'agent coder ran 2 distinct sub-runs (1 with its start line missing); fan_out allows 1',
          evidenceLines: ['trigger-extra-start-line-lost.jsonl:4', 'trigger-extra-start-line-lost.jsonl:5', 'trigger-extra-start-line-lost.jsonl:8'],
        },
      ],
    },
    {
      // a2 names b1 (agent b's run, already retried by b2) as its original: not a retry of a, so a ran twice.
      fixture: 'trigger-retry-of-another-agents-run.jsonl',
      findings: [{ severity: 'error', delegation: 'd-x-1', messageIncludes: 'agent a started 2 distinct sub-runs; fan_out allows 1' }],
    },
    {
      // PascalCase journal: extract, load, transform instead of extract, transform, load.
      fixture: 'trigger-stage-order-pipeline.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'pipeline stage 2 started agent load, but agent_ids order expects transform',
          evidenceLines: ['trigger-stage-order-pipeline.jsonl:4', 'trigger-stage-order-pipeline.jsonl:7'],
        },
      ],
    },
    {
      fixture: 'trigger-stage-order-sequential.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'sequential stage 1 started agent fixer, but agent_ids order expects triage',
          evidenceLines: ['trigger-stage-order-sequential.jsonl:6', 'trigger-stage-order-sequential.jsonl:7'],
        },
      ],
    },
  ],
  valid: [
    // One id, two parent runs, no sub-run events: the fan_out's join shares a millisecond with the
    // sequential's start; a join carries its start's pattern (journal-format §2.5), so it is the fan_out's.
    'trap-reused-id-other-pattern.jsonl',
    // fork: agent_ids ["summarizer×3"], agent_count 1, three starts of summarizer.
    'trap-fork.jsonl',
    // adversarial_review: drafter, critic, drafter, critic (total_sub_runs 4).
    'trap-adversarial-review.jsonl',
    // A verification retry of coder is folded into its child, not a second start.
    'trap-retry-same-agent.jsonl',
    'retry-unlinked/trap-gen-a-order',
    // A retry of coder whose retry_of names an unknown run is still a retry of coder: retry-unlinked says so, not this check.
    'retry-unlinked/trigger-retry-of-unknown-run.jsonl',
    // The same in a sequential delegation: the unlinked retry of a is not a stage out of order.
    'trap-sequential-unlinked-retry.jsonl',
  ],
});
