/**
 * Seed 000 (the join contract) replayed as journals: yesterday's run r41 (US wrote 97.5) and
 * today's run r42 (EU 102 at 8 s, US fails at 12 s, APAC 110 at 25 s) in one session file; each
 * variant changes only the join. Every variant states what the report must and must not say.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { Finding } from '../../src/checks/types.js';
import { runMain } from '../helpers/cli.js';
import { NOW_MS, ROOT } from './harness.js';

const JOIN = path.join('fixtures', 'join');

interface Wanted {
  id: string;
  severity: Finding['severity'];
  /** Concrete ids and values the message must name. */
  says: string[];
  /** Evidence as line numbers in the variant's file. */
  lines: number[];
}

interface Variant {
  file: string;
  scenario: string;
  must: Wanted[];
  /** Checks that must stay silent on today's delegation. */
  mustNot: string[];
}

const LATE_APAC: Wanted = {
  id: 'late-result',
  severity: 'warning',
  says: ['sub-run r42-apac (agent apac) completed at 2026-03-10T10:00:25.000000000+00:00', '5s after the join at 2026-03-10T10:00:20.000000000+00:00', 'not in the join'],
  lines: [18, 19],
};

const VARIANTS: Variant[] = [
  {
    file: 'seed-000-any-artifact.jsonl',
    scenario: 'any artifact in the store, deadline 20 s, quorum 2: publishes (102 + 97.5) / 2 = 99.75',
    must: [
      {
        id: 'failed-in-aggregate',
        severity: 'error',
        says: ['succeeded=2 but only 1 child had completed without error by the join', 'us (r42-us) failed', 'apac (r42-apac) was still running'],
        lines: [18, 17, 19],
      },
      {
        id: 'failed-in-aggregate',
        severity: 'error',
        says: ['"US price 97.5"', 'sub-run r41-us', 'delegation deleg-r41 (parent run r41)', 'not of this delegation', 'own us run r42-us ended failed'],
        lines: [7, 18],
      },
      // The same fact breaks the totals too (CHECKS.md resolved detail 8).
      { id: 'totals-mismatch', severity: 'error', says: ['succeeded is 2 but 1 child succeeded'], lines: [18, 17, 19] },
      LATE_APAC,
    ],
    mustNot: ['foreign-parent', 'status-mismatch', 'silent-failure', 'missing-completion'],
  },
  {
    file: 'seed-000-only-completed.jsonl',
    scenario: 'only completed tasks, deadline 20 s, quorum 2: only EU qualifies, the join is held (unfinished, nothing published)',
    must: [LATE_APAC],
    // APAC was still running at the join, so unfinished and failed=2 are right.
    mustNot: ['failed-in-aggregate', 'totals-mismatch', 'status-mismatch', 'foreign-parent'],
  },
  {
    file: 'seed-000-run-id-check.jsonl',
    scenario: 'any artifact but it must carry run r42, late results published as a follow-up: held at 20 s, 106 once APAC lands',
    must: [],
    // r41's "EU price 102" equals today's own EU output: attributed to today's completed run, not to yesterday's.
    mustNot: ['failed-in-aggregate', 'late-result', 'totals-mismatch', 'foreign-parent'],
  },
  {
    file: 'seed-000-deadline-25s.jsonl',
    scenario: 'only completed tasks, deadline moved to 25 s: APAC completes at the deadline itself, EU and APAC give 106',
    must: [],
    // The join's "…:25+00:00" and APAC's "…:25.000000000+00:00" are the same instant: not late.
    mustNot: ['late-result', 'failed-in-aggregate', 'totals-mismatch', 'time-order'],
  },
  {
    file: 'seed-000-quorum-1.jsonl',
    scenario: 'only completed tasks, quorum 1, late results ignored: EU 102 published alone at 20 s, APAC discarded',
    must: [LATE_APAC],
    mustNot: ['failed-in-aggregate', 'totals-mismatch', 'status-mismatch'],
  },
];

async function findingsFor(file: string) {
  const { report } = await analyze({ sessions: [path.join(JOIN, file)], all: true, cwd: ROOT, env: {}, checkOptions: { nowMs: NOW_MS } });
  return report;
}

describe('seed 000: join only successful artifacts', () => {
  for (const v of VARIANTS) {
    describe(`${v.file}: ${v.scenario}`, () => {
      it('reports exactly what the variant breaks, with evidence', async () => {
        const report = await findingsFor(v.file);
        const today = report.delegations.find((d) => d.id === 'deleg-r42')!;
        expect(today.findings.map((f) => f.id).sort()).toEqual(v.must.map((w) => w.id).sort());
        for (const w of v.must) {
          const match = today.findings.find((f) => f.id === w.id && w.says.every((s) => f.message.includes(s)));
          expect(match, `${w.id} saying ${JSON.stringify(w.says)} in ${JSON.stringify(today.findings.map((f) => f.message))}`).toBeDefined();
          expect(match!.severity).toBe(w.severity);
          expect(match!.evidence).toEqual(w.lines.map((line) => ({ file: `${JOIN}/${v.file}`, line })));
        }
        for (const id of v.mustNot) expect(today.findings.filter((f) => f.id === id)).toEqual([]);
      });

      it("keeps yesterday's run r41 clean", async () => {
        const report = await findingsFor(v.file);
        const yesterday = report.delegations.find((d) => d.id === 'deleg-r41')!;
        expect(yesterday.parentRunId).toBe('r41');
        expect(yesterday.findings).toEqual([]);
      });
    });
  }

  it('shows the stale and failed data in the text report, each with its classification', async () => {
    const { code, stdout } = await runMain(['--sessions', `${JOIN}/seed-000-any-artifact.jsonl`, 'deleg-r42']);
    expect(code).toBe(1); // errors found
    const f = `${JOIN}/seed-000-any-artifact.jsonl`;
    expect(stdout).toContain(`- [error] failed-in-aggregate: the aggregate contains "US price 97.5", the output of sub-run r41-us (agent us) of delegation deleg-r41 (parent run r41), not of this delegation; this delegation's own us run r42-us ended failed (${f}:7, ${f}:18)`);
    expect(stdout).toContain(`- [warning] late-result: sub-run r42-apac (agent apac) completed at 2026-03-10T10:00:25.000000000+00:00 (status completed), 5s after the join at 2026-03-10T10:00:20.000000000+00:00: its result was not in the join (ignored, or it needs a follow-up) (${f}:18, ${f}:19)`);
    expect(stdout).toContain('  symptom: Wrong aggregate; check: AggregationStrategy and aggregate_results in coordination.rs');
    expect(stdout).toContain('- 2026-03-10T10:00:20.000000000+00:00 delegation completed: succeeded=2 failed=1 status=partial');
  });

  it('carries symptom and check hints in the JSON report', async () => {
    const { stdout } = await runMain(['--sessions', `${JOIN}/seed-000-any-artifact.jsonl`, 'deleg-r42', '--format', 'json']);
    const doc = JSON.parse(stdout);
    const findings = doc.delegations[0].findings as Finding[];
    expect(findings.filter((x) => x.id === 'failed-in-aggregate')).toHaveLength(2);
    for (const x of findings) {
      expect(x.symptom).toBe('Wrong aggregate');
      expect(x.check).toBe('AggregationStrategy and aggregate_results in coordination.rs');
    }
  });
});
