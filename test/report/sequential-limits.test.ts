// A sequential delegation's Limits say stop_on_success was inferred only when it was: when a later
// stage never ran. With every stage run, the standard line (stop_on_success is not journaled) says it all.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const LINE = 'Whether stop_on_success was set is inferred from which stages ran.';
const limitsOf = async (fixture: string) => {
  const r = await runBin(['--sessions', path.join(FIXTURES, 'checks', 'sequential-stopped-early', fixture), '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z']);
  return (JSON.parse(r.stdout) as { delegations: { limits: string[] }[] }).delegations.map((d) => d.limits);
};

describe('sequential delegations: the stop_on_success Limits line', () => {
  it('is there when a later stage never started', async () => {
    const [limits] = await limitsOf('trigger-stop-on-success.jsonl');
    expect(limits).toContain(LINE);
  });

  it('is not there when every stage ran: nothing was inferred', async () => {
    const [limits] = await limitsOf('trap-all-stages-ran.jsonl');
    expect(limits).not.toContain(LINE);
    expect(limits).toContain('The aggregation strategy, stop_on_success and timeouts are not journaled.');
  });

  it('counts a stage agent listed twice: [a, a] with one a run stopped early', async () => {
    const input = journal(
      ev.started('2026-03-10T10:00:00Z', { delegation_id: 'd-aa', parent_run_id: 'p', pattern: 'sequential', agent_ids: ['a', 'a'] }),
      ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: 'd-aa', sub_run_id: 'r1', parent_run_id: 'p', agent_id: 'a' }),
      ev.subCompleted('2026-03-10T10:00:02Z', { delegation_id: 'd-aa', sub_run_id: 'r1', agent_id: 'a', status: 'completed', output_preview: 'done well' }),
      ev.completed('2026-03-10T10:00:03Z', { delegation_id: 'd-aa', pattern: 'sequential', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'done well' }),
    );
    const r = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z'], { input });
    expect((JSON.parse(r.stdout) as { delegations: { limits: string[] }[] }).delegations[0].limits).toContain(LINE);
  });
});
