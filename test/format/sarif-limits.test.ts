// GitHub code scanning rejects a whole SARIF upload with more than 25,000 results in a run or
// more than 1,000 related locations on a result: the log stays under both, says what it left
// out, and leaves out the least severe results first.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { formatSarif, MAX_RELATED_LOCATIONS, MAX_RESULTS_PER_RUN } from '../../src/format/sarif.js';
import type { TraceReport } from '../../src/report/types.js';
import { runBin } from '../helpers/cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-sarif-limits-'));
  // 8,400 delegations whose one sub-run never completes: three findings each, 25,200 in all.
  const lines: string[] = [];
  const ts = '2025-11-07T08:00:00Z';
  for (let i = 0; i < 8400; i++) {
    const m = { delegation_id: `d${i}`, parent_run_id: `p${i}` };
    lines.push(
      JSON.stringify({ type: 'delegation_started', ts, metadata: { ...m, agent_count: 1, agent_ids: ['a'], pattern: 'fan_out' } }),
      JSON.stringify({ type: 'delegation_sub_run_started', ts, metadata: { ...m, agent_id: 'a', depth: 1, sub_run_id: `r${i}` } }),
      JSON.stringify({ type: 'delegation_completed', ts, metadata: { delegation_id: `d${i}`, aggregated_status: 'completed', failed: 0, succeeded: 1, total_sub_runs: 1, pattern: 'fan_out' } }),
    );
  }
  writeFileSync(path.join(dir, 'many.jsonl'), `${lines.join('\n')}\n`);
  // One delegation with 1,002 sub-runs and no start: its orphan-event finding has 1,002 evidence lines.
  const orphans = Array.from({ length: 1002 }, (_, i) => JSON.stringify({ type: 'delegation_sub_run_started', ts, metadata: { delegation_id: 'orph', parent_run_id: 'p', agent_id: 'a', depth: 1, sub_run_id: `o${i}` } }));
  writeFileSync(path.join(dir, 'wide.jsonl'), `${orphans.join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = { color: false, failOn: 'error' as const };

describe('SARIF within GitHub code scanning limits', () => {
  it(`keeps at most ${MAX_RESULTS_PER_RUN} results, the most severe, and says how many it left out`, async () => {
    const { report } = await analyze({ sessions: [path.join(dir, 'many.jsonl')], all: true });
    const findings = report.delegations.flatMap((d) => d.findings);
    expect(findings.length).toBe(25_200);
    // Make 300 findings notes: they are the ones left out, errors and warnings all stay.
    const lowered: TraceReport = { ...report, delegations: report.delegations.map((d, i) => (i < 100 ? { ...d, findings: d.findings.map((f) => ({ ...f, severity: 'info' as const })) } : d)) };
    const run = JSON.parse(formatSarif(lowered, ctx)).runs[0];
    expect(run.results).toHaveLength(MAX_RESULTS_PER_RUN);
    expect(run.results.filter((r: { level: string }) => r.level === 'note')).toHaveLength(100);
    expect(run.properties).toEqual({ omittedResults: 200, omittedBySeverity: { error: 0, warning: 0, note: 200 } });
    expect(run.invocations[0].toolExecutionNotifications[0].message.text).toMatch(/^200 of 25200 results left out \(0 errors, 0 warnings, 200 notes\), the least severe first: GitHub code scanning rejects a run of more than 25000\./);
    // The kept ones stay in report order.
    const order = run.results.map((r: { properties: { delegation: string } }) => Number(r.properties.delegation.slice(1)));
    expect(order).toEqual([...order].sort((a: number, b: number) => a - b));
  });

  it('cuts warnings before errors, and counts what it cut by severity', async () => {
    const { report } = await analyze({ sessions: [path.join(dir, 'many.jsonl')], all: true });
    const mixed: TraceReport = { ...report, delegations: report.delegations.map((d, i) => ({ ...d, findings: d.findings.map((f) => ({ ...f, severity: i < 8000 ? ('error' as const) : ('warning' as const) })) })) };
    const run = JSON.parse(formatSarif(mixed, ctx)).runs[0];
    const levels = run.results.reduce((n: Record<string, number>, r: { level: string }) => ({ ...n, [r.level]: (n[r.level] ?? 0) + 1 }), {});
    expect(levels).toEqual({ error: 24_000, warning: 1_000 });
    expect(run.properties.omittedBySeverity).toEqual({ error: 0, warning: 200, note: 0 });
  });

  it('a run under the limit has no omission properties or notification', async () => {
    const { report } = await analyze({ sessions: [path.join(dir, 'wide.jsonl')], all: true });
    const run = JSON.parse(formatSarif(report, ctx)).runs[0];
    expect(run.properties).toBeUndefined();
    expect(run.invocations).toBeUndefined();
  });

  it(`keeps at most ${MAX_RELATED_LOCATIONS} related locations on a result (the real binary)`, async () => {
    const r = await runBin(['--sessions', path.join(dir, 'wide.jsonl'), '--all', '--format', 'sarif', '--fail-on', 'none']);
    const results = JSON.parse(r.stdout).runs[0].results as { ruleId: string; relatedLocations?: unknown[]; properties: { omittedEvidence?: number } }[];
    const orphan = results.find((x) => x.ruleId === 'orphan-event')!;
    expect(orphan.relatedLocations).toHaveLength(MAX_RELATED_LOCATIONS);
    // 1,002 evidence lines: the first is the location, 999 are related, 2 are counted.
    expect(orphan.properties.omittedEvidence).toBe(2);
    for (const x of results) expect(x.relatedLocations?.length ?? 0).toBeLessThanOrEqual(MAX_RELATED_LOCATIONS);
  });

  it('carries GitHub\'s primaryLocationLineHash, the same on every run', async () => {
    const a = JSON.parse((await runBin(['--sessions', path.join(dir, 'wide.jsonl'), '--all', '--format', 'sarif', '--fail-on', 'none'])).stdout).runs[0].results;
    const b = JSON.parse((await runBin(['--sessions', path.join(dir, 'wide.jsonl'), '--all', '--format', 'sarif', '--fail-on', 'none'])).stdout).runs[0].results;
    for (const [i, x] of a.entries()) {
      expect(x.partialFingerprints.primaryLocationLineHash).toMatch(/^[0-9a-f]{16}:1$/);
      expect(x.partialFingerprints.primaryLocationLineHash).toBe(b[i].partialFingerprints.primaryLocationLineHash);
    }
  });
});
