// An open delegation's finding says how old its newest line is, which changes every second: its
// SARIF fingerprint and its JUnit test name must not (code scanning keeps one alert for it,
// test-history tools one test).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const dir = mkdtempSync(path.join(tmpdir(), 'td-stable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = '2026-05-01T10:00:00.000000000+00:00';
writeFileSync(
  path.join(dir, 's-open.jsonl'),
  journal(
    ev.started(T0, { delegation_id: 'd-open', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subStarted('2026-05-01T10:00:01.000000000+00:00', { delegation_id: 'd-open', sub_run_id: 'r-1', parent_run_id: 'p-1', agent_id: 'coder' }),
  ),
);

async function at(now: string, format: string): Promise<string> {
  // JUnit writes a finding as a failing test case from the failure threshold up.
  const r = await runMain(['--sessions', dir, '--all', '--format', format, '--now', now, '--fail-on', 'info']);
  expect(r.code, r.stderr).toBe(1);
  return r.stdout;
}

describe('stable finding identities', () => {
  it('SARIF fingerprints and JUnit names do not change with the age of an open delegation', async () => {
    const [a, b] = [await at('2026-05-01T10:00:11Z', 'sarif'), await at('2026-05-01T10:00:51Z', 'sarif')];
    const results = (s: string) => JSON.parse(s).runs[0].results as { message: { text: string }; partialFingerprints: Record<string, string> }[];
    expect(results(a).map((r) => r.message.text).join('\n')).toContain('10s old');
    expect(results(b).map((r) => r.message.text).join('\n')).toContain('50s old');
    expect(results(a).length).toBeGreaterThan(0);
    expect(results(a).map((r) => r.partialFingerprints)).toEqual(results(b).map((r) => r.partialFingerprints));
    const names = (x: string) => [...x.matchAll(/<testcase [^>]*name="([^"]*)"/g)].map((m) => m[1]);
    const [ja, jb] = [await at('2026-05-01T10:00:11Z', 'junit'), await at('2026-05-01T10:00:51Z', 'junit')];
    expect(ja).toContain('10s old');
    expect(names(ja).some((n) => n.includes('Ns old'))).toBe(true);
    expect(names(ja)).toEqual(names(jb));
  });
});
