import { testCheck } from './harness.js';

testCheck('foreign-parent', {
  invalid: [
    {
      fixture: '../join/foreign-parent.jsonl',
      findings: [
        {
          // d-price-r42 belongs to r42 (line 2); the us start (line 4) names yesterday's run r41.
          severity: 'error',
          delegation: 'd-price-r42',
          messageIncludes: 'sub-run sr-us-r41 (agent us) has parent_run_id r41, but delegation d-price-r42 belongs to parent run r42',
          evidenceLines: ['foreign-parent.jsonl:2', 'foreign-parent.jsonl:4'],
        },
        {
          // sr-shared-1 started in d-report-a (line 9) and again in d-report-b (line 13): reported in both blocks.
          severity: 'error',
          delegation: 'd-report-a',
          messageIncludes: 'sub-run sr-shared-1 also appears in delegation d-report-b (parent run run-b)',
          evidenceLines: ['foreign-parent.jsonl:9', 'foreign-parent.jsonl:13'],
        },
        {
          severity: 'error',
          delegation: 'd-report-b',
          messageIncludes: 'sub-run sr-shared-1 also appears in delegation d-report-a (parent run run-a)',
          evidenceLines: ['foreign-parent.jsonl:13', 'foreign-parent.jsonl:9'],
        },
      ],
    },
  ],
  valid: [
    // Parent P's paused coder resumes (a second start of its run) after P started the id again: the run stays with the first use.
    'trap-reused-id-resumed-run.jsonl',
    // A nested delegation (parent_run_id = the outer sub-run sr-planner, children carrying it too),
    // interleaved with the outer one; and a delegation id reused on two days by runs r41 and r42.
    '../join/foreign-parent-lookalike.jsonl',
    // Seed 000: yesterday's run r41 sits in the same file, but every r42 child carries r42.
    '../join/seed-000-any-artifact.jsonl',
  ],
});
