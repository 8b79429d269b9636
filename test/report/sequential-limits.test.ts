// A sequential delegation's Limits say stop_on_success was inferred only when it was: when a later
// stage never ran. With every stage run, the standard line (stop_on_success is not journaled) says it all.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin } from '../helpers/cli.js';

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
});
