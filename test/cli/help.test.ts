import { describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain } from '../helpers/cli.js';

describe('--help', () => {
  it('names every registered output format, so help stays in step with the registry', async () => {
    const r = await runMain(['--help']);
    expect(r.code).toBe(0);
    const line = r.stdout.replace(/\s+/g, ' ');
    for (const name of Object.keys(FORMATTERS)) expect(line).toContain(name);
  });

  it("shows list's --limit default as the other defaults read, not as a quoted string", async () => {
    const r = await runMain(['list', '--help']);
    expect(r.stdout).toMatch(/--limit <n>\s+how many delegations \(default 20\)/);
    expect(r.stdout).not.toContain('"20"');
  });

  it("says --stdin is target - only where there is a target: list has none (list - is refused)", async () => {
    const main = await runMain(['--help']);
    expect(main.stdout.replace(/\s+/g, ' ')).toContain('--stdin read one journal from standard input, plain or gzip (same as target -)');
    const list = await runMain(['list', '--help']);
    const line = list.stdout.replace(/\s+/g, ' ');
    expect(line).toContain('--stdin read one journal from standard input, plain or gzip');
    expect(line).not.toContain('target -');
    const dash = await runMain(['list', '-']);
    expect(dash.code).toBe(2);
  });

  it('documents the exit codes', async () => {
    const r = await runMain(['--help']);
    expect(r.stdout).toContain('Exit codes: 0 no finding at or above --fail-on, 1 such findings, 2 usage, input or output error\n(list too');
    expect(r.stdout).toContain('check: 0 every case matches its X.expected.json, 1 a case does not, 2 usage or input error.');
    expect(r.stdout).toContain('contract validate: 0 no finding at or above --fail-on (by default: a valid plan), 1 such findings,\n2 a plan that cannot be read, or a usage error.');
    expect(r.stdout).toContain('Environment: ASTRA_SESSIONS_DIR (the default --sessions), TRACE_DELEGATION_NOW (--now)');
    // README and docs/follow.md: a follower stopped by Ctrl-C or SIGTERM exits 0 whatever it reported.
    expect(r.stdout).toContain('--follow: 0 when stopped (Ctrl-C, SIGTERM), whatever it reported; 2 usage or input error.');
  });
});

describe("commander's own errors", () => {
  it('read like the rest: one line prefixed trace-delegation:, exit 2', async () => {
    for (const [args, says] of [
      [['--bogus'], "trace-delegation: unknown option '--bogus'\n"],
      [['list', '--bogus'], "trace-delegation: unknown option '--bogus'\n"],
      [['contract', 'validate'], 'trace-delegation: contract validate needs a plan: plan file (.yaml, .yml or .json) (trace-delegation help contract validate)\n'],
      [['help', '--jsn'], 'trace-delegation: help: unknown option --jsn (trace-delegation help [command [subcommand]])\n'],
    ] as const) {
      const r = await runMain([...args]);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', says]);
    }
  });
});

describe('--no-color after any command', () => {
  it('is accepted by rules and contract validate too (scripts pass it to every command)', async () => {
    for (const args of [['rules', '--no-color'], ['rules', '-q'], ['contract', 'validate', 'fixtures/contracts/plans/data-pipeline.yaml', '--no-color', '-q', '--fail-on', 'none']]) {
      const r = await runMain(args);
      expect([r.code, r.stderr], args.join(' ')).toEqual([0, '']);
    }
  });
});

describe('help with options of the tool', () => {
  it('prints the help it names whatever options come with it, values and all, before or after', async () => {
    const list = await runMain(['help', 'list']);
    const validate = await runMain(['help', 'contract', 'validate']);
    for (const args of [
      ['help', 'list', '--limit', '5'],
      ['help', 'list', '--fail-on', 'none'],
      ['help', '--demo', 'list'],
      ['--demo', 'help', 'list'],
      ['-q', '--sessions', 'help', 'help', 'list'],
    ]) {
      const r = await runMain(args);
      expect([r.code, r.stderr, r.stdout], args.join(' ')).toEqual([0, '', list.stdout]);
    }
    for (const args of [['--demo', 'help', 'contract', 'validate'], ['-q', 'contract', 'help', 'validate'], ['help', 'contract', 'validate', '--fail-on', 'none']]) {
      const r = await runMain(args);
      expect([r.code, r.stderr, r.stdout], args.join(' ')).toEqual([0, '', validate.stdout]);
    }
    const check = await runMain(['help', 'check', '--now', '2030-01-01T00:00:00Z']);
    expect([check.code, check.stderr]).toEqual([0, '']);
    expect(check.stdout).toMatch(/^Usage: trace-delegation check /);
  });

  it('refuses an option no command has, and an unknown command, in one sentence wherever help stands', async () => {
    for (const args of [['help', 'list', '--bogus'], ['-q', 'help', '--bogus']]) {
      const r = await runMain(args);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', 'trace-delegation: help: unknown option --bogus (trace-delegation help [command [subcommand]])\n']);
    }
    const r = await runMain(['--demo', 'help', 'nothing']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^trace-delegation: help: unknown command nothing \(commands: [^\n]*\)\n$/);
  });
});
