// A damaged start naming thousands of agents: one check's findings on one delegation stop at
// MAX_FINDINGS_PER_CHECK, and one more finding says how many were left out.
import { describe, expect, it } from 'vitest';
import { MAX_FINDINGS_PER_CHECK } from '../../src/checks/run.js';
import { runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

/** A fan_out naming `extra` agents besides a and b, of which only a and b ever start. */
function manyAgents(extra: number): string {
  const d = 'd-wide';
  const T = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
  const agents = ['a', 'b', ...Array.from({ length: extra }, (_, i) => `x${i}`)];
  return journal(
    ev.started(T(0), { delegation_id: d, parent_run_id: 'p', pattern: 'fan_out', agent_ids: agents }),
    ev.subStarted(T(1), { delegation_id: d, sub_run_id: 'r1', parent_run_id: 'p', agent_id: 'a' }),
    ev.subStarted(T(1), { delegation_id: d, sub_run_id: 'r2', parent_run_id: 'p', agent_id: 'b' }),
    ev.subCompleted(T(5), { delegation_id: d, sub_run_id: 'r1', agent_id: 'a', status: 'completed', output_preview: 'ok' }),
    ev.subCompleted(T(6), { delegation_id: d, sub_run_id: 'r2', agent_id: 'b', status: 'failed', error: 'boom' }),
    ev.completed(T(7), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' }),
  );
}

async function missingStarts(extra: number) {
  const r = await runMain(['--stdin', '--format', 'json', '--fail-on', 'none'], { input: manyAgents(extra) });
  expect(r.code).toBe(0);
  const [d] = JSON.parse(r.stdout).delegations;
  return d.findings.filter((f: { id: string }) => f.id === 'missing-start') as { severity: string; message: string; evidence: unknown[] }[];
}

describe('findings of one check on one delegation', () => {
  it('lists every finding up to the cap', async () => {
    const found = await missingStarts(MAX_FINDINGS_PER_CHECK);
    expect(found).toHaveLength(MAX_FINDINGS_PER_CHECK);
    expect(found.at(-1)!.message).toMatch(/^agent x999: 1 expected child never started/);
  });

  it('past the cap, lists the first ones and one finding that counts the rest, worded from the first left out', async () => {
    const found = await missingStarts(MAX_FINDINGS_PER_CHECK + 250);
    expect(found).toHaveLength(MAX_FINDINGS_PER_CHECK + 1);
    const folded = found.at(-1)!;
    expect(folded.severity).toBe('error');
    expect(folded.message).toMatch(/^250 more findings of this check on this delegation left out \(at most 1,000 are listed\); the first of them: agent x1000: 1 expected child never started/);
    expect(folded.evidence.length).toBeGreaterThan(0);
  });
});
