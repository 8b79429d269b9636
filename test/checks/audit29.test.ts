/**
 * Adversarial audit 29: journals the per-check suites did not cover, each pinned to the outcome
 * CHECKS.md and journal-format.md call for. Fixtures live in test/fixtures/audit29/.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { Finding } from '../../src/checks/types.js';
import { NOW_MS, ROOT } from './harness.js';

const FIXTURES = path.join('test', 'fixtures', 'audit29');

async function findings(fixture: string): Promise<Finding[]> {
  const { report } = await analyze({ sessions: [path.join(FIXTURES, fixture)], all: true, cwd: ROOT, env: {}, checkOptions: { nowMs: NOW_MS } });
  return report.delegations.flatMap((d) => d.findings);
}

const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.id}: ${f.message} (${f.evidence.map((e) => `${path.basename(e.file)}:${e.line}`).join(', ')})`);

describe('a child whose start line was lost (only its completion journaled) still ran', () => {
  // journal-format §1.2: writes are best-effort, so one line can be missing while the child ran.
  it('sequential: the stage keeps its place in the order and is no early stop; the lost line is a warning', async () => {
    const got = summary(await findings('lost-start-sequential-middle.jsonl'));
    expect(got).toEqual([
      'warning missing-start: agent b: sub-run s2 has a completion but no delegation_sub_run_started: the child was journaled, and its start line is missing (a failed journal write drops an event silently) (lost-start-sequential-middle.jsonl:1, lost-start-sequential-middle.jsonl:4, lost-start-sequential-middle.jsonl:7)',
    ]);
  });

  it('sequential: a last stage that ran with its start line lost is not "never started"', async () => {
    const got = summary(await findings('lost-start-sequential-last.jsonl'));
    expect(got).toEqual([
      'warning missing-start: agent c: sub-run s3 has a completion but no delegation_sub_run_started: the child was journaled, and its start line is missing (a failed journal write drops an event silently) (lost-start-sequential-last.jsonl:1, lost-start-sequential-last.jsonl:6, lost-start-sequential-last.jsonl:7)',
    ]);
  });

  it('pipeline: stages in agent_ids order are not out of order because one start line is missing', async () => {
    const fs = await findings('lost-start-pipeline-middle.jsonl');
    expect(fs.filter((f) => f.id === 'agent-set-mismatch')).toEqual([]);
    expect(fs.map((f) => `${f.severity} ${f.id}`)).toEqual(['warning missing-start']);
  });

  it('failed-in-aggregate names the counted failure once, not also as an agent that never started', async () => {
    const f = (await findings('lost-start-fanout-counted.jsonl')).filter((x) => x.id === 'failed-in-aggregate');
    expect(f.map((x) => x.message)).toEqual([
      'succeeded=2 but only 1 child had completed without error by the join at 2026-03-10T10:00:06.100000000+00:00: b (s2) failed with error "boom2"',
    ]);
  });

  it('totals-mismatch: a result beyond every expected child is unexplained (error), not a setup failure of the child that ran', async () => {
    const f = (await findings('lost-start-fanout-extra.jsonl')).filter((x) => x.id === 'totals-mismatch');
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('error');
    expect(f[0].message).toBe(
      'total_sub_runs is 3 but 2 children were journaled (retries folded) and every expected child ran (1 start line is missing, not the children), so 1 extra result is unexplained',
    );
  });
});
