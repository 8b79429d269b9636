/**
 * Shapes no engine writes on purpose but a journal can hold: delegations nested thousands deep,
 * retry chains thousands long, thousands of sub-runs in one delegation. Every format must
 * still render them (no recursion that overflows the stack, no exit 2).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain } from '../helpers/cli.js';
import { line } from '../helpers/journal.js';
import { expectHealthy, removeTempDirs, tempDir, writeTree } from './support.js';

afterAll(removeTempDirs);

const ts = (i: number) => new Date(Date.UTC(2026, 2, 10) + i * 1000).toISOString();

/** Delegation d<i> is started by sub-run r<i-1> of d<i-1>: a chain `depth` long. */
function nestedChain(depth: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < depth; i++) {
    const parent = i === 0 ? 'root-run' : `r${i - 1}`;
    out.push(line('delegation_started', ts(2 * i), { delegation_id: `d${i}`, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 }));
    out.push(line('delegation_sub_run_started', ts(2 * i + 1), { delegation_id: `d${i}`, sub_run_id: `r${i}`, parent_run_id: parent, agent_id: 'a', depth: i + 1, retry_of: null, status: 'running' }));
  }
  return out;
}

/** One agent retried `n` times, each retry linked to the attempt before it. */
function retryChain(n: number): string[] {
  const out = [line('delegation_started', ts(0), { delegation_id: 'd-retry', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 })];
  for (let i = 0; i < n; i++) {
    out.push(line('delegation_sub_run_started', ts(3 * i + 1), { delegation_id: 'd-retry', sub_run_id: `r${i}`, parent_run_id: 'p', agent_id: 'a', depth: 1, retry_of: i ? `r${i - 1}` : null, status: 'running' }));
    out.push(line('delegation_sub_run_completed', ts(3 * i + 2), { delegation_id: 'd-retry', sub_run_id: `r${i}`, agent_id: 'a', status: 'verification_failed', error: null, output_preview: 'short' }));
    out.push(line('delegation_retry', ts(3 * i + 3), { delegation_id: 'd-retry', original_run_id: `r${i}`, retry_run_id: `r${i + 1}`, agent_id: 'a', attempt: i + 2, reason: 'output too short' }));
  }
  return out;
}

/** One fan_out with `n` agents, each run once. */
function wideFanOut(n: number): string[] {
  const agents = Array.from({ length: n }, (_, i) => `agent-${i}`);
  return [
    line('delegation_started', ts(0), { delegation_id: 'd-wide', parent_run_id: 'p', pattern: 'fan_out', agent_ids: agents, agent_count: n }),
    ...agents.map((a, i) => line('delegation_sub_run_started', ts(1), { delegation_id: 'd-wide', sub_run_id: `r${i}`, parent_run_id: 'p', agent_id: a, depth: 1, retry_of: null, status: 'running' })),
    ...agents.map((a, i) => line('delegation_sub_run_completed', ts(2 + (i % 7)), { delegation_id: 'd-wide', sub_run_id: `r${i}`, agent_id: a, status: i % 3 ? 'completed' : 'failed', error: i % 3 ? null : 'boom', output_preview: 'ok' })),
    line('delegation_completed', ts(10), { delegation_id: 'd-wide', pattern: 'fan_out', total_sub_runs: n, succeeded: n - Math.ceil(n / 3), failed: Math.ceil(n / 3), aggregated_status: 'partial' }),
  ];
}

async function everyFormat(name: string, lines: string[], target: string[]): Promise<void> {
  const root = tempDir(name);
  writeTree(root, { [`${name}.jsonl`]: `${lines.join('\n')}\n` });
  for (const format of Object.keys(FORMATTERS)) {
    const r = await runMain(['--sessions', root, ...target, '--format', format]);
    expectHealthy(r, `${name} as ${format}`);
  }
}

describe('deep and wide structures', () => {
  it('renders delegations nested 2000 deep, as --all and as the root target with its tree', async () => {
    const chain = nestedChain(2000);
    await everyFormat('nested', chain, ['--all']);
    const root = tempDir('nested-json');
    writeTree(root, { 'n.jsonl': `${chain.join('\n')}\n` });
    const r = await runMain(['--sessions', root, 'd0', '--format', 'json']);
    expectHealthy(r, 'root target');
    const doc = JSON.parse(r.stdout) as { target: { kind: string }; delegations: { id: string; parentDelegation: string | null }[] };
    expect(doc.target.kind).toBe('delegation');
    expect(doc.delegations).toHaveLength(2000);
    expect(doc.delegations[1999]).toMatchObject({ id: 'd1999', parentDelegation: 'd1998' });
  });

  it('renders a retry chain 300 attempts long', async () => {
    await everyFormat('retries', retryChain(300), ['--all']);
  });

  it('renders a fan_out of 2000 sub-runs', async () => {
    await everyFormat('wide', wideFanOut(2000), ['--all']);
  });

  it('counts, never lists, the children a journal promises: ×99999999999 and total_sub_runs 4294967295 are checked at once', async () => {
    const lines = [
      ...hugeCounts(),
      // A delegation beside them, which must still be reported.
      line('delegation_started', ts(20), { delegation_id: 'd-ok', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 }),
    ];
    await everyFormat('huge-counts', lines, ['--all']);
    const root = tempDir('huge-counts-json');
    writeTree(root, { 'h.jsonl': `${lines.join('\n')}\n` });
    const r = await runMain(['--sessions', root, '--all', '--format', 'json']);
    expectHealthy(r, 'huge counts as json');
    const doc = JSON.parse(r.stdout) as { delegations: { id: string; expectedCount: number | null; findings: { id: string; message: string }[] }[] };
    expect(doc.delegations.map((d) => [d.id, d.expectedCount])).toEqual([['d-fork', 99999999999], ['d-review', 4294967295], ['d-ok', 1]]);
    const messages = (id: string, check: string) => doc.delegations.find((d) => d.id === id)!.findings.filter((f) => f.id === check).map((f) => f.message).join();
    expect(messages('d-fork', 'missing-start')).toContain('agent coder: 99999999998 expected children never started');
    expect(messages('d-review', 'totals-mismatch')).toContain('4294967293 results did not succeed');
  });
});

/** A fork of ×99999999999 and an adversarial_review of 4294967295 sub-runs, one child of each journaled. */
function hugeCounts(): string[] {
  const sub = (d: string, run: string, agent: string, i: number) => [
    line('delegation_sub_run_started', ts(i), { delegation_id: d, sub_run_id: run, parent_run_id: 'p', agent_id: agent, depth: 1, retry_of: null, status: 'running' }),
    line('delegation_sub_run_completed', ts(i + 1), { delegation_id: d, sub_run_id: run, agent_id: agent, status: 'completed', error: null, output_preview: 'done and checked' }),
  ];
  return [
    line('delegation_started', ts(0), { delegation_id: 'd-fork', parent_run_id: 'p', pattern: 'fork', agent_ids: ['coder×99999999999'], agent_count: 1 }),
    ...sub('d-fork', 'f1', 'coder', 1),
    line('delegation_completed', ts(3), { delegation_id: 'd-fork', pattern: 'fork', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
    line('delegation_started', ts(10), { delegation_id: 'd-review', parent_run_id: 'p', pattern: 'adversarial_review', agent_ids: ['writer', 'critic'], agent_count: 2 }),
    ...sub('d-review', 'w1', 'writer', 11),
    ...sub('d-review', 'c1', 'critic', 13),
    line('delegation_completed', ts(15), { delegation_id: 'd-review', pattern: 'adversarial_review', total_sub_runs: 4294967295, succeeded: 2, failed: 0, aggregated_status: 'completed' }),
  ];
}
