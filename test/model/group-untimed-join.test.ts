// A delegation_completed without a usable ts, of a reused id, goes to the use it follows in its
// file (where the scan places it), as `last` reading that file alone gives: not to the first use.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { journal, line } from '../helpers/journal.js';

const D = 'dddddddd-0000-4000-8000-000000000001';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function put(root: string, rel: string, lines: string[], mtime: string): void {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, journal(...lines));
  utimesSync(p, new Date(mtime), new Date(mtime));
}

/** An older fork use left open in one session, a later fan_out use whose join has `ts` as given. */
function tree(joinTs: string | undefined): string {
  const root = mkdtempSync(path.join(tmpdir(), 'td-untimed-join-'));
  dirs.push(root);
  put(root, 'sess-old.jsonl', [
    line('delegation_started', '2026-03-01T10:20:58+00:00', { agent_count: 1, agent_ids: ['planner×2'], delegation_id: D, parent_run_id: 'parent-old', pattern: 'fork' }, 'sess-old'),
    line('delegation_sub_run_started', '2026-03-01T10:20:58.2+00:00', { agent_id: 'planner', delegation_id: D, depth: 1, parent_run_id: 'parent-old', retry_of: null, status: 'running', sub_run_id: 'run-old' }, 'sess-old'),
  ], '2026-03-01T10:21:00Z');
  const join = { type: 'delegation_completed', ...(joinTs === undefined ? {} : { ts: joinTs }), session_id: 'sess-new', metadata: { aggregated_output_preview: 'planner out', aggregated_status: 'completed', delegation_id: D, failed: 0, pattern: 'fan_out', succeeded: 1, total_sub_runs: 1 } };
  put(root, 'v1/users/b64-bG9jYWw/sessions/sess-new.jsonl', [
    line('delegation_started', '2026-03-01T10:30:23+00:00', { agent_count: 1, agent_ids: ['planner'], delegation_id: D, parent_run_id: 'parent-new', pattern: 'fan_out' }, 'sess-new'),
    line('delegation_sub_run_started', '2026-03-01T10:30:24+00:00', { agent_id: 'planner', delegation_id: D, depth: 1, parent_run_id: 'parent-new', retry_of: null, status: 'running', sub_run_id: 'run-new' }, 'sess-new'),
    line('delegation_sub_run_completed', '2026-03-01T10:30:24.5+00:00', { agent_id: 'planner', delegation_id: D, error: null, output_preview: 'planner out', status: 'completed', sub_run_id: 'run-new' }, 'sess-new'),
    JSON.stringify(join),
  ], '2026-03-01T10:30:26Z');
  return root;
}

describe('an untimed delegation_completed of a reused id', () => {
  for (const [name, ts] of [['missing', undefined], ['unparseable', 'not-a-time']] as const) {
    it(`(ts ${name}) joins the use it follows in its file, in --all as in last`, async () => {
      const root = tree(ts);
      const checkOptions = { nowMs: Date.parse('2030-01-01T00:00:00Z') };
      const all = (await analyze({ sessions: [root], all: true, checkOptions })).report.delegations;
      const later = all.find((d) => d.key === `${D}#2`)!;
      expect(later.status.aggregated).toBe('completed');
      expect(later.findings.map((f) => f.id)).toEqual([]);
      const first = all.find((d) => d.key === D)!;
      expect(first.status.aggregated).toBeNull();
      expect(first.findings.map((f) => f.id).sort()).toEqual(['delegation-incomplete', 'missing-completion']);
      const last = (await analyze({ sessions: [root], target: 'last', checkOptions })).report.delegations;
      expect(last.map((d) => [d.status.aggregated, d.findings.map((f) => f.id)])).toEqual([[later.status.aggregated, []]]);
    });
  }
});
