// foreign-parent's shared-run evidence names each delegation's first event of the run in time,
// so moving a journal from <root>/ to v1/users/<owner>/sessions/ (another file order) keeps it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { ev, journal } from '../helpers/journal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ALICE = `v1/users/b64-${Buffer.from('alice').toString('base64url')}/sessions`;

/** d-1's run r-shared starts in s-start.jsonl and completes in s-end.jsonl (a tracker in another session); d-2 starts the same run id. */
function tree(endDir: string): string {
  const root = mkdtempSync(path.join(tmpdir(), 'td-fp-layout-'));
  dirs.push(root);
  const put = (rel: string, lines: string[]) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), journal(...lines));
  };
  put(`${ALICE}/s-start.jsonl`, [
    ev.started('2026-03-01T10:00:00Z', { delegation_id: 'd-1', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subStarted('2026-03-01T10:00:01Z', { delegation_id: 'd-1', sub_run_id: 'r-shared', parent_run_id: 'p-1', agent_id: 'coder' }),
    ev.started('2026-03-01T10:05:00Z', { delegation_id: 'd-2', parent_run_id: 'p-2', pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subStarted('2026-03-01T10:05:01Z', { delegation_id: 'd-2', sub_run_id: 'r-shared', parent_run_id: 'p-2', agent_id: 'coder' }),
  ]);
  put(`${endDir}/s-end.jsonl`, [
    ev.subCompleted('2026-03-01T10:00:02Z', { delegation_id: 'd-1', sub_run_id: 'r-shared', agent_id: 'coder', status: 'completed', output_preview: 'ok' }),
  ]);
  return root;
}

async function sharedEvidence(root: string): Promise<string[]> {
  const { report } = await analyze({ sessions: [root], all: true, checkOptions: { nowMs: Date.parse('2030-01-01T00:00:00Z') } });
  const f = report.delegations.find((d) => d.key === 'd-1')!.findings.find((x) => x.id === 'foreign-parent')!;
  return f.evidence.map((e) => `${path.basename(e.file)}:${e.line}`);
}

describe('foreign-parent: a sub_run_id in two delegations', () => {
  it('cites the run\'s first event in time, in either layout', async () => {
    const legacy = await sharedEvidence(tree('.'));
    const moved = await sharedEvidence(tree('v1/users/b64-bG9jYWw/sessions'));
    expect(legacy).toEqual(['s-start.jsonl:2', 's-start.jsonl:4']);
    expect(moved).toEqual(legacy);
  });
});
