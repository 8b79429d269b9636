import { testCheck } from './harness.js';

testCheck('fanout-budget', {
  invalid: [
    {
      // A fan-out that crashed with all 9 runs started and none completed: the last start counts its own run too.
      fixture: '../safe/fanout-budget-open.jsonl',
      findings: [{ severity: 'warning', delegation: 'd-crashed-fanout', messageIncludes: '9 sub-runs were running at once' }],
    },
    {
      // Ten shards all start before any completes; the peak is reached at the tenth start (line 12).
      fixture: '../safe/fanout-budget.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-reindex',
          messageIncludes: ['10 sub-runs were running at once', 'above --max-fanout 8', 'a policy threshold, not an engine fault: the engine allows up to 32 fan-out agents'],
          evidenceLines: ['fanout-budget.jsonl:2', 'fanout-budget.jsonl:12'],
        },
      ],
    },
    {
      // With --max-fanout 9 the same peak of 10 is still above the threshold.
      fixture: '../safe/fanout-budget.jsonl',
      options: { maxFanout: 9 },
      findings: [{ messageIncludes: ['10 sub-runs were running at once', 'above --max-fanout 9'] }],
    },
    {
      // 4 regions, each delegating to 8 crawlers: 36 distinct sub-runs in one tree, reported on the root only.
      fixture: '../safe/fanout-budget-tree.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-crawl',
          messageIncludes: 'the delegation tree of d-crawl (5 delegations) holds 36 distinct sub-runs, above --max-tree 32 (a policy threshold, not an engine fault: the engine allows up to 32 fan-out agents)',
          evidenceLines: ['fanout-budget-tree.jsonl:2', 'fanout-budget-tree.jsonl:7', 'fanout-budget-tree.jsonl:16', 'fanout-budget-tree.jsonl:25', 'fanout-budget-tree.jsonl:34'],
        },
      ],
    },
    {
      // Lowering --max-fanout makes the 8-crawler nested delegations report too (each on its own block).
      fixture: '../safe/fanout-budget-tree.jsonl',
      options: { maxFanout: 7, maxTree: 100 },
      findings: ['d-crawl-a', 'd-crawl-b', 'd-crawl-c', 'd-crawl-d'].map((delegation) => ({ delegation, messageIncludes: '8 sub-runs were running at once' })),
    },
  ],
  valid: [
    // Exactly 8 at once; 12 sequential stages each starting the instant the previous completes
    // ([start, end) intervals); a tree of exactly 32 runs with 32 running at once across it but at
    // most 7 per delegation.
    '../safe/fanout-budget-lookalike.jsonl',
    // The same crash with 8 runs: at the threshold, not above it.
    '../safe/fanout-budget-open-lookalike.jsonl',
    { fixture: '../safe/fanout-budget.jsonl', options: { maxFanout: 10 } },
    { fixture: '../safe/fanout-budget-tree.jsonl', options: { maxTree: 36 } },
  ],
});
