import { describe, expect, it } from 'vitest';
import { readsAsFailure } from '../../src/checks/rules/silent-failure.js';
import { testCheck } from './harness.js';

testCheck('silent-failure', {
  invalid: [
    {
      // Pushback from downstream passed on as a completed output (seed 002): 429, 503, a rate limit, a quota.
      fixture: '../safe/silent-failure-pushback.jsonl',
      findings: ['Rate limit exceeded (HTTP 429)', 'Too many requests', 'Service temporarily unavailable', 'HTTP 503 from', 'Quota exceeded', '429 Too Many Requests', '503 Service Unavailable'].map((text, i) => ({
        severity: 'info' as const,
        delegation: 'd-pushback',
        messageIncludes: `sub-run d-pushback-a${i + 1} (agent a${i + 1}) is completed but its output reads as pushback passed on as text ("${text}`,
        evidenceLines: [`silent-failure-pushback.jsonl:${9 + i}`],
      })),
    },
    {
      fixture: '../safe/silent-failure.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-silent',
          messageIncludes: 'sub-run sr-coder (agent coder) is completed but carries error "tool crashed: cargo test exited 101"',
          evidenceLines: ['silent-failure.jsonl:7'],
        },
        {
          severity: 'warning',
          messageIncludes: 'sub-run sr-tester (agent tester) is completed but its output_preview is null',
          evidenceLines: ['silent-failure.jsonl:8'],
        },
        {
          severity: 'warning',
          messageIncludes: 'sub-run sr-writer (agent writer) is completed but its output_preview is blank',
          evidenceLines: ['silent-failure.jsonl:9'],
        },
        {
          // The wording heuristic is info, and says it is a heuristic.
          severity: 'info',
          messageIncludes: ['sub-run sr-fetcher (agent fetcher)', '"Could not reach the pricing API', 'this is a wording heuristic'],
          evidenceLines: ['silent-failure.jsonl:10'],
        },
      ],
    },
    {
      // "error": "" is Some(""): not a success for the engine (its totals count it failed, and
      // totals-mismatch agrees), but the run still says completed.
      fixture: '../safe/silent-failure-empty-error.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: 'd-emptyerr',
          messageIncludes: 'sub-run r1 (agent a) is completed but carries an empty error string',
          evidenceLines: ['silent-failure-empty-error.jsonl:3'],
        },
      ],
    },
    {
      // The plainest failure reports: the word alone, or with a full stop.
      fixture: '../safe/silent-failure-bare-words.jsonl',
      findings: ['Failed', 'Error', 'FAILED', 'Failed.', 'Failed: disk full'].map((text, i) => ({
        severity: 'info' as const,
        delegation: 'd-1',
        messageIncludes: `sub-run run-${i} (agent a${i}) is completed but its output reads as failure or partial work (${JSON.stringify(text)})`,
        evidenceLines: [`silent-failure-bare-words.jsonl:${7 + i}`],
      })),
    },
    {
      // The gate rejected the first coder run (verification_failed, line 8); its retry, the final
      // attempt, says completed but carries error "tool crashed" (line 10).
      fixture: 'trigger-retry-completed-with-error.jsonl',
      findings: [
        {
          severity: 'warning',
          delegation: '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c52',
          messageIncludes: 'sub-run 9f0a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b52 (agent coder) is completed but carries error "tool crashed"',
          evidenceLines: ['trigger-retry-completed-with-error.jsonl:10'],
        },
      ],
    },
  ],
  valid: [
    // Gen 0 (no output_preview key); "Error handling refactored …" and "Partition keys …" only look
    // like failure reports; a loud failure (status failed); a retried original with an empty output.
    '../safe/silent-failure-lookalike.jsonl',
    // Rate limiting added, "429 tests passed", an upgraded service mesh, handled 429s, "Rate limited the
    // endpoint", "Quota exceeded handling added", "Status 503 handling: …": work done, not pushback.
    '../safe/silent-failure-pushback-lookalike.jsonl',
    // Gen A: the original completed with an empty output (line 6) and the gate retried it; its
    // verification_failed re-completion is missing (retry-unlinked), so the original's last status
    // is still completed. The retry replaced it and succeeded: only the final attempt is judged.
    'trap-empty-original-retried.jsonl',
  ],
});

describe('the failure wording heuristic', () => {
  it.each(['error while compiling crate foo', 'Error: missing key in module auth', 'failed during deploy', 'FAILED tests: 3', 'ERROR test_login', 'Error: boom', 'Error: 0x80004005 access denied', 'Failed: 0.5% of requests dropped', 'Failed: 0 of 3 checks passed', 'Error: 0 bytes written, the disk is full', 'Failed.', 'could not reach the API'])('reads %j as failure', (text) => {
    expect(readsAsFailure(text)).toBe(true);
  });
  it.each(['Error handling refactored in 3 modules', 'Errors are now logged with context', 'Failure modes documented', 'Failed-login counter added to the dashboard', 'Partition keys rebalanced', 'Interrupted builds retry now', 'FAILED tests: 0 (all 212 passed)', 'Failed: 0, Passed: 212', 'FAILED: 0', 'Errors: 0 (3 warnings)', 'Errors: 0\nAll 212 tests passed', 'failures: 0; skipped: 2', 'Errors in the README corrected', 'ERROR HANDLING: refactored the retry path'])('does not read %j as failure', (text) => {
    expect(readsAsFailure(text)).toBe(false);
  });
});
