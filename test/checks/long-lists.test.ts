// A retry chain thousands of attempts long (a gate that never stops): the finding names its ends
// and how many are between, not every run, and still says where the numbering breaks.
import { describe, expect, it } from 'vitest';
import { shortList } from '../../src/checks/short-list.js';
import { runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

describe('shortList', () => {
  it('lists up to 12 names whole, and a longer list by its ends and the count between', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `r${i + 1}`);
    expect(shortList(names(12))).toBe(names(12).join(', '));
    expect(shortList(names(13), ' → ')).toBe('r1 → r2 → r3 → r4 → r5 → r6 → r7 → r8 → r9 → … 2 more … → r12 → r13');
    expect(shortList([])).toBe('');
  });
});

const N = 3000;

/** One child retried N-1 times, attempt 1500 journaled as 9999. */
function longChain(): string {
    const d = 'd-loop';
    const T = (i: number) => new Date(Date.UTC(2025, 10, 3, 9) + i * 1000).toISOString();
    const lines = [ev.started(T(0), { delegation_id: d, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] })];
    lines.push(ev.subStarted(T(1), { delegation_id: d, sub_run_id: 'run-1', parent_run_id: 'p', agent_id: 'coder' }));
    for (let i = 2; i <= N; i++) {
      const prev = `run-${i - 1}`;
      lines.push(ev.subCompleted(T(2 * i), { delegation_id: d, sub_run_id: prev, agent_id: 'coder', status: 'verification_failed', error: 'gate' }));
      // Attempt 1500 is journaled as 9999: the only break in the numbering.
      lines.push(ev.retry(T(2 * i), { delegation_id: d, original_run_id: prev, retry_run_id: `run-${i}`, agent_id: 'coder', attempt: i === 1500 ? 9999 : i }));
      lines.push(ev.subStarted(T(2 * i + 1), { delegation_id: d, sub_run_id: `run-${i}`, parent_run_id: 'p', agent_id: 'coder', retry_of: prev }));
    }
    lines.push(ev.subCompleted(T(2 * N + 2), { delegation_id: d, sub_run_id: `run-${N}`, agent_id: 'coder', status: 'failed', error: 'gate' }));
    lines.push(ev.completed(T(2 * N + 3), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed' }));
    return journal(...lines);
}

describe('retry-attempt-gap on a long chain', () => {
  it('keeps the message short, names the first misnumbered attempt, and keeps every run in runs', async () => {
    const r = await runMain(['--stdin', '--format', 'json', '--fail-on', 'none'], { input: longChain() });
    expect(r.code).toBe(0);
    const gaps = JSON.parse(r.stdout).delegations[0].findings.filter((f: { id: string }) => f.id === 'retry-attempt-gap');
    expect(gaps.map((f: { message: string }) => f.message)).toEqual([
      `attempts of the coder chain are numbered 2, 3, 4, 5, 6, 7, 8, 9, 10, … ${N - 12} more …, ${N - 1}, ${N}, expected 2, 3, 4, 5, 6, 7, 8, 9, 10, … ${N - 12} more …, ${N - 1}, ${N}; the first out of place: run run-1500 is numbered 9999, expected 1500 (run-1 → run-2 → run-3 → run-4 → run-5 → run-6 → run-7 → run-8 → run-9 → … ${N - 11} more … → run-${N - 1} → run-${N})`,
      `child of agent coder ran ${N} attempts (run-1 → run-2 → run-3 → run-4 → run-5 → run-6 → run-7 → run-8 → run-9 → … ${N - 11} more … → run-${N - 1} → run-${N}); the gate allows 2 total attempts (--max-attempts)`,
    ]);
    expect(gaps[1].runs).toHaveLength(N);
  });
});

describe('--format github on a finding with thousands of evidence lines', () => {
  it('names the first 20 further lines and counts the rest', async () => {
    const r = await runMain(['--stdin', '--format', 'github', '--fail-on', 'none'], { input: longChain() });
    const gap = r.stdout.split('\n').find((l) => l.includes('ran 3000 attempts'))!;
    expect(gap.length).toBeLessThan(2000);
    expect(gap).toMatch(/\(also (<stdin>:\d+, ){20}… \(2978 more: the JSON output lists them\)\)$/);
  });
});
