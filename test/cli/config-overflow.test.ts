/**
 * A duration in seconds whose milliseconds overflow (1e306 s) is refused where it is written:
 * the config file and key, not `checkOptions.staleAfterMs … not null`; non-finite numbers are
 * shown as what they are (Infinity), not as JSON's null.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/index.js';
import { InputError } from '../../src/journal/discover.js';
import { validateContract } from '../../src/contract/validate.js';
import { FIXTURES, runMain } from '../helpers/cli.js';

const TMP = mkdtempSync(path.join(tmpdir(), 'td-config-overflow-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe('a config duration too large to be finite in milliseconds', () => {
  for (const key of ['staleAfter', 'clockSkew']) {
    it(`"${key}": 1e306 names the file and the key`, async () => {
      const file = path.join(TMP, `${key}.json`);
      writeFileSync(file, `{"${key}": 1e306}`);
      const r = await runMain(['--demo', '--config', file]);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `trace-delegation: config file ${file}: "${key}" must be a duration such as 500ms, 30s, 10m, 2h, 1m30s or plain seconds, not 1e+306 (too large)\n`]);
    });
  }

  it('a large duration that fits is still taken', async () => {
    const file = path.join(TMP, 'big.json');
    writeFileSync(file, '{"staleAfter": 1e9, "clockSkew": 1e9}');
    expect((await runMain(['--demo', '--config', file, '--fail-on', 'none'])).code).toBe(0);
  });
});

describe('the library shows a non-finite number as itself', () => {
  const sessions = [path.join(FIXTURES, 'sessions')];
  const cases: [Parameters<typeof analyze>[0], string][] = [
    [{ sessions, all: true, checkOptions: { staleAfterMs: Number.POSITIVE_INFINITY } }, 'checkOptions.staleAfterMs must be a duration in milliseconds (0 or more), not Infinity'],
    [{ sessions, all: true, checkOptions: { clockSkewMs: Number.NaN } }, 'checkOptions.clockSkewMs must be a duration in milliseconds (0 or more), not NaN'],
    [{ sessions, all: true, checkOptions: { maxTree: Number.POSITIVE_INFINITY } }, 'checkOptions.maxTree must be a positive integer, not Infinity'],
    [{ sessions, all: true, checkOptions: { nowMs: Number.NEGATIVE_INFINITY } }, 'checkOptions.nowMs must be epoch milliseconds, not -Infinity'],
    [{ sessions, all: true, jobs: Number.NaN }, 'jobs must be an integer from 1 to 64, not NaN'],
  ];
  for (const [options, message] of cases) {
    it(message, async () => {
      const err = await analyze(options).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(message);
    });
  }
});

describe('contract constraints.timeout too large to be finite', () => {
  const plan = (timeout: unknown) => ({
    delegation: { task: 't' },
    subtasks: [{ id: 'a', agent: 'x', contract: { inputs: {}, outputs: { o: 'x' }, constraints: { timeout }, verification: 'v' } }],
    merge_plan: { strategy: 'aggregate' },
    failure_handling: { policy: 'abort', max_retries: 0 },
  });
  const timeoutMessages = (timeout: unknown) => validateContract(plan(timeout)).findings.filter((f) => f.id === 'plan-bad-timeout').map((f) => f.message);

  it('1e400 (Infinity once parsed) is shown as Infinity, not null', () => {
    expect(timeoutMessages(Number.POSITIVE_INFINITY)).toEqual(['subtasks[0].contract.constraints.timeout must be a duration such as 30s, 5m or 1m30s, not Infinity (too large) (subtask "a")']);
  });

  it('1e306 seconds, whose milliseconds are Infinity, is refused, not taken as no limit', () => {
    expect(timeoutMessages(1e306)).toEqual(['subtasks[0].contract.constraints.timeout must be a duration such as 30s, 5m or 1m30s, not 1e+306 (too large) (subtask "a")']);
    expect(timeoutMessages(1e9)).toEqual([]);
    expect(timeoutMessages(-5)).toEqual(['subtasks[0].contract.constraints.timeout must be a duration such as 30s, 5m or 1m30s, not -5 (subtask "a")']);
  });

  it('contract validate reports a YAML 1e400 as Infinity', async () => {
    const file = path.join(TMP, 'p.yaml');
    writeFileSync(file, 'delegation: {task: t}\nsubtasks:\n  - id: a\n    agent: x\n    contract: {inputs: {}, outputs: {o: x}, constraints: {timeout: 1e400}, verification: v}\nmerge_plan: {strategy: aggregate}\nfailure_handling: {policy: abort, max_retries: 0}\n');
    const r = await runMain(['contract', 'validate', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('constraints.timeout must be a duration such as 30s, 5m or 1m30s, not Infinity (too large) (subtask "a")');
  });
});
