import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { CONTRACT_CHECKS } from '../../src/contract/checks/index.js';
import { runBin, runMain } from '../helpers/cli.js';

const ALL = [...CHECKS, ...CONTRACT_CHECKS].map((c) => c.meta);

describe('trace-delegation rules', () => {
  it('lists every check with its id, default severity and description, one per line', async () => {
    const { code, stdout, stderr } = await runMain(['rules']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const rows = stdout.split('\n').filter((l) => l.startsWith('  '));
    expect(rows).toHaveLength(ALL.length);
    for (const m of ALL) {
      const row = rows.find((r) => r.trim().split(/\s+/)[0] === m.id);
      expect(row, m.id).toBeDefined();
      expect(row!.trim().split(/\s+/)[1]).toBe(m.defaultSeverity);
      expect(row!.endsWith(`  ${m.description}`)).toBe(true);
    }
  });

  it('groups them as CHECKS.md does and names the join-contract and SAFE checks with their severities', async () => {
    const { stdout } = await runMain(['rules']);
    expect(stdout.split('\n').filter((l) => l.endsWith(':') && !l.startsWith(' '))).toEqual(['Trace workflow:', 'Join contract:', 'SAFE consistency model:', 'Delegation contracts:']);
    const severity = (id: string) => stdout.split('\n').find((l) => l.trim().startsWith(`${id} `))!.trim().split(/\s+/)[1];
    expect(
      Object.fromEntries(['late-result', 'failed-in-aggregate', 'foreign-parent', 'silent-failure', 'timeout-as-failure', 'retry-after-unknown', 'fanout-budget'].map((id) => [id, severity(id)])),
    ).toEqual({
      'late-result': 'warning',
      'failed-in-aggregate': 'error',
      'foreign-parent': 'error',
      'silent-failure': 'warning',
      'timeout-as-failure': 'info',
      'retry-after-unknown': 'warning',
      'fanout-budget': 'warning',
    });
  });

  it('--json is the same list as data', async () => {
    const { code, stdout } = await runMain(['rules', '--json']);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as { id: string; category: string; severity: string; description: string }[];
    expect(rows).toEqual(ALL.map((m) => ({ id: m.id, category: m.category, severity: m.defaultSeverity, description: m.description })));
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length); // ids are unique
  });

  it('works from the built binary', async () => {
    const { code, stdout } = await runBin(['rules']);
    expect(code).toBe(0);
    expect(stdout).toContain('late-result');
    expect(stdout).toContain('contract-timeout');
  });
});
