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
      expect(expectationFor(d), pattern).toEqual({ agentCounts: null, count: null, label: 'unknown (no delegation_started)', fork: null });
    }
  });

  it('fan_out, pipeline and sequential expect agent_count children, each agent as often as listed', () => {
    for (const pattern of ['fan_out', 'pipeline', 'sequential']) {
      const e = expectationFor(delegation(pattern, ['coder', 'coder', 'reviewer']));
      expect(e).toEqual({ agentCounts: new Map([['coder', 2], ['reviewer', 1]]), count: 3, label: '3', fork: null });
    }
  });

  it('prints the journaled agent_count even when it disagrees with agent_ids (the check reports that)', () => {
    const e = expectationFor(delegation('fan_out', ['a', 'b'], { agentCount: 3 }));
    expect(e.count).toBe(3);
    expect(e.label).toBe('3');
  });

  it('fork expects N children of the one real agent, whatever agent_count says', () => {
    const e = expectationFor(delegation('fork', ['tester×3'], { agentCount: 1 }));
    expect(e).toEqual({ agentCounts: new Map([['tester', 3]]), count: 3, label: '3', fork: { agent: 'tester', n: 3 } });
  });

  it('counts, never lists, the children of a huge ×N or total_sub_runs (a journal value: no array of that length)', () => {
    const fork = expectationFor(delegation('fork', ['coder×99999999999'], { agentCount: 1 }));
    expect(fork).toMatchObject({ agentCounts: new Map([['coder', 99999999999]]), count: 99999999999 });
    const review = expectationFor(delegation('adversarial_review', ['writer', 'critic'], { total: 4294967295 }));
    expect(review.agentCounts).toEqual(new Map([['writer', 2147483648], ['critic', 2147483647]]));
  });

  it('a fork without ×N cannot be sized', () => {
    const e = expectationFor(delegation('fork', ['tester']));
    expect(e.agentCounts).toBeNull();
    expect(e.count).toBeNull();
    expect(e.label).toMatch(/^unknown .*tester/);
  });

  it('adversarial_review: rounds come from total_sub_runs once completed, alternating producer and reviewer', () => {
    const done = expectationFor(delegation('adversarial_review', ['writer', 'critic'], { total: 4 }));
    expect(done).toMatchObject({ agentCounts: new Map([['writer', 2], ['critic', 2]]), count: 4, label: '4' });
    // An odd total: the producer starts one more round than the reviewer; a self-review starts them all.
    expect(expectationFor(delegation('adversarial_review', ['writer', 'critic'], { total: 5 })).agentCounts).toEqual(new Map([['writer', 3], ['critic', 2]]));
    expect(expectationFor(delegation('adversarial_review', ['writer', 'writer'], { total: 3 })).agentCounts).toEqual(new Map([['writer', 3]]));
    const open = expectationFor(delegation('adversarial_review', ['writer', 'critic']));
    expect(open).toEqual({ agentCounts: null, count: null, label: '2 agents, rounds unknown', fork: null });
  });

  it('an unknown pattern falls back to the agent list; no start at all says so', () => {
    expect(expectationFor(delegation('swarm', ['a', 'b']))).toMatchObject({ agentCounts: new Map([['a', 1], ['b', 1]]), count: 2, label: '2' });
    const [orphan] = group({ 's.jsonl': [ev.completed(TS2, { delegation_id: 'x', pattern: 'mystery', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' })] });
    expect(expectationFor(orphan)).toMatchObject({ agentCounts: null, count: null, label: 'unknown (no delegation_started)' });
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
