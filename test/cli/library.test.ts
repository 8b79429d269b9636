// The library entry as the README's Library section uses it: the CLI's text and exit code from a
// report, and one clear error for sessions given as a string.
import { describe, expect, it } from 'vitest';
import { analyze, exitCodeForFindings, FORMATTERS, formatterFor, InputError, piecesFor, streamAll } from '../../src/index.js';
import { FIXTURES, runMain } from '../helpers/cli.js';
import path from 'node:path';

describe('library', () => {
  it("gives the CLI's text and exit code from analyze()", async () => {
    const sessions = [path.join(FIXTURES, 'sessions')];
    const { report } = await analyze({ sessions, all: true });
    const cli = await runMain(['--sessions', sessions[0], '--all']);
    expect(exitCodeForFindings(report.delegations, 'error')).toBe(cli.code);
    expect(FORMATTERS.text(report, { color: false, failOn: 'error' }).split('\n')[0]).toBe(cli.stdout.split('\n')[0]);
  });

  it('refuses sessions given as a string, in one sentence', async () => {
    const err = await analyze({ sessions: FIXTURES as unknown as string[] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`sessions must be a list of paths, such as ['/path/to/sessions'], not ${JSON.stringify(FIXTURES)}`);
  });

  it('refuses what the CLI refuses: an empty list of roots, unknown rules and levels, counts that are not counts', async () => {
    // An empty list read ASTRA_SESSIONS_DIR or ~/.astra; the others were silently ignored.
    const sessions = [path.join(FIXTURES, 'sessions')];
    const cases: [Parameters<typeof analyze>[0], string][] = [
      [{ sessions: [], all: true, env: { ASTRA_SESSIONS_DIR: sessions[0] } }, 'sessions is an empty list: name at least one folder, file or glob (leave sessions out to read the default root)'],
      [{ sessions, all: true, rules: { 'failed-in-aggregat': 'off' } }, 'rules: "failed-in-aggregat" is not a check id (see `trace-delegation rules`)'],
      [{ sessions, all: true, rules: { 'late-result': 'warn' as 'warning' } }, 'rules.late-result must be off, info, warning or error, not "warn"'],
      [{ sessions, all: true, checkOptions: { maxFanout: -1 } }, 'checkOptions.maxFanout must be a positive integer, not -1'],
      [{ sessions, all: true, checkOptions: { staleAfterMs: Number.NaN } }, 'checkOptions.staleAfterMs must be a duration in milliseconds (0 or more), not NaN'],
      [{ sessions, all: true, jobs: 0 }, 'jobs must be an integer from 1 to 64, not 0'],
      // A blank target (an unset variable) is not `last`: the newest delegation would be reported instead.
      [{ sessions, target: '' }, 'the target is empty (an unset variable?): name a delegation id, prefix, parent run or session, or last for the newest'],
      [{ sessions, target: '  ' }, 'the target is empty (an unset variable?): name a delegation id, prefix, parent run or session, or last for the newest'],
    ];
    for (const [options, message] of cases) {
      const err = await analyze(options).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(message);
    }
    const fine = await analyze({ sessions, all: true, rules: { 'late-result': 'off' }, checkOptions: { maxFanout: 4, staleAfterMs: 0 } });
    expect(fine.report.delegations.length).toBeGreaterThan(0);
  });

  it('names the option a caller without types got wrong, instead of a TypeError from inside (or the wrong rule id)', async () => {
    const sessions = [path.join(FIXTURES, 'sessions')];
    const cases: [unknown, string][] = [
      [{ sessions, target: 123 }, 'target must be a string (a delegation id, prefix, parent run or session, or last), not 123'],
      [{ sessions, all: true, rules: 'late-result' }, `rules must be an object of check ids and levels, such as { 'late-result': 'off' }, not "late-result"`],
      [{ sessions, all: true, rules: [] }, `rules must be an object of check ids and levels, such as { 'late-result': 'off' }, not []`],
      [{ stdin: 'journal.jsonl' }, 'stdin must be a readable stream (process.stdin, fs.createReadStream(…))'],
    ];
    for (const [options, message] of cases) {
      const err = await analyze(options as Parameters<typeof analyze>[0]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(message);
    }
  });

  it('exitCodeForFindings refuses a level it does not know (a `warn` from the environment passed every run)', async () => {
    const { report } = await analyze({ sessions: [path.join(FIXTURES, 'sessions')], all: true });
    expect(exitCodeForFindings(report.delegations, 'warning')).toBe(1);
    expect(exitCodeForFindings(report.delegations, 'none')).toBe(0);
    for (const level of ['warn', 'toString', '']) {
      expect(() => exitCodeForFindings(report.delegations, level as 'warning'), level).toThrow(new InputError(`failOn must be error, warning, info or none, not ${JSON.stringify(level)}`));
    }
  });

  it('streamAll refuses a target, a stream or a scanner it would drop (an AnalyzeOptions object type-checks as its options)', async () => {
    const sessions = [path.join(FIXTURES, 'sessions')];
    const reused: Parameters<typeof analyze>[0] = { sessions, target: '7c2d9e14' };
    const err = await streamAll(reused).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe('streamAll does not take target: it reads every delegation of a sessions tree (analyze({ target }) reports some)');
    for (const key of ['stdin', 'scan'] as const) {
      const e = await streamAll({ sessions, [key]: {} } as Parameters<typeof streamAll>[0]).catch((x: unknown) => x);
      expect((e as Error).message, key).toMatch(new RegExp(`^streamAll does not take ${key}: `));
    }
    const r = await streamAll({ sessions });
    expect([...r.delegations].length).toBe(r.tail().summary.delegations);
  });

  it('gives html, otlp and chrome-trace in pieces that join to the formatter\'s document, as the README writes them', async () => {
    const { report } = await analyze({ sessions: [path.join(FIXTURES, 'join')], all: true });
    const ctx = { color: false, failOn: 'error' as const };
    for (const name of ['html', 'otlp', 'chrome-trace'] as const) {
      const pieces = [...piecesFor(name)!(report, ctx)];
      expect(pieces.length, name).toBeGreaterThan(2);
      expect(pieces.join(''), name).toBe(FORMATTERS[name](report, ctx));
    }
    for (const name of ['sarif', 'text', 'constructor']) expect(piecesFor(name), name).toBeUndefined();
  });

  it('looks formats up by their own names only', async () => {
    expect(formatterFor('text')).toBe(FORMATTERS.text);
    for (const name of ['constructor', 'toString', '__proto__', 'txt']) expect(formatterFor(name)).toBeUndefined();
    for (const name of ['constructor', 'toString']) {
      const r = await runMain(['--demo', '--format', name]);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(new RegExp(`^trace-delegation: unknown format ${name} \\(choose from text, json, `));
      const o = await runMain(['--demo', '-o', `${name}=x.out`]);
      expect(o.code).toBe(2);
      expect(o.stderr).toMatch(new RegExp(`^trace-delegation: unknown format ${name} in --output`));
    }
  });
});

describe('library: a delegation contract, as the README shows it', () => {
  it('loads and validates a plan, then holds the traces to it with contractChecks', async () => {
    const { analyze: run, contractChecks, loadContractFile, validateContract } = await import('../../src/index.js');
    const loaded = await loadContractFile(path.join(FIXTURES, 'contracts', 'plans', 'data-pipeline.yaml'));
    const { plan, findings } = validateContract(loaded.data, loaded.lineOf);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(plan).not.toBeNull();
    const { report } = await run({ sessions: [path.join(FIXTURES, 'contracts', 'journals')], all: true, extraChecks: contractChecks(plan!) });
    expect(report.delegations.flatMap((d) => d.findings).some((f) => f.id.startsWith('contract-'))).toBe(true);
  });
});
