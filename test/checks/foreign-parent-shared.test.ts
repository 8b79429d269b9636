/**
 * foreign-parent with one sub_run_id in many delegations: each finding names the first ten other
 * delegations (scan order) and counts the rest, so a run id shared by thousands of delegations
 * is not a list of every pair (the audit's `sharedsub`: 4,000 delegations made 1.5 GB).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceReport } from '../../src/report/types.js';
import { FIXED_NOW, runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const T = (s: number) => new Date(Date.UTC(2026, 2, 10, 10) + s * 1000).toISOString().replace('Z', '000000+00:00');

/** `n` delegations d0…, each of its own parent run, each starting and completing sub-run SHARED. */
function sharedRun(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `d${String(i).padStart(2, '0')}`;
    lines.push(
      ev.started(T(4 * i), { delegation_id: id, parent_run_id: `p${i}`, pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(4 * i + 1), { delegation_id: id, sub_run_id: 'SHARED', parent_run_id: `p${i}`, agent_id: 'a' }),
      ev.subCompleted(T(4 * i + 2), { delegation_id: id, sub_run_id: 'SHARED', agent_id: 'a', status: 'completed', output_preview: `out ${i}` }),
      ev.completed(T(4 * i + 3), { delegation_id: id, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `out ${i}` }),
    );
  }
  return journal(...lines);
}

async function sharedFindings(n: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-shared-run-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'shared.jsonl'), sharedRun(n));
  const r = await runMain(['--sessions', dir, '--all', '--format', 'json', '--now', FIXED_NOW]);
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout) as TraceReport;
  return report.delegations.map((d) => ({ id: d.id, shared: d.findings.filter((f) => f.id === 'foreign-parent' && f.message.includes('also appears')) }));
}

const named = (i: number) => `d${String(i).padStart(2, '0')} (parent run p${i})`;
const line = (i: number) => `shared.jsonl:${4 * i + 2}`;

describe('foreign-parent: one sub-run id in many delegations', () => {
  it('names all the others when there are ten, exactly as before', async () => {
    const found = await sharedFindings(11);
    expect(found).toHaveLength(11);
    const [first] = found;
    expect(first.shared).toHaveLength(1);
    const others = Array.from({ length: 10 }, (_, k) => k + 1);
    expect(first.shared[0].message).toBe(`sub-run SHARED also appears in delegation ${others.map(named).join(', ')}: one run's result can be joined by two delegations`);
    expect(first.shared[0].evidence.map((e) => `${path.basename(e.file)}:${e.line}`)).toEqual([line(0), ...others.map(line)]);
  });

  it('names the first ten others in scan order and counts the rest ("and N more"), evidence likewise', async () => {
    const found = await sharedFindings(25);
    for (const [i, d] of found.entries()) {
      expect(d.shared, d.id).toHaveLength(1);
      const others = Array.from({ length: 25 }, (_, k) => k).filter((k) => k !== i);
      const listed = others.slice(0, 10);
      expect(d.shared[0].message).toBe(`sub-run SHARED also appears in delegation ${listed.map(named).join(', ')} and 14 more: one run's result can be joined by two delegations`);
      expect(d.shared[0].evidence.map((e) => `${path.basename(e.file)}:${e.line}`)).toEqual([line(i), ...listed.map(line)]);
      expect(d.shared[0].runs).toEqual(['SHARED']);
    }
  });

  it('a run shared by 600 delegations: every finding stays ten names long', async () => {
    const found = await sharedFindings(600);
    const messages = found.map((d) => d.shared.map((f) => f.message));
    expect(messages.every((m) => m.length === 1 && m[0].endsWith(' and 589 more: one run\'s result can be joined by two delegations'))).toBe(true);
    expect(Math.max(...found.map((d) => d.shared[0].evidence.length))).toBe(11);
  });
});
