/**
 * Journal-sized arrays are never spread into a call (`push(...list)`, `Math.min(...times)`):
 * each item becomes an argument, and past ~120,000 of them V8 throws "Maximum call stack size
 * exceeded". These run the real functions with 150,000 items where the journal decides the count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import type { TraceReport } from '../../src/report/types.js';
import { buildDelegationReport } from '../../src/report/build.js';
import { group } from '../helpers/events.js';
import { FIXED_NOW, runMain } from '../helpers/cli.js';
import { ev } from '../helpers/journal.js';
import { expectHealthy, removeTempDirs, tempDir, writeTree } from './support.js';

afterAll(removeTempDirs);

const N = 150_000;
const T = (ms: number) => new Date(Date.UTC(2026, 2, 10, 10) + ms).toISOString().replace('Z', '000000+00:00');

/** One delegation whose delegation_started is journaled `n` times: a note for each repeat. */
function repeatedStart(n: number): string[] {
  const start = ev.started(T(0), { delegation_id: 'd-rep', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] });
  return [
    ...Array.from({ length: n }, () => start),
    ev.subStarted(T(1), { delegation_id: 'd-rep', sub_run_id: 'r0', parent_run_id: 'p', agent_id: 'a' }),
    ev.subCompleted(T(2), { delegation_id: 'd-rep', sub_run_id: 'r0', agent_id: 'a', status: 'completed', output_preview: 'done' }),
    ev.completed(T(3), { delegation_id: 'd-rep', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'done' }),
  ];
}

/** One run paused and resumed `n` times: its timeline and its swimlane bar carry every marker. */
function manyMarkers(n: number): string[] {
  return [
    ev.started(T(0), { delegation_id: 'd-mark', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
    ev.subStarted(T(1), { delegation_id: 'd-mark', sub_run_id: 'r0', parent_run_id: 'p', agent_id: 'a' }),
    ...Array.from({ length: n }, (_, i) => ev.marker(T(2 + i), i % 2 ? 'resume' : 'pause', 'r0')),
    ev.subCompleted(T(n + 2), { delegation_id: 'd-mark', sub_run_id: 'r0', agent_id: 'a', status: 'completed', output_preview: 'done' }),
    ev.completed(T(n + 3), { delegation_id: 'd-mark', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'done' }),
  ];
}

describe('150,000 items from the journal in one delegation', () => {
  it('report limits: one note per repeated delegation_started, all kept', () => {
    const [d] = group({ 'rep.jsonl': repeatedStart(N) });
    expect(d.notes).toHaveLength(N - 1);
    const report = buildDelegationReport(d, [], new Map());
    expect(report.limits.filter((l) => l.startsWith('delegation_started is journaled more than once'))).toHaveLength(N - 1);
  });

  describe('a run with 150,000 sync markers', () => {
    let report: TraceReport;
    beforeAll(async () => {
      const root = tempDir('markers');
      writeTree(root, { 'mark.jsonl': `${manyMarkers(N).join('\n')}\n` }); // not journal(...lines): the same spread
      const json = await runMain(['--sessions', root, '--all', '--format', 'json', '--now', FIXED_NOW]);
      expectHealthy(json, 'json');
      report = JSON.parse(json.stdout) as TraceReport;
      expect(report.delegations[0].timeline.length).toBeGreaterThan(N);
    });

    it("markdown lists the timeline lines that fit GitHub's 1 MiB job-summary limit, and says how many more there are", () => {
      const md = FORMATTERS.markdown(report, { color: false, failOn: 'error' });
      expect(Buffer.byteLength(md)).toBeLessThanOrEqual(1_000_000);
      const shown = md.split('\n').filter((l) => / marker: (pause|resume) run=r0/.test(l)).length;
      expect(shown).toBeGreaterThan(5000);
      const more = /^- \*(\d+) more timeline lines left out to stay under GitHub's 1 MiB limit for a job summary: the JSON or HTML output has them all\.\*$/m.exec(md);
      expect(Number(more?.[1])).toBe(report.delegations[0].timeline.length - md.split('\n').filter((l) => /^- \d{4}-/.test(l)).length);
      expect(shown).toBeLessThan(N);
    });

    it('html draws the bar across every marker', () => {
      const html = FORMATTERS.html(report, { color: false, failOn: 'error' });
      expect(html).toContain('class="swimlane"');
      expect(html.split('<g class="marker">').length - 1).toBe(N);
    });
  });
});
