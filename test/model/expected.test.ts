import { describe, expect, it } from 'vitest';
import { allowedStartsPerAgent, expectationFor, parseForkAgent } from '../../src/model/expected.js';
import { group } from '../helpers/events.js';
import { ev } from '../helpers/journal.js';

const TS = '2025-11-03T09:15:00.000000000+00:00';
const TS2 = '2025-11-03T09:16:00.000000000+00:00';

function delegation(pattern: string, agentIds: string[], opts: { agentCount?: number; total?: number } = {}) {
  const lines = [ev.started(TS, { delegation_id: 'd', parent_run_id: 'p', pattern, agent_ids: agentIds, ...(opts.agentCount === undefined ? {} : { agent_count: opts.agentCount }) })];
  if (opts.total !== undefined) lines.push(ev.completed(TS2, { delegation_id: 'd', pattern, total_sub_runs: opts.total, succeeded: opts.total, failed: 0, aggregated_status: 'completed' }));
  const [d] = group({ 's.jsonl': lines });
  return d;
}

describe('parseForkAgent', () => {
  it('splits "<agent>×N" on the multiplication sign the engine writes', () => {
    expect(parseForkAgent('tester×3')).toEqual({ agent: 'tester', n: 3 });
    expect(parseForkAgent('code-reviewer×12')).toEqual({ agent: 'code-reviewer', n: 12 });
  });

  it('rejects entries without an agent, a count or the × sign', () => {
    for (const s of ['tester', '×3', 'tester×', 'testerx3', 'tester*3', 'tester×three']) expect(parseForkAgent(s)).toBeNull();
  });
});

describe('expectationFor (journal-format.md §9)', () => {
  it('is unknown, not 0, when delegation_started was not read (agent_count is only there)', () => {
    for (const pattern of ['fan_out', 'pipeline', 'sequential']) {
      const [d] = group({ 's.jsonl': [ev.completed(TS2, { delegation_id: 'd', pattern, total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' })] });
      expect(expectationFor(d), pattern).toEqual({ agents: null, count: null, label: 'unknown (no delegation_started)', fork: null });
    }
  });

  it('fan_out, pipeline and sequential expect agent_count children, agents in list order with multiplicity', () => {
    for (const pattern of ['fan_out', 'pipeline', 'sequential']) {
      const e = expectationFor(delegation(pattern, ['coder', 'coder', 'reviewer']));
      expect(e).toEqual({ agents: ['coder', 'coder', 'reviewer'], count: 3, label: '3', fork: null });
    }
  });

  it('prints the journaled agent_count even when it disagrees with agent_ids (the check reports that)', () => {
    const e = expectationFor(delegation('fan_out', ['a', 'b'], { agentCount: 3 }));
    expect(e.count).toBe(3);
    expect(e.label).toBe('3');
  });

  it('fork expects N children of the one real agent, whatever agent_count says', () => {
    const e = expectationFor(delegation('fork', ['tester×3'], { agentCount: 1 }));
    expect(e).toEqual({ agents: ['tester', 'tester', 'tester'], count: 3, label: '3', fork: { agent: 'tester', n: 3 } });
  });

  it('a fork without ×N cannot be sized', () => {
    const e = expectationFor(delegation('fork', ['tester']));
    expect(e.agents).toBeNull();
    expect(e.count).toBeNull();
    expect(e.label).toMatch(/^unknown .*tester/);
  });

  it('adversarial_review: rounds come from total_sub_runs once completed, alternating producer and reviewer', () => {
    const done = expectationFor(delegation('adversarial_review', ['writer', 'critic'], { total: 4 }));
    expect(done).toMatchObject({ agents: ['writer', 'critic', 'writer', 'critic'], count: 4, label: '4' });
    const open = expectationFor(delegation('adversarial_review', ['writer', 'critic']));
    expect(open).toEqual({ agents: null, count: null, label: '2 agents, rounds unknown', fork: null });
  });

  it('an unknown pattern falls back to the agent list; no start at all says so', () => {
    expect(expectationFor(delegation('swarm', ['a', 'b']))).toMatchObject({ agents: ['a', 'b'], count: 2, label: '2' });
    const [orphan] = group({ 's.jsonl': [ev.completed(TS2, { delegation_id: 'x', pattern: 'mystery', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' })] });
    expect(expectationFor(orphan)).toMatchObject({ agents: null, count: null, label: 'unknown (no delegation_started)' });
  });
});

describe('allowedStartsPerAgent', () => {
  it('counts starts allowed per agent from the expected list', () => {
    const d = delegation('fan_out', ['coder', 'coder', 'reviewer']);
    expect(allowedStartsPerAgent(d, expectationFor(d))).toEqual(new Map([['coder', 2], ['reviewer', 1]]));
    const fork = delegation('fork', ['tester×3'], { agentCount: 1 });
    expect(allowedStartsPerAgent(fork, expectationFor(fork))).toEqual(new Map([['tester', 3]]));
  });

  it('has no limit when the pattern cannot be sized', () => {
    const open = delegation('adversarial_review', ['writer', 'critic']);
    expect(allowedStartsPerAgent(open, expectationFor(open))).toBeNull();
  });
});
