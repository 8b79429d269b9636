/**
 * Usage errors are one sentence on stderr with exit 2: commander's "(Did you mean …?)" line is
 * folded in, a command group without its subcommand is not answered with its whole help, and
 * TRACE_DELEGATION_POLL_MS out of setTimeout's range is refused (it polled every 1 ms, warning).
 */
import { describe, expect, it } from 'vitest';
import { parsePollMs } from '../../src/cli/common.js';
import { runBin, runMain } from '../helpers/cli.js';

describe('usage errors: one line on stderr, exit 2', () => {
  it('a mistyped option names the one meant in the same sentence', async () => {
    const cases: [string[], string][] = [
      [['--demo', '--al'], "trace-delegation: unknown option '--al'; did you mean --all?\n"],
      [['--demo', '--al=3'], "trace-delegation: unknown option '--al=3'; did you mean --all?\n"],
      [['list', '--limt', '3'], "trace-delegation: unknown option '--limt'; did you mean --limit?\n"],
      [['check', '--subst', 'x'], "trace-delegation: unknown option '--subst'; did you mean --subset?\n"],
      [['contract', 'validate', '--formt', 'x'], "trace-delegation: unknown option '--formt'; did you mean --format?\n"],
      [['contract', 'valdate', 'x'], 'trace-delegation: contract has no subcommand valdate; did you mean validate? (trace-delegation help contract)\n'],
      // Nothing close: the group's subcommands are named instead.
      [['contract', 'foo', 'x'], 'trace-delegation: contract has no subcommand foo: it has validate (trace-delegation help contract)\n'],
      // Nothing close: commander suggests nothing, and the sentence is as before.
      [['--demo', '--bogus'], "trace-delegation: unknown option '--bogus'\n"],
    ];
    for (const [args, stderr] of cases) {
      const r = await runMain(args);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', stderr]);
    }
  });

  it('an option of the tool after a subcommand without it is named as such, as before it, not "unknown"', async () => {
    const cases: [string[], string][] = [
      [['list', '--demo', '--all'], 'trace-delegation: --all does not apply to list: give it to the report (trace-delegation --all … [target]), or see trace-delegation list --help\n'],
      [['list', '-o', 'json=x.json'], 'trace-delegation: --output does not apply to list: give it to the report (trace-delegation --output … [target]), or see trace-delegation list --help\n'],
      [['check', 'fixtures', '--demo'], 'trace-delegation: --demo does not apply to check: give it to the report (trace-delegation --demo … [target]), or see trace-delegation check --help\n'],
      [['contract', 'validate', 'x.yaml', '--follow'], 'trace-delegation: --follow does not apply to contract validate: give it to the report (trace-delegation --follow … [target]), or see trace-delegation contract validate --help\n'],
      [['rules', '--limit', '5'], 'trace-delegation: --limit is an option of list, not of rules (trace-delegation list --limit …)\n'],
      [['list', '--subset'], 'trace-delegation: --subset is an option of check, not of list (trace-delegation check --subset …)\n'],
      // Given before the subcommand, the same sentence.
      [['--all', 'list'], 'trace-delegation: --all does not apply to list: give it to the report (trace-delegation --all … [target]), or see trace-delegation list --help\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await runMain(args);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', stderr]);
    }
  });

  it("commander's excess arguments are one sentence", async () => {
    for (const [args, stderr] of [
      [['list', '--demo', 'extra'], "trace-delegation: too many arguments for 'list': expected 0 arguments but got 1 (list takes no target; to report one delegation: trace-delegation <id>)\n"],
      [['--demo', 'a', 'b'], 'trace-delegation: too many arguments: expected 1 argument but got 2\n'],
    ] as const) {
      const r = await runMain([...args]);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', stderr]);
    }
  });

  it('contract without a subcommand names its subcommands, not its whole help', async () => {
    for (const args of [['contract'], ['--demo', 'contract'], ['contract', '--']]) {
      const r = await runMain(args);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', 'trace-delegation: contract needs a subcommand: validate (trace-delegation help contract)\n']);
    }
    // Asked for, the help is still printed, on stdout.
    for (const args of [['contract', '--help'], ['help', 'contract']]) {
      const r = await runMain(args);
      expect([r.code, r.stderr], args.join(' ')).toEqual([0, '']);
      expect(r.stdout).toContain('Usage: trace-delegation contract');
    }
  });
});

describe('TRACE_DELEGATION_POLL_MS', () => {
  it('takes whole milliseconds from 1 to 2^31-1; empty is unset', () => {
    expect(parsePollMs(undefined)).toBeUndefined();
    expect(parsePollMs('')).toBeUndefined();
    expect(parsePollMs('100')).toBe(100);
    expect(parsePollMs(' 50 ')).toBe(50);
    expect(parsePollMs('2147483647')).toBe(2 ** 31 - 1);
    for (const v of ['0', '-5', '1.5', '1e3', 'abc', '2147483648', '1e12'])
      expect(() => parsePollMs(v), v).toThrow(`TRACE_DELEGATION_POLL_MS must be a whole number of milliseconds from 1 to 2147483647, not ${JSON.stringify(v)}`);
  });

  it('out of range stops --follow at once with one sentence, not a TimeoutOverflowWarning and 1 ms polling', async () => {
    for (const v of ['1e12', '-5']) {
      const r = await runBin(['--demo', '--follow', '--all', '-q'], { env: { TRACE_DELEGATION_POLL_MS: v }, timeoutMs: 15_000 });
      expect([r.timedOut, r.code, r.stdout, r.stderr], v).toEqual([false, 2, '', `trace-delegation: TRACE_DELEGATION_POLL_MS must be a whole number of milliseconds from 1 to 2147483647, not ${JSON.stringify(v)}\n`]);
    }
  });
});
