// An orphan delegation (its delegation_started not read) shows the parent run its sub-run starts name.
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

describe('the parent run of an orphan delegation', () => {
  it('is the one its sub-run starts name, in JSON and in the text header', async () => {
    const args = ['--sessions', 'fixtures/checks/orphan-event/trigger-start-not-read', '--all', '--fail-on', 'none'];
    const doc = JSON.parse((await runMain([...args, '--format', 'json'])).stdout);
    expect(doc.delegations.map((d: { key: string; parentRunId: string | null; startedTs: string | null }) => [d.key, d.parentRunId, d.startedTs])).toEqual([
      ['0ec8d73b-886a-4d09-a229-bf1d7c91cb38', '3b3420db-f981-4b3b-ae8d-0ce94abacbf1', null],
    ]);
    expect((await runMain(args)).stdout).toContain('\nParent run: 3b3420db-f981-4b3b-ae8d-0ce94abacbf1\n');
  });

  it('stays unknown when the sub-run starts name different parent runs', async () => {
    const input = journal(
      ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: 'd-orphan', sub_run_id: 'r-1', parent_run_id: 'p-one', agent_id: 'a' }),
      ev.subStarted('2026-03-10T10:00:02Z', { delegation_id: 'd-orphan', sub_run_id: 'r-2', parent_run_id: 'p-two', agent_id: 'b' }),
    );
    const r = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none'], { input });
    expect(JSON.parse(r.stdout).delegations.map((d: { parentRunId: string | null }) => d.parentRunId)).toEqual([null]);
  });
});
