import { testCheck } from './harness.js';

testCheck('failed-in-aggregate', {
  invalid: [
    {
      // The failed US output is in the first of two joins only: every join the parent received is checked.
      fixture: '../checks/duplicate-completion/trigger-joins-differ-in-output.jsonl',
      findings: [{ severity: 'error', delegation: 'd-two-answers', messageIncludes: 'the aggregate contains "US price 97.5", the output of sub-run u (agent us), whose final status is failed' }],
    },
    {
      fixture: '../join/failed-in-aggregate.jsonl',
      findings: [
        {
          // Gen B: the gate rejected "stub" (line 6) and a retry replaced it, but the join (line 10) used "stub".
          severity: 'error',
          delegation: 'd-rejected-joined',
          messageIncludes: 'the aggregate contains "stub", the output of sub-run sr-coder-1 (agent coder), whose final status is verification_failed',
          evidenceLines: ['failed-in-aggregate.jsonl:6', 'failed-in-aggregate.jsonl:10'],
        },
        {
          // fetch-us failed (line 15) yet the join counts succeeded=2 (line 16).
          severity: 'error',
          delegation: 'd-failed-counted',
          messageIncludes: ['succeeded=2 but only 1 child had completed without error by the join', 'fetch-us (sr-fetch-us) failed with error "HTTP 429 Too Many Requests"'],
          evidenceLines: ['failed-in-aggregate.jsonl:16', 'failed-in-aggregate.jsonl:15'],
        },
        {
          // A 78-character failed preview embedded in an LlmGuided-style aggregate (no separator).
          severity: 'error',
          delegation: 'd-partial-embedded',
          messageIncludes: 'the output of sub-run sr-researcher (agent researcher), whose final status is failed',
          evidenceLines: ['failed-in-aggregate.jsonl:21', 'failed-in-aggregate.jsonl:22'],
        },
      ],
    },
    {
      // Seed 000: the join counted the failed US child and APAC (still running), and joined yesterday's US price.
      fixture: '../join/seed-000-any-artifact.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: 'deleg-r42',
          messageIncludes: [
            'succeeded=2 but only 1 child had completed without error by the join at 2026-03-10T10:00:20.000000000+00:00',
            'us (r42-us) failed with error "US price service returned 503 Service Unavailable"',
            'apac (r42-apac) was still running (it completed after the join, status completed)',
          ],
          evidenceLines: ['seed-000-any-artifact.jsonl:18', 'seed-000-any-artifact.jsonl:17', 'seed-000-any-artifact.jsonl:19'],
        },
        {
          severity: 'error',
          delegation: 'deleg-r42',
          messageIncludes: [
            'the aggregate contains "US price 97.5", the output of sub-run r41-us (agent us) of delegation deleg-r41 (parent run r41), not of this delegation',
            "this delegation's own us run r42-us ended failed",
          ],
          evidenceLines: ['seed-000-any-artifact.jsonl:7', 'seed-000-any-artifact.jsonl:18'],
        },
      ],
    },
    {
      // succeeded=3 counts scan-apac, which never started (no event of it at all).
      fixture: '../checks/missing-start/trigger-counted-as-success.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: '585cb674-3491-4a58-aa68-fd2ef388c004',
          messageIncludes: 'succeeded=3 but only 2 children had completed without error by the join at 2026-02-16T15:30:50.667335232+00:00: agent scan-apac: 1 expected child never started',
          evidenceLines: ['trigger-counted-as-success.jsonl:9'],
        },
      ],
    },
    {
      // Yesterday's US run wrote "US price 97.5"; today's join (line 10) has it although today's
      // US run only produced the same text 300 s later: the stale artifact, not an inversion.
      fixture: 'trigger-stale-artifact-own-later.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'the aggregate contains "US price 97.5", the output of sub-run 5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e41 (agent us) of delegation 3b9c1d2e-4f5a-4b6c-8d7e-9f0a1b2c3d41',
          evidenceLines: ['trigger-stale-artifact-own-later.jsonl:4', 'trigger-stale-artifact-own-later.jsonl:10'],
        },
      ],
    },
    {
      // The gate rejected coder's "stub" (line 8) and the join (line 12) took it anyway, next to
      // cleaner's "stub removed": a 4-character preview is no substring match (40+ only), so the
      // sibling's longer output does not make "stub" this delegation's own.
      fixture: 'trigger-short-failed-preview-in-sibling.jsonl',
      findings: [
        {
          severity: 'error',
          delegation: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c58',
          messageIncludes: 'the aggregate contains "stub", the output of sub-run 9f1e2d3c-4b5a-4697-8887-766554433258 (agent coder), whose final status is verification_failed',
          evidenceLines: ['trigger-short-failed-preview-in-sibling.jsonl:8', 'trigger-short-failed-preview-in-sibling.jsonl:12'],
        },
      ],
    },
    {
      // The journal cut the aggregate at 500 characters: the failed us1 output (line 5) joined
      // after eu's is only its first 163 characters there, a prefix of us1's preview (line 6).
      fixture: 'trigger-failed-output-in-cut-aggregate.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'the aggregate contains "US price report (stale, from run r41): yesterday the US regional price index …", the output of sub-run us1 (agent us), whose final status is failed',
          evidenceLines: ['trigger-failed-output-in-cut-aggregate.jsonl:5', 'trigger-failed-output-in-cut-aggregate.jsonl:6'],
        },
      ],
    },
    {
      // linter completed with error "" (line 4): the engine's is_success needs error absent, so
      // succeeded=2 (line 6) counts a failure; the message must say why "completed" did not succeed.
      fixture: 'trigger-empty-error-counted.jsonl',
      findings: [
        {
          severity: 'error',
          messageIncludes: 'succeeded=2 but only 1 child had completed without error by the join at 2026-03-10T10:00:20.100000000+00:00: linter (6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d61) completed with error ""',
          evidenceLines: ['trigger-empty-error-counted.jsonl:6', 'trigger-empty-error-counted.jsonl:4'],
        },
      ],
    },
  ],
  valid: [
    // A cut aggregate's last segment that a completed run's output starts with as well as a failed
    // one's (whose is it?), and a cut segment of 30 characters (too short to tell).
    'trap-cut-aggregate-tail.jsonl',
    // Children written just after the join (1 µs, 0.4 ms) or whose output is in the aggregate were in it.
    '../join/late-result-inverted.jsonl',
    // succeeded=3 with two children, both succeeded: no failed child was counted (totals-mismatch says the rest).
    '../join/failed-in-aggregate-excess-lookalike.jsonl',
    // A failed run's preview that a completed run also produced; a short failed preview ("error")
    // inside a longer segment; a nested delegation's failed draft relayed by the outer planner; a
    // reviewer quoting another delegation's output inside its own.
    '../join/failed-in-aggregate-lookalike.jsonl',
    // 39 characters (38 + an emoji: 40 UTF-16 units) and 20 emoji inside a longer segment: the
    // 40-character substring rule counts characters, not UTF-16 units.
    '../join/failed-in-aggregate-astral-lookalike.jsonl',
    '../join/failed-in-aggregate-foreign-astral-lookalike.jsonl',
    // Yesterday's "EU price 102" equals today's own completed EU output; the aggregates hold only r42's runs.
    '../join/seed-000-run-id-check.jsonl',
    '../join/seed-000-deadline-25s.jsonl',
    '../join/seed-000-quorum-1.jsonl',
    '../join/seed-000-only-completed.jsonl',
    // Its own child completed 1 ns after the join's timestamp (late-result) with the aggregate's
    // text, which another session's delegation also wrote: the text is its own, not foreign.
    'trap-own-late-output',
    // The same, with the other delegation an hour earlier in the same session.
    'trap-own-late-output-same-session.jsonl',
    // Its own US child is recorded 5 s after the join (late-result) with the aggregate's "US price
    // 97.5"; another delegation writes the same text only an hour later: not joined from there.
    'trap-foreign-output-after-join.jsonl',
  ],
});
