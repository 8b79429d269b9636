// A Gen A completion that says paused or waiting leaves its run open in every view, as the findings say.
import { describe, expect, it } from 'vitest';
import { FIXED_NOW, runMain } from '../helpers/cli.js';

const journal = (status: string) => `fixtures/checks/missing-completion/trigger-gen-a-${status}-completion.jsonl`;
const run = (status: string, format: string) => runMain(['--sessions', journal(status), '--all', '--now', FIXED_NOW, '--format', format]);

describe('paused and waiting completions', () => {
  for (const status of ['paused', 'waiting']) {
    it(`${status}: the attempt is open in JSON, active in the gantt, an open bar in HTML`, async () => {
      const doc = JSON.parse((await run(status, 'json')).stdout);
      const writer = doc.delegations[0].children.find((c: { agentId: string }) => c.agentId === 'writer');
      expect(writer.attempts.map((a: { status: string; open: boolean }) => [a.status, a.open])).toEqual([[status, true]]);
      expect((await run(status, 'markdown')).stdout).toMatch(/\n {4}attempt 1 writer open :active, r\d+, /);
      expect((await run(status, 'html')).stdout).toMatch(new RegExp(`class="bar st-${status} open"[^>]*data-agent="writer"`));
    });
  }

  it('a completion whose status is no sub-run state is settled, and a failure in the gantt', async () => {
    const doc = JSON.parse((await runMain(['--sessions', 'fixtures/checks/missing-completion/trap-unknown-status.jsonl', '--all', '--now', FIXED_NOW, '--format', 'json'])).stdout);
    const attempts = doc.delegations[0].children.map((c: { agentId: string; attempts: { status: string | null; open: boolean }[] }) => [c.agentId, c.attempts[0].status, c.attempts[0].open]);
    expect(attempts).toEqual([['quota', 'rejected', false], ['blank', null, false], ['counter', 'completed', false]]);
    const md = (await runMain(['--sessions', 'fixtures/checks/missing-completion/trap-unknown-status.jsonl', '--all', '--now', FIXED_NOW, '--format', 'markdown'])).stdout;
    expect(md).toMatch(/attempt 1 quota rejected :crit, /);
    expect(md).toMatch(/attempt 1 blank no status :crit, /);
    expect(md).toMatch(/attempt 1 counter completed :done, /);
  });
});
