// The contract commands as users run them: the built binary (run `npx tsc -p .` first).
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';

const C = 'fixtures/contracts';
const journal = (name: string) => ['--sessions', `${C}/journals/${name}.jsonl`];

describe('trace-delegation contract validate', () => {
  it('exits 0 on the seed examples (YAML and JSON) and prints the result', async () => {
    const yaml = await runBin(['contract', 'validate', `${C}/plans/parallel-review.yaml`]);
    expect(yaml).toMatchObject({ code: 0, stderr: '' });
    expect(yaml.stdout).toContain('Contract: fixtures/contracts/plans/parallel-review.yaml (3 subtasks, merge aggregate, failure policy continue, max_retries 1)');
    expect(yaml.stdout).toContain('Findings:\n- none');
    expect(yaml.stdout).toMatch(/Result: valid\n$/);
    const json = await runBin(['contract', 'validate', `${C}/plans/data-pipeline.json`]);
    expect(json.code).toBe(0);
    expect(json.stdout).toContain('- [warning] plan-mutation-without-safety: subtasks[2] ("store-data")');
    expect(json.stdout).toContain('Result: valid (3 warnings)');
  });

  it('exits 1 with one clear error naming the field for a malformed plan', async () => {
    const r = await runBin(['contract', 'validate', `${C}/malformed/missing-verification.yaml`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('- [error]'));
    expect(errors).toEqual([expect.stringMatching(/^- \[error\] plan-incomplete-contract: subtasks\[1\]\.contract\.verification is required \(subtask "perf-review"\) \(fixtures\/contracts\/malformed\/missing-verification\.yaml:\d+\)$/)]);
    expect(r.stdout).toContain('Result: invalid (1 error)');
  });

  it('--format json lists findings with ids, paths and lines; --fail-on warning fails on warnings', async () => {
    const r = await runBin(['contract', 'validate', `${C}/malformed/cycle.yaml`, '--format', 'json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ schemaVersion: 1, valid: false, format: 'yaml', subtasks: 3, summary: { error: 1, warning: 3, info: 0 } });
    expect(doc.findings[0]).toMatchObject({ id: 'plan-dependency-cycle', severity: 'error', path: 'subtasks[1].dependencies[0]', line: 38 });
    const strict = await runMain(['contract', 'validate', `${C}/plans/data-pipeline.yaml`, '--fail-on', 'warning']);
    expect(strict.code).toBe(1);
  });

  it('exits 2 with one sentence and no stack trace for unreadable or unparsable files', async () => {
    for (const [file, text] of [
      [`${C}/malformed/not-yaml.yaml`, 'is not valid YAML: '],
      [`${C}/malformed/not-json.json`, 'is not valid JSON: '],
      [`${C}/no-such-plan.yaml`, 'cannot read contract fixtures/contracts/no-such-plan.yaml: no such file'],
    ]) {
      // The first through the real binary, the rest in-process (same code path, faster).
      const r = file.endsWith('not-yaml.yaml') ? await runBin(['contract', 'validate', file]) : await runMain(['contract', 'validate', file]);
      expect(r.code, file).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), file).toHaveLength(1);
      expect(r.stderr).toContain(text);
      expect(r.stderr).not.toMatch(/\bat .+:\d+:\d+/);
    }
    // An empty name (`--contract "$PLAN"`, PLAN unset) is an error, never "no contract" or the default config.
    for (const args of [['contract', 'validate', ''], ['--demo', '--all', '--contract', ''], ['--demo', '--all', '--config', '']]) {
      const r = await runMain(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^trace-delegation: .*empty.* \(an unset variable\?\)\n$/);
    }
    const badFormat = await runMain(['contract', 'validate', `${C}/plans/data-pipeline.yaml`, '--format', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('unknown format xml for contract validate (choose from text, json)');
  });
});

describe('trace-delegation <target> --contract <plan>', () => {
  it('exits 0 on a journal that matches its contract, with the mapping under Limits', async () => {
    const r = await runBin([...journal('pipeline-clean'), '--contract', `${C}/plans/data-pipeline.yaml`]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('Findings:\n- none');
    expect(r.stdout).toContain('subtasks were matched to sub-runs by agent');
    expect(r.stdout).toContain('validate-data→c0a7ac70-0011-4000-8000-000000000001');
  });

  it('exits 1 with contract findings on a violating journal; --rule turns them off', async () => {
    const r = await runBin([...journal('pipeline-dependency-order'), '--contract', `${C}/plans/data-pipeline.json`]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('- [error] contract-dependency-order: '))).toHaveLength(2);
    const off = await runBin([...journal('review-missing-subtask'), '--contract', `${C}/plans/parallel-review.yaml`, '--rule', 'contract-missing-subtask=off']);
    expect(off.code).toBe(0);
    expect(off.stdout).not.toContain('contract-missing-subtask');
  });

  it('puts contract findings in the JSON report', async () => {
    const r = await runMain([...journal('review-unexpected-agent'), '--contract', `${C}/plans/parallel-review.yaml`, '--format', 'json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.delegations[0].findings.map((f: { id: string }) => f.id)).toEqual(['contract-unexpected-agent']);
    expect(doc.summary.error).toBe(1);
  });

  it('refuses a malformed plan with exit 2 and one sentence naming the field', async () => {
    const r = await runBin([...journal('review-clean'), '--contract', `${C}/malformed/missing-verification.yaml`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^trace-delegation: contract fixtures\/contracts\/malformed\/missing-verification\.yaml is not valid: subtasks\[1\]\.contract\.verification is required \(subtask "perf-review"\) \(line \d+\)$/)]);
    const unreadable = await runMain([...journal('review-clean'), '--contract', `${C}/malformed/not-yaml.yaml`]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(/^trace-delegation: contract .*not-yaml\.yaml is not valid YAML: .+\(line 4, column 3\)\n$/);
  });
});
