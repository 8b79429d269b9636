// Totals or an aggregated_status the checks cannot read leave totals-mismatch and status-mismatch
// silent: the Limits say so, or the silence would read as agreement.
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const D = 'd-join-fields';
const limitsOf = async (join: Record<string, unknown>) => {
  const input = journal(
    ev.started('2026-03-10T10:00:00Z', { delegation_id: D, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a', 'b'] }),
    ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: D, sub_run_id: 'ra', parent_run_id: 'p', agent_id: 'a' }),
    ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: D, sub_run_id: 'rb', parent_run_id: 'p', agent_id: 'b' }),
    ev.subCompleted('2026-03-10T10:00:02Z', { delegation_id: D, sub_run_id: 'ra', agent_id: 'a', status: 'completed', output_preview: 'a done' }),
    ev.subCompleted('2026-03-10T10:00:03Z', { delegation_id: D, sub_run_id: 'rb', agent_id: 'b', status: 'failed', error: 'boom', output_preview: null }),
    ev.completed('2026-03-10T10:00:04Z', { delegation_id: D, pattern: 'fan_out', aggregated_output_preview: 'a done', ...join } as never),
  );
  const r = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z'], { input });
  const [d] = (JSON.parse(r.stdout) as { delegations: { limits: string[]; findings: { id: string }[] }[] }).delegations;
  return { limits: d.limits.filter((l) => l.startsWith('The delegation_')), findings: d.findings.map((f) => f.id) };
};

describe('Limits: delegation_completed fields the checks could not read', () => {
  it('totals given as strings: named, and the checks that needed them are said to have been skipped', async () => {
    const r = await limitsOf({ total_sub_runs: '2', succeeded: '2', failed: '0', aggregated_status: 'completed' });
    expect(r.findings).not.toContain('status-mismatch');
    expect(r.limits).toEqual([expect.stringMatching(/^The delegation_completed at .*:6 has total_sub_runs, succeeded, failed missing or not an integer \(the engine writes integers\): the checks that compare them with the children could not\.$/)]);
  });

  it('an aggregated_status the engine never writes ("Partial") is named', async () => {
    const r = await limitsOf({ total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'Partial' });
    expect(r.limits).toEqual([expect.stringContaining('has aggregated_status "Partial", none the engine writes (completed, partial, failed, unfinished): status-mismatch could not judge it.')]);
  });

  it('an agent_count given as a string is named too', async () => {
    const input = journal(
      ev.started('2026-03-10T10:00:00Z', { delegation_id: D, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'], agent_count: '1' } as never),
      ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: D, sub_run_id: 'ra', parent_run_id: 'p', agent_id: 'a' }),
      ev.subCompleted('2026-03-10T10:00:02Z', { delegation_id: D, sub_run_id: 'ra', agent_id: 'a', status: 'completed', output_preview: 'a done' }),
      ev.completed('2026-03-10T10:00:03Z', { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'a done' }),
    );
    const r = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z'], { input });
    const [d] = (JSON.parse(r.stdout) as { delegations: { limits: string[] }[] }).delegations;
    expect(d.limits.filter((l) => l.startsWith('The delegation_'))).toEqual([expect.stringMatching(/^The delegation_started at .*:1 has agent_count missing or not an integer \(the engine writes one\): agent-set-mismatch could not compare it with agent_ids\.$/)]);
  });

  it('integer totals and a known status: no such line (the look-alike)', async () => {
    const r = await limitsOf({ total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' });
    expect(r.limits).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});
