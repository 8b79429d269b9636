/**
 * A first-time user's view (hux29): a missing required argument says what to give and where
 * help is, and --help states contract validate's exit codes and --sessions as the README does.
 */
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';

describe('a missing required argument', () => {
  it('names what the command needs and its help, in one line, exit 2', async () => {
    const cases: [string[], string][] = [
      [['check'], 'trace-delegation: check needs one or more paths: fixture folders, journal files, session folders or expectations files (trace-delegation help check)\n'],
      [['check', '--subset'], 'trace-delegation: check needs one or more paths: fixture folders, journal files, session folders or expectations files (trace-delegation help check)\n'],
      [['--now', '2030-01-01T00:00:00Z', 'check'], 'trace-delegation: check needs one or more paths: fixture folders, journal files, session folders or expectations files (trace-delegation help check)\n'],
      [['contract', 'validate'], 'trace-delegation: contract validate needs a plan: plan file (.yaml, .yml or .json) (trace-delegation help contract validate)\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await runMain(args);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', stderr]);
    }
  });

  it('is the same through the built binary', async () => {
    const r = await runBin(['contract', 'validate']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'trace-delegation: contract validate needs a plan: plan file (.yaml, .yml or .json) (trace-delegation help contract validate)\n']);
  });
});

describe('--help agrees with the README', () => {
  it("gives contract validate's exit code 0 as no finding at or above --fail-on, as it behaves", async () => {
    const help = await runMain(['--help']);
    expect(help.stdout).toContain('contract validate: 0 no finding at or above --fail-on (by default: a valid plan), 1 such findings,\n2 a plan that cannot be read, or a usage error.');
    // A valid plan with warnings exits 1 under --fail-on warning: "0 a valid plan" was not the rule.
    const plan = 'fixtures/contracts/plans/data-pipeline.yaml';
    const strict = await runMain(['contract', 'validate', plan, '--fail-on', 'warning']);
    expect([strict.code, strict.stdout]).toEqual([1, expect.stringContaining('Result: valid (3 warnings)')]);
    expect((await runMain(['contract', 'validate', plan])).code).toBe(0);
  });

  it('shows --sessions taking a folder, a file or a glob, on the report and on list', async () => {
    for (const args of [['--help'], ['list', '--help']]) {
      const r = await runMain(args);
      expect(r.stdout, args.join(' ')).toMatch(/--sessions <dir\|file\|glob>\s+journal root, file or glob/);
    }
    const file = await runMain(['--sessions', 'fixtures/formats/retry-and-failure.jsonl', '--all', '--fail-on', 'none', '-q']);
    expect([file.code, file.stderr]).toEqual([0, '']);
  });
});
