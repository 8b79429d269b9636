// `last` reads the newest file only; two joins of a reused id with the same totals but another
// pattern on one delegation are not one join written twice: the tree is read whole, as --all.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { journal, line } from '../helpers/journal.js';

const X = 'xxxxxxxx-0000-4000-8000-000000000001';
const T = (s: string) => `2026-03-01T10:${s}+00:00`;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const sub = (ts: string, run: string, parent: string, agent: string) =>
  line('delegation_sub_run_started', T(ts), { agent_id: agent, delegation_id: X, depth: 1, parent_run_id: parent, retry_of: null, status: 'running', sub_run_id: run }, 'new');
const done = (ts: string, run: string, agent: string, status: string) =>
  line('delegation_sub_run_completed', T(ts), { agent_id: agent, delegation_id: X, error: status === 'completed' ? null : 'boom', output_preview: status === 'completed' ? `${run} out` : null, status, sub_run_id: run }, 'new');
const join = (ts: string, pattern: string) =>
  line('delegation_completed', T(ts), { aggregated_output_preview: null, aggregated_status: 'partial', delegation_id: X, failed: 1, pattern, succeeded: 1, total_sub_runs: 2 }, 'new');

function put(root: string, rel: string, lines: string[], mtime: string): void {
  writeFileSync(path.join(root, rel), journal(...lines));
  utimesSync(path.join(root, rel), new Date(mtime), new Date(mtime));
}

/** An older fork use whose start is in old.jsonl and sub-runs in new.jsonl, then a pipeline use and its nested adversarial_review use. */
function tree(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'td-recent-join-'));
  dirs.push(root);
  mkdirSync(root, { recursive: true });
  put(root, 'old.jsonl', [line('delegation_started', T('33:56'), { agent_count: 1, agent_ids: ['planner×2'], delegation_id: X, parent_run_id: 'p-old', pattern: 'fork' }, 'old'), line('session_end', T('34:30'), {}, 'old')], T('34:31'));
  put(root, 'new.jsonl', [
    sub('33:57', 'f1', 'p-old', 'planner'), done('33:58', 'f1', 'planner', 'failed'),
    sub('33:59', 'f2', 'p-old', 'planner'), done('34:00', 'f2', 'planner', 'completed'),
    line('delegation_started', T('44:25'), { agent_count: 2, agent_ids: ['reviewer', 'tester'], delegation_id: X, parent_run_id: 'p-pipe', pattern: 'pipeline' }, 'new'),
    sub('44:26', 'p-adv', 'p-pipe', 'reviewer'),
    line('delegation_started', T('44:27'), { agent_count: 2, agent_ids: ['coder', 'reviewer'], delegation_id: X, parent_run_id: 'p-adv', pattern: 'adversarial_review' }, 'new'),
    sub('44:28', 'a1', 'p-adv', 'coder'), done('44:29', 'a1', 'coder', 'completed'),
    sub('44:30', 'a2', 'p-adv', 'reviewer'), done('44:31', 'a2', 'reviewer', 'failed'),
    join('44:32', 'adversarial_review'),
    done('44:33', 'p-adv', 'reviewer', 'failed'),
    sub('44:34', 't1', 'p-pipe', 'tester'), done('44:35', 't1', 'tester', 'completed'),
    join('44:36', 'pipeline'),
  ], T('44:37'));
  return root;
}

describe('last on a reused id whose joins differ only in pattern', () => {
  it('gives the newest use with its own join, as --all does', async () => {
    const root = tree();
    const checkOptions = { nowMs: Date.parse('2030-01-01T00:00:00Z') };
    const all = (await analyze({ sessions: [root], all: true, checkOptions })).report.delegations;
    const adv = all.find((d) => d.pattern === 'adversarial_review')!;
    expect(adv.timeline.filter((t) => t.kind === 'delegation completed').map((t) => t.line)).toEqual([12]);
    const last = (await analyze({ sessions: [root], target: 'last', checkOptions })).report.delegations;
    expect(last.map((d) => ({ key: d.key, joins: d.timeline.filter((t) => t.kind === 'delegation completed').map((t) => t.line), findings: d.findings.map((f) => f.id) }))).toEqual([
      { key: adv.key, joins: [12], findings: adv.findings.map((f) => f.id) },
    ]);
  });
});
