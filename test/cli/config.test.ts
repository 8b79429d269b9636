/**
 * Severities, switches and thresholds from trace-delegation.config.json (cwd or --config), from
 * --rule and from the threshold flags; flags win over the file; a bad value is one sentence, exit 2.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, runBin, runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const TMP = mkdtempSync(path.join(tmpdir(), 'td-config-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** 10 sub-runs at once (fanout-budget fires at the default --max-fanout 8, as a warning). */
const FANOUT = path.join(FIXTURES, 'safe', 'fanout-budget.jsonl');

let n = 0;
/** A fresh working directory, with a config file when `config` is given (text is written as is). */
function workdir(config?: unknown): string {
  const dir = path.join(TMP, `case-${++n}`);
  mkdirSync(dir);
  if (config !== undefined) writeFileSync(path.join(dir, 'trace-delegation.config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
}

function writeJournal(name: string, text: string): string {
  const file = path.join(TMP, name);
  writeFileSync(file, text);
  return file;
}

const fanoutLines = (stdout: string) => stdout.split('\n').filter((l) => l.includes('] fanout-budget: '));

// Three attempts of one child: the default gate (--max-attempts 2) allows two.
const THREE_ATTEMPTS = writeJournal(
  'three-attempts.jsonl',
  journal(
    ev.started('2026-01-05T10:00:00.000000000+00:00', { delegation_id: 'd-gate', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subStarted('2026-01-05T10:00:00.100000000+00:00', { delegation_id: 'd-gate', sub_run_id: 'r-1', parent_run_id: 'p-1', agent_id: 'coder' }),
    ev.retry('2026-01-05T10:01:00.000000000+00:00', { delegation_id: 'd-gate', original_run_id: 'r-1', retry_run_id: 'r-2', agent_id: 'coder', attempt: 2 }),
    ev.subCompleted('2026-01-05T10:01:00.001000000+00:00', { delegation_id: 'd-gate', sub_run_id: 'r-1', agent_id: 'coder', status: 'verification_failed', error: 'output too short', output_preview: 'ok' }),
    ev.subStarted('2026-01-05T10:01:00.002000000+00:00', { delegation_id: 'd-gate', sub_run_id: 'r-2', parent_run_id: 'p-1', agent_id: 'coder', retry_of: 'r-1' }),
    ev.retry('2026-01-05T10:02:00.000000000+00:00', { delegation_id: 'd-gate', original_run_id: 'r-2', retry_run_id: 'r-3', agent_id: 'coder', attempt: 3 }),
    ev.subCompleted('2026-01-05T10:02:00.001000000+00:00', { delegation_id: 'd-gate', sub_run_id: 'r-2', agent_id: 'coder', status: 'verification_failed', error: 'output too short', output_preview: 'ok!' }),
    ev.subStarted('2026-01-05T10:02:00.002000000+00:00', { delegation_id: 'd-gate', sub_run_id: 'r-3', parent_run_id: 'p-1', agent_id: 'coder', retry_of: 'r-2' }),
    ev.subCompleted('2026-01-05T10:03:00.000000000+00:00', { delegation_id: 'd-gate', sub_run_id: 'r-3', agent_id: 'coder', status: 'completed', output_preview: 'Implemented the fix with tests' }),
    ev.completed('2026-01-05T10:03:00.100000000+00:00', { delegation_id: 'd-gate', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'Implemented the fix with tests' }),
  ),
);

// A sub-run start 1.5 s before its delegation start: beyond the default 1 s clock skew.
const EARLY_EVENT = writeJournal(
  'early-event.jsonl',
  journal(
    ev.subStarted('2026-01-05T10:59:58.500000000+00:00', { delegation_id: 'd-skew', sub_run_id: 'r-1', parent_run_id: 'p-2', agent_id: 'coder' }),
    ev.started('2026-01-05T11:00:00.000000000+00:00', { delegation_id: 'd-skew', parent_run_id: 'p-2', pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subCompleted('2026-01-05T11:00:30.000000000+00:00', { delegation_id: 'd-skew', sub_run_id: 'r-1', agent_id: 'coder', status: 'completed', output_preview: 'Done with the change' }),
    ev.completed('2026-01-05T11:00:30.100000000+00:00', { delegation_id: 'd-skew', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'Done with the change' }),
  ),
);

// An open delegation whose newest line is 5 minutes before the pinned now (2030-01-01T00:00:00Z).
const OPEN_RECENT = writeJournal(
  'open-recent.jsonl',
  journal(
    ev.started('2029-12-31T23:55:00.000000000+00:00', { delegation_id: 'd-open', parent_run_id: 'p-3', pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subStarted('2029-12-31T23:55:00.100000000+00:00', { delegation_id: 'd-open', sub_run_id: 'r-1', parent_run_id: 'p-3', agent_id: 'coder' }),
  ),
);

describe('config file and --rule: severities and switches', () => {
  it('reports fanout-budget as a warning by default (exit 0 under the default --fail-on error)', async () => {
    const r = await runMain(['--sessions', FANOUT, '--all'], { cwd: workdir() });
    expect(r.code).toBe(0);
    expect(fanoutLines(r.stdout)).toHaveLength(1);
    expect(fanoutLines(r.stdout)[0]).toMatch(/^- \[warning\] fanout-budget: 10 sub-runs were running at once/);
  });

  it('raises a severity from ./trace-delegation.config.json (exit 1 now that it is an error)', async () => {
    const r = await runMain(['--sessions', FANOUT, '--all'], { cwd: workdir({ rules: { 'fanout-budget': 'error' } }) });
    expect(r.stderr).toBe('');
    expect(fanoutLines(r.stdout)[0]).toMatch(/^- \[error\] fanout-budget: /);
    expect(r.code).toBe(1);
  });

  it('turns a check off from the config file', async () => {
    const r = await runMain(['--sessions', FANOUT, '--all'], { cwd: workdir({ $schema: './schema.json', rules: { 'fanout-budget': 'off' } }) });
    expect(fanoutLines(r.stdout)).toEqual([]);
    expect(r.stdout).toContain('Findings:\n- none');
  });

  it('lets --rule win over the config file, and the last --rule win over earlier ones', async () => {
    const dir = workdir({ rules: { 'fanout-budget': 'error' } });
    const off = await runMain(['--sessions', FANOUT, '--all', '--rule', 'fanout-budget=off'], { cwd: dir });
    expect(fanoutLines(off.stdout)).toEqual([]);
    expect(off.code).toBe(0);
    const info = await runMain(['--sessions', FANOUT, '--all', '--rule', 'fanout-budget=off', '--rule', 'fanout-budget=info'], { cwd: dir });
    expect(fanoutLines(info.stdout)[0]).toMatch(/^- \[info\] fanout-budget: /);
  });

  it('reads --config <path> instead of the working directory file', async () => {
    const file = path.join(workdir(), 'team.json');
    writeFileSync(file, JSON.stringify({ rules: { 'fanout-budget': 'info' }, failOn: 'info' }));
    const r = await runMain(['--sessions', FANOUT, '--all', '--config', file], { cwd: workdir({ rules: { 'fanout-budget': 'off' } }) });
    expect(fanoutLines(r.stdout)[0]).toMatch(/^- \[info\] fanout-budget: /);
    expect(r.code).toBe(1); // failOn "info" from the same file
  });

  it('applies severities to the JSON output and its summary too', async () => {
    const r = await runMain(['--sessions', FANOUT, '--all', '--format', 'json', '--rule', 'fanout-budget=error']);
    const doc = JSON.parse(r.stdout);
    expect(doc.delegations[0].findings.map((f: { id: string; severity: string }) => [f.id, f.severity])).toEqual([['fanout-budget', 'error']]);
    expect(doc.summary).toMatchObject({ error: 1, warning: 0 });
  });
});

describe('thresholds in the config file and as flags (flags win)', () => {
  it('--max-fanout / maxFanout', async () => {
    expect(fanoutLines((await runMain(['--sessions', FANOUT, '--all'], { cwd: workdir({ maxFanout: 10 }) })).stdout)).toEqual([]);
    const flagWins = await runMain(['--sessions', FANOUT, '--all', '--max-fanout', '9'], { cwd: workdir({ maxFanout: 10 }) });
    expect(fanoutLines(flagWins.stdout)[0]).toContain('above --max-fanout 9');
  });

  it('--max-tree / maxTree', async () => {
    const tree = path.join(FIXTURES, 'safe', 'fanout-budget-tree.jsonl');
    expect(fanoutLines((await runMain(['--sessions', tree, '--all'])).stdout)[0]).toContain('holds 36 distinct sub-runs, above --max-tree 32');
    expect(fanoutLines((await runMain(['--sessions', tree, '--all'], { cwd: workdir({ maxTree: 36 }) })).stdout)).toEqual([]);
    expect(fanoutLines((await runMain(['--sessions', tree, '--all', '--max-tree', '35'], { cwd: workdir({ maxTree: 36 }) })).stdout)[0]).toContain('above --max-tree 35');
  });

  it('--max-attempts / maxAttempts', async () => {
    const gap = (stdout: string) => stdout.split('\n').filter((l) => l.includes('] retry-attempt-gap: '));
    expect(gap((await runMain(['--sessions', THREE_ATTEMPTS, '--all'])).stdout)[0]).toContain('ran 3 attempts (r-1 → r-2 → r-3); the gate allows 2 total attempts');
    expect(gap((await runMain(['--sessions', THREE_ATTEMPTS, '--all'], { cwd: workdir({ maxAttempts: 3 }) })).stdout)).toEqual([]);
    expect(gap((await runMain(['--sessions', THREE_ATTEMPTS, '--all', '--max-attempts', '2'], { cwd: workdir({ maxAttempts: 3 }) })).stdout)).toHaveLength(1);
  });

  it('--clock-skew / clockSkew (durations)', async () => {
    const skew = (stdout: string) => stdout.split('\n').filter((l) => l.includes('] time-order: '));
    expect(skew((await runMain(['--sessions', EARLY_EVENT, '--all'])).stdout)[0]).toContain('by more than the 1s clock skew allowed');
    expect(skew((await runMain(['--sessions', EARLY_EVENT, '--all'], { cwd: workdir({ clockSkew: '2s' }) })).stdout)).toEqual([]);
    expect(skew((await runMain(['--sessions', EARLY_EVENT, '--all'], { cwd: workdir({ clockSkew: 2 }) })).stdout)).toEqual([]); // plain seconds
    expect(skew((await runMain(['--sessions', EARLY_EVENT, '--all', '--clock-skew', '1200ms'], { cwd: workdir({ clockSkew: '2s' }) })).stdout)[0]).toContain('1.2s clock skew');
  });

  it('--stale-after / staleAfter (durations)', async () => {
    const incomplete = (stdout: string) => stdout.split('\n').find((l) => l.includes('] delegation-incomplete: ')) ?? '';
    // The newest line is 5 minutes old: still running under the default 10m, not under 2m.
    expect(incomplete((await runMain(['--sessions', OPEN_RECENT, '--all'])).stdout)).toContain('no delegation_completed: still running (the newest line in its files is 300s old)');
    expect(incomplete((await runMain(['--sessions', OPEN_RECENT, '--all'], { cwd: workdir({ staleAfter: '2m' }) })).stdout)).toContain('no delegation_completed: crashed');
    expect(incomplete((await runMain(['--sessions', OPEN_RECENT, '--all', '--stale-after', '1h'], { cwd: workdir({ staleAfter: '2m' }) })).stdout)).toContain('no delegation_completed: still running');
  });
});

describe('bad configuration: one clear sentence on stderr, exit 2', () => {
  const cases: { name: string; config?: unknown; args?: string[]; says: string }[] = [
    { name: 'invalid JSON', config: '{"rules": ', says: 'config file trace-delegation.config.json is not valid JSON' },
    { name: 'not an object', config: '[]', says: 'config file trace-delegation.config.json: must be a JSON object' },
    { name: 'unknown key, flag spelling', config: { 'max-fanout': 4 }, says: 'unknown key "max-fanout"; did you mean "maxFanout"?' },
    { name: 'unknown key', config: { colour: true }, says: 'unknown key "colour" (allowed: rules, maxFanout, maxTree, maxAttempts, staleAfter, clockSkew, failOn)' },
    { name: 'rules not an object', config: { rules: ['late-result'] }, says: '"rules" must be an object of check id → off|info|warning|error' },
    { name: 'unknown check id', config: { rules: { 'late-results': 'off' } }, says: 'rules.late-results: unknown check id' },
    { name: 'bad severity', config: { rules: { 'late-result': 'warn' } }, says: 'rules.late-result: must be off, info, warning or error, not "warn"' },
    { name: 'threshold not an integer', config: { maxFanout: '9' }, says: '"maxFanout" must be a positive integer' },
    { name: 'threshold zero', config: { maxTree: 0 }, says: '"maxTree" must be a positive integer' },
    { name: 'bad duration', config: { staleAfter: 'ten minutes' }, says: '"staleAfter" must be a duration such as 500ms, 30s, 10m, 2h, 1m30s or plain seconds' },
    { name: 'bad failOn', config: { failOn: 'warnings' }, says: '"failOn": must be error, warning, info or none, not "warnings"' },
    { name: 'a duration in a list (String(["5m"]) reads "5m")', config: { staleAfter: ['5m'] }, says: '"staleAfter" must be a duration' },
    { name: 'a duration too long to be a number', config: { staleAfter: `${'9'.repeat(400)}s` }, says: '"staleAfter" must be a duration' },
    { name: 'failOn in a list', config: { failOn: ['warning'] }, says: '"failOn" must be one of error, warning, info, none (a string), not ["warning"]' },
    { name: 'invalid JSON over lines, quoted back by V8', config: '{\n  "rules": x\n}', says: "config file trace-delegation.config.json is not valid JSON: Unexpected token 'x'" },
    { name: 'an empty --config', args: ['--config', ''], says: '--config was given an empty file name (an unset variable?)' },
    { name: 'missing --config file', args: ['--config', 'nowhere.json'], says: 'cannot read config file nowhere.json: no such file' },
    { name: '--config is a directory', args: ['--config', '.'], says: 'cannot read config file .: it is a directory' },
    { name: '--rule without =', args: ['--rule', 'late-result'], says: '--rule expects <id>=<off|info|warning|error>, got "late-result"' },
    { name: '--rule unknown id', args: ['--rule', 'no-such-check=off'], says: '--rule no-such-check: unknown check id (see `trace-delegation rules`)' },
    { name: '--rule bad severity', args: ['--rule', 'late-result=fatal'], says: '--rule late-result: must be off, info, warning or error, not "fatal"' },
    { name: '--max-fanout zero', args: ['--max-fanout', '0'], says: '--max-fanout must be a positive integer, not "0"' },
    { name: '--max-attempts not a number', args: ['--max-attempts', 'two'], says: '--max-attempts must be a positive integer, not "two"' },
    { name: '--max-fanout in exponent notation', args: ['--max-fanout', '1e3'], says: '--max-fanout must be a positive integer, not "1e3"' },
    { name: '--max-tree in hexadecimal', args: ['--max-tree', '0x10'], says: '--max-tree must be a positive integer, not "0x10"' },
    { name: '--jobs with a decimal point', args: ['--jobs', '2.0'], says: '--jobs must be an integer from 1 to 64, not "2.0"' },
    { name: '--stale-after bad duration', args: ['--stale-after', '10 minutes'], says: '--stale-after must be a duration such as 500ms, 30s, 10m, 2h, 1m30s or plain seconds, not "10 minutes"' },
  ];
  it('an empty target (an unset variable) is refused, not read as last', async () => {
    for (const target of ['', ' ']) {
      const r = await runMain(['--sessions', FANOUT, target]);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toBe('trace-delegation: the target is empty (an unset variable?): name a delegation id, prefix, parent run or session, or last for the newest\n');
    }
    expect((await runMain(['--sessions', FANOUT, 'last', '--fail-on', 'none'])).code).toBe(0);
  });

  for (const c of cases) {
    it(c.name, async () => {
      const r = await runMain(['--sessions', FANOUT, '--all', ...(c.args ?? [])], { cwd: workdir(c.config) });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(c.says);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });
  }

  it('takes a duration of a fraction of a second as a number', async () => {
    const r = await runMain(['--sessions', FANOUT, '--all'], { cwd: workdir({ staleAfter: 0.0000001 }) });
    expect(r.stderr).toBe('');
  });

  it('accepts contract check ids in the config file (their severities apply with --contract)', async () => {
    const r = await runMain(['--sessions', FANOUT, '--all'], { cwd: workdir({ rules: { 'contract-timeout': 'error' } }) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('the built binary', () => {
  it('reads the config file from its working directory, and rejects a bad one with exit 2', async () => {
    const good = await runBin(['--sessions', FANOUT, '--all'], { cwd: workdir({ rules: { 'fanout-budget': 'error' }, maxFanout: 9 }) });
    expect(good.code).toBe(1);
    expect(fanoutLines(good.stdout)[0]).toMatch(/^- \[error\] fanout-budget: 10 sub-runs were running at once .*above --max-fanout 9/);
    const bad = await runBin(['--sessions', FANOUT, '--all'], { cwd: workdir({ maxFanout: -1 }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('trace-delegation: config file trace-delegation.config.json: "maxFanout" must be a positive integer\n');
  });

  // A device that never ends (or a huge file named by mistake) is refused, not read into memory.
  it.skipIf(!existsSync('/dev/zero'))('refuses a config or contract that never ends (/dev/zero) with one sentence', async () => {
    const config = await runBin(['--demo', '--config', '/dev/zero'], { timeoutMs: 20_000 });
    expect(config.code).toBe(2);
    expect(config.stderr).toBe('trace-delegation: cannot read config file /dev/zero: it holds more than 1048576 bytes, too large for this kind of file\n');
    const contract = await runBin(['contract', 'validate', '/dev/zero'], { timeoutMs: 20_000 });
    expect(contract.code).toBe(2);
    expect(contract.stderr).toBe('trace-delegation: cannot read contract /dev/zero: it holds more than 8388608 bytes, too large for this kind of file\n');
  });
});
