// Gen 0 journals have no output_preview on sub-run completions and no aggregated_output_preview on
// delegation_completed (journal-format.md §0): silent-failure and failed-in-aggregate then cannot
// judge outputs. The Limits say so, or their silence would read as "the outputs were fine".
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { line, journal } from '../helpers/journal.js';

const D = 'd-gen0';
const started = (pattern: string) => line('delegation_started', '2024-11-01T08:00:00+00:00', { agent_count: 2, agent_ids: ['a', 'b'], delegation_id: D, parent_run_id: 'p', pattern });
const subStarted = (ts: string, run: string, agent: string) =>
  line('delegation_sub_run_started', ts, { agent_id: agent, delegation_id: D, depth: 1, parent_run_id: 'p', retry_of: null, status: 'running', sub_run_id: run });
// Gen 0: `error` only, no output_preview key.
const gen0Completed = (ts: string, run: string, agent: string, status: string, error: string | null) =>
  line('delegation_sub_run_completed', ts, { agent_id: agent, delegation_id: D, error, status, sub_run_id: run });
const gen0Join = (pattern: string) =>
  line('delegation_completed', '2024-11-01T08:00:12+00:00', { aggregated_status: 'partial', delegation_id: D, failed: 1, pattern, succeeded: 1, total_sub_runs: 2 });

const limitsOf = async (input: string) => {
  const r = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z'], { input });
  const [d] = (JSON.parse(r.stdout) as { delegations: { limits: string[]; findings: { id: string }[] }[] }).delegations;
  return { limits: d.limits.filter((l) => /output_preview/.test(l)), findings: d.findings.map((f) => f.id) };
};

describe('Limits: output previews a Gen 0 journal does not write', () => {
  it('fan_out without any preview key: both missing previews are named, with the checks that could not judge them', async () => {
    const r = await limitsOf(
      journal(
        started('fan_out'),
        subStarted('2024-11-01T08:00:01+00:00', 'ra', 'a'),
        subStarted('2024-11-01T08:00:02+00:00', 'rb', 'b'),
        gen0Completed('2024-11-01T08:00:10+00:00', 'ra', 'a', 'completed', null),
        gen0Completed('2024-11-01T08:00:11+00:00', 'rb', 'b', 'failed', 'boom'),
        gen0Join('fan_out'),
      ),
    );
    expect(r.findings).toEqual([]);
    expect(r.limits).toEqual([
      expect.stringMatching(/^2 sub-run completions \(first at .*:4\) have no output_preview \(absent, as journals of the oldest engine version write none, or not a string\): silent-failure and failed-in-aggregate could not judge their outputs\.$/),
      expect.stringMatching(/^The delegation_completed at .*:6 has no aggregated_output_preview \(absent, as journals of the oldest engine version write none, or not a string\): failed-in-aggregate could not check what the join published\.$/),
    ]);
  });

  it('sequential: only the sub-run previews (its join never carries an aggregate)', async () => {
    const r = await limitsOf(
      journal(
        started('sequential'),
        subStarted('2024-11-01T08:00:01+00:00', 'ra', 'a'),
        gen0Completed('2024-11-01T08:00:10+00:00', 'ra', 'a', 'failed', 'boom'),
        subStarted('2024-11-01T08:00:10.5+00:00', 'rb', 'b'),
        line('delegation_sub_run_completed', '2024-11-01T08:00:11+00:00', { agent_id: 'b', delegation_id: D, error: null, output_preview: 'b did it', status: 'completed', sub_run_id: 'rb' }),
        gen0Join('sequential'),
      ),
    );
    expect(r.limits).toEqual([expect.stringMatching(/^A sub-run completion \(.*:3\) has no output_preview .*: silent-failure and failed-in-aggregate could not judge its output\.$/)]);
  });

  it('previews present, even null: no such line (the look-alike)', async () => {
    const r = await limitsOf(
      journal(
        started('fan_out'),
        subStarted('2024-11-01T08:00:01+00:00', 'ra', 'a'),
        subStarted('2024-11-01T08:00:02+00:00', 'rb', 'b'),
        line('delegation_sub_run_completed', '2024-11-01T08:00:10+00:00', { agent_id: 'a', delegation_id: D, error: null, output_preview: 'a done', status: 'completed', sub_run_id: 'ra' }),
        line('delegation_sub_run_completed', '2024-11-01T08:00:11+00:00', { agent_id: 'b', delegation_id: D, error: 'boom', output_preview: null, status: 'failed', sub_run_id: 'rb' }),
        line('delegation_completed', '2024-11-01T08:00:12+00:00', { aggregated_output_preview: null, aggregated_status: 'partial', delegation_id: D, failed: 1, pattern: 'fan_out', succeeded: 1, total_sub_runs: 2 }),
      ),
    );
    expect(r.limits).toEqual([]);
  });
});
