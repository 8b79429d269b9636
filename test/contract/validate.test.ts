import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContractFileError, loadContractFile, parseContractText } from '../../src/contract/load.js';
import { formatPath, type PlanFinding } from '../../src/contract/types.js';
import { declaredFields, subtaskTimeoutMs, validateContract } from '../../src/contract/validate.js';
import { ROOT } from '../helpers/cli.js';

const CONTRACTS = path.join(ROOT, 'fixtures', 'contracts');

async function validateFile(rel: string) {
  const loaded = await loadContractFile(path.join(CONTRACTS, rel));
  return { loaded, ...validateContract(loaded.data, loaded.lineOf) };
}

const summary = (fs: PlanFinding[]) => fs.map((f) => `${f.severity} ${f.id} ${f.path}`);
const errors = (fs: PlanFinding[]) => fs.filter((f) => f.severity === 'error');

/** A small valid plan to vary in the inline cases. */
function plan(over: Record<string, unknown> = {}): Record<string, unknown> {
  const subtask = (id: string, agent: string, deps: string[] = [], outputs: Record<string, unknown> = { report: 'string' }) => ({
    id,
    agent,
    contract: { inputs: {}, outputs, constraints: { timeout: '5m' }, verification: 'report present' },
    dependencies: deps,
  });
  return {
    delegation: { task: 'Summarise the repo', delegated_to: ['reader', 'drafter'] },
    subtasks: [subtask('read', 'reader', [], { notes: 'array of {path, summary}' }), subtask('draft', 'drafter', ['read'])],
    interfaces: [{ from: 'read', to: 'draft', format: { notes: 'array' }, required_fields: ['notes'] }],
    merge_plan: { strategy: 'custom', conflict_resolution: 'drafter output is final' },
    failure_handling: { policy: 'continue', max_retries: 1, fallback: null },
    ...over,
  };
}

describe('the seed examples', () => {
  it.each(['parallel-review', 'data-pipeline'])('%s parses to the same plan from YAML and JSON', async (name) => {
    const yaml = await validateFile(`plans/${name}.yaml`);
    const json = await validateFile(`plans/${name}.json`);
    expect(json.loaded.data).toEqual(yaml.loaded.data);
    expect(summary(json.findings)).toEqual(summary(yaml.findings));
    expect(yaml.loaded.format).toBe('yaml');
    expect(json.loaded.format).toBe('json');
  });

  it('Example 1 (parallel code review) is valid with no finding', async () => {
    const { findings, plan: typed } = await validateFile('plans/parallel-review.yaml');
    expect(findings).toEqual([]);
    expect(typed?.subtasks.map((s) => s.agent)).toEqual(['security-agent', 'perf-agent', 'style-agent']);
  });

  it('Example 2 (data pipeline) has no error, only the warnings its own rules imply', async () => {
    const { findings, plan: typed } = await validateFile('plans/data-pipeline.yaml');
    expect(typed).not.toBeNull();
    expect(errors(findings)).toEqual([]);
    // store-data writes to customer_db with no safety notes; record fields are not declared in outputs.
    expect(summary(findings)).toEqual([
      'warning plan-mutation-without-safety subtasks[2].contract.constraints',
      'warning plan-interface-field interfaces[0].required_fields',
      'warning plan-interface-field interfaces[1].required_fields',
    ]);
    expect(findings[1].message).toContain('"id", "name", "email"');
    expect(findings[1].line).toBe(53);
  });
});

describe('malformed plans', () => {
  it('a missing field is one error naming the field path and the subtask', async () => {
    const { findings, plan: typed } = await validateFile('malformed/missing-verification.yaml');
    expect(typed).toBeNull();
    expect(findings).toEqual([
      expect.objectContaining({ id: 'plan-incomplete-contract', severity: 'error', path: 'subtasks[1].contract.verification', message: 'subtasks[1].contract.verification is required (subtask "perf-review")' }),
    ]);
    expect(findings[0].line).toBeGreaterThan(1);
  });

  it('a dependency cycle is reported once, with its path', async () => {
    const { findings } = await validateFile('malformed/cycle.yaml');
    const cycles = findings.filter((f) => f.id === 'plan-dependency-cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0].message).toContain('validate-data → store-data → enrich-data → validate-data');
    expect(cycles[0].path).toBe('subtasks[1].dependencies[0]');
  });

  it('an unknown merge strategy lists the allowed ones', async () => {
    const { findings } = await validateFile('malformed/bad-strategy.yaml');
    expect(findings).toEqual([expect.objectContaining({ id: 'plan-merge-strategy', path: 'merge_plan.strategy', message: 'merge_plan.strategy must be one of first_wins, consensus, aggregate, custom, not "majority_vote"' })]);
  });

  it('an unknown dependency names the subtask and the missing id (JSON plan)', async () => {
    const { findings } = await validateFile('malformed/unknown-dependency.json');
    const unknown = errors(findings);
    expect(unknown).toEqual([expect.objectContaining({ id: 'plan-unknown-dependency', path: 'subtasks[1].dependencies[0]' })]);
    expect(unknown[0].message).toBe('subtasks[1].dependencies[0] names "validate", but no subtask has that id (in subtask "enrich-data")');
    // Without the dependency, the interface and the ${validate-data…} input now race it.
    expect(findings.map((f) => f.id)).toContain('plan-interface-without-dependency');
    expect(findings.map((f) => f.id)).toContain('plan-input-reference');
  });

  it('an interface field the producers do not output is an error naming every producer', async () => {
    const { findings } = await validateFile('malformed/bad-interface-field.yaml');
    expect(summary(findings)).toEqual(['error plan-interface-field interfaces[0].required_fields']);
    expect(findings[0].message).toContain('requires "score", which "security-review" (outputs: issues, summary, passed), "perf-review"');
  });

  it('a plan without failure handling is the seed anti-pattern', async () => {
    const { findings } = await validateFile('malformed/no-failure-handling.yaml');
    expect(findings).toEqual([expect.objectContaining({ id: 'plan-no-failure-handling', severity: 'error', path: 'failure_handling' })]);
  });
});

describe('inline rules', () => {
  const ids = (data: unknown) => summary(validateContract(data).findings);

  it('accepts the small plan', () => {
    expect(ids(plan())).toEqual([]);
  });

  it('names type errors once, with the value found', () => {
    const v = validateContract(plan({ failure_handling: { policy: 'retry', max_retries: 'two' }, confidence: 1.5 }));
    expect(v.findings.map((f) => f.message)).toEqual(['failure_handling.max_retries must be an integer, not "two"', 'confidence must be between 0 and 1, not 1.5']);
    expect(v.findings[0].id).toBe('plan-failure-handling');
  });

  it('requires non-blank verification and at least one output, but allows empty inputs and constraints', () => {
    const p = plan();
    const s = (p.subtasks as Record<string, any>[])[1];
    s.contract = { inputs: {}, outputs: {}, constraints: {}, verification: '  ' };
    expect(ids(p)).toEqual(['error plan-incomplete-contract subtasks[1].contract.outputs', 'error plan-incomplete-contract subtasks[1].contract.verification']);
  });

  it('reports duplicate ids and a self-dependency as a cycle', () => {
    const p = plan();
    const subs = p.subtasks as Record<string, any>[];
    subs[1].id = 'read';
    subs[0].dependencies = ['read'];
    const v = validateContract(p).findings;
    expect(v.map((f) => f.id)).toEqual(expect.arrayContaining(['plan-duplicate-subtask', 'plan-dependency-cycle']));
    expect(v.find((f) => f.id === 'plan-dependency-cycle')!.message).toContain('read → read');
  });

  it('checks interface endpoints; all_subtasks and merge are reserved names', () => {
    expect(ids(plan({ interfaces: [{ from: 'all_subtasks', to: 'merge', required_fields: [] }] }))).toEqual([]);
    expect(ids(plan({ interfaces: [{ from: 'reed', to: 'publish' }] }))).toEqual(['error plan-unknown-interface-endpoint interfaces[0].from', 'error plan-unknown-interface-endpoint interfaces[0].to']);
    expect(ids(plan({ interfaces: [{ from: 'draft', to: 'read' }] }))).toEqual(['warning plan-interface-without-dependency interfaces[0]']);
  });

  it('finds required fields in output keys and in {a, b} field lists; item fields not declared are a warning', () => {
    expect(ids(plan({ interfaces: [{ from: 'read', to: 'draft', required_fields: ['path', 'summary'] }] }))).toEqual([]);
    expect(ids(plan({ interfaces: [{ from: 'read', to: 'draft', required_fields: ['owner'] }] }))).toEqual(['warning plan-interface-field interfaces[0].required_fields']);
    expect(ids(plan({ interfaces: [{ from: 'read', to: 'draft', format: { owner: 'string' }, required_fields: ['owner'] }] }))).toEqual(['error plan-interface-field interfaces[0].required_fields']);
  });

  it('checks ${subtask.output} input references', () => {
    const p = plan();
    const subs = p.subtasks as Record<string, any>[];
    subs[1].contract.inputs = { notes: '${read.notes}', extra: ['${read.nothing}', '${ghost.x}'] };
    expect(ids(p)).toEqual(['error plan-input-reference subtasks[1].contract.inputs.extra[0]', 'error plan-input-reference subtasks[1].contract.inputs.extra[1]']);
    subs[1].dependencies = [];
    expect(ids(p)).toContain('warning plan-input-reference subtasks[1].contract.inputs.notes');
  });

  it('an output name is one the subtask declares, not one every object inherits (toString, constructor)', () => {
    const p = plan();
    (p.subtasks as Record<string, any>[])[1].contract.inputs = { a: '${read.toString}', b: '${read.constructor}', c: '${read.notes}' };
    expect(ids(p)).toEqual(['error plan-input-reference subtasks[1].contract.inputs.a', 'error plan-input-reference subtasks[1].contract.inputs.b']);
  });

  it('refuses a plan of more than 10,000 subtasks with one finding, before building one for each', () => {
    const p = plan();
    p.subtasks = Array.from({ length: 200_000 }, () => ({}));
    const { findings, plan: ok } = validateContract(p);
    expect(ok).toBeNull();
    expect(findings.map((f) => [f.id, f.path, f.message])).toEqual([['plan-schema', 'subtasks', 'subtasks lists 200000 subtasks; a plan is checked up to 10,000 (a delegation starts at most 32 agents at once)']]);
  });

  it('refuses YAML tags that make other values than JSON holds (bytes, sets, dates), naming the field', () => {
    const yaml = (outputs: string) => `delegation: {task: t, delegated_to: [a]}\nsubtasks:\n  - id: s\n    agent: a\n    contract: {inputs: {}, outputs: ${outputs}, verification: v}\n`;
    expect(() => parseContractText(yaml('!!binary aGVsbG8='), 'p.yaml')).toThrow('contract p.yaml: subtasks[0].contract.outputs is binary data (!!binary); a plan holds only mappings, lists, text, numbers, booleans and null');
    expect(() => parseContractText(yaml('!!set {a, b}'), 'p.yaml')).toThrow('is a set (!!set)');
    expect(() => parseContractText(yaml('!!timestamp 2025-01-01'), 'p.yaml')).toThrow('is a date (!!timestamp)');
    expect(parseContractText(yaml('{report: 2025-01-01}'), 'p.yaml').data).toMatchObject({ subtasks: [{ contract: { outputs: { report: '2025-01-01' } } }] });
  });

  it('reads YAML merge keys, and says in words that a file holds two documents', () => {
    const shared = 'delegation: {task: t, delegated_to: [a]}\nbase: &base {inputs: {}, outputs: {r: string}, constraints: {timeout: 5m}, verification: v}\nsubtasks:\n  - id: s\n    agent: a\n    contract:\n      <<: *base\n      verification: r present\n';
    expect(parseContractText(shared, 'p.yaml').data).toMatchObject({ subtasks: [{ contract: { outputs: { r: 'string' }, constraints: { timeout: '5m' }, verification: 'r present' } }] });
    expect(() => parseContractText('delegation: {task: t}\n---\ndelegation: {task: u}\n', 'p.yaml')).toThrow('contract p.yaml is not valid YAML: it holds more than one document (a "---" line between two); a plan is one document (line 2, column 1)');
  });

  it('says what is wrong with JSON on one line, without V8\'s copy of the text', () => {
    expect(() => parseContractText('{\n  "delegation": x\r\n}', 'p.json')).toThrow(/^contract p\.json is not valid JSON: Unexpected token 'x' \(line 2, column 17\)$/);
    expect(() => parseContractText('{"a":1,}', 'p.json')).toThrow(/^contract p\.json is not valid JSON: Expected double-quoted property name \(line 1, column 8\)$/);
  });

  it('copes with hostile plans: inputs nested 20,000 deep, a run of ${ 100,000 long, a chain of 10,000 subtasks', () => {
    const p = plan();
    let deep: unknown = '${read.notes}';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    (p.subtasks as Record<string, any>[])[1].contract.inputs = { deep, dollars: `${'${'.repeat(100_000)}read.notes}` };
    expect(ids(p)).toEqual([]); // the nested reference is found and valid; the run's last ${read.notes} too
    const chain = plan({ interfaces: [] });
    const base = (chain.subtasks as Record<string, any>[])[0];
    chain.subtasks = Array.from({ length: 10_000 }, (_, i) => ({
      ...base,
      id: `s${i}`,
      dependencies: i ? [`s${i - 1}`] : [],
      contract: { ...base.contract, inputs: i ? { prev: `\${s${i - 1}.notes}`, first: '${s0.notes}' } : {} },
    }));
    // Before: the nesting overflowed the stack, the run of ${ took minutes and the chain 1.6 GB.
    expect(errors(validateContract(chain).findings)).toEqual([]);
    (chain.subtasks as Record<string, any>[])[5].contract.inputs = { late: '${s9.notes}' }; // s5 does not depend on s9
    expect(ids(chain).filter((x) => x.includes('plan-input-reference'))).toEqual(['warning plan-input-reference subtasks[5].contract.inputs.late']);
  });

  it('accepts 10m / 5m / 30s timeouts and numbers of seconds, rejects other text', () => {
    expect(subtaskTimeoutMs({ timeout: '10m' })).toBe(600_000);
    expect(subtaskTimeoutMs({ timeout: '5m' })).toBe(300_000);
    expect(subtaskTimeoutMs({ timeout: '30s' })).toBe(30_000);
    expect(subtaskTimeoutMs({ timeout: 45 })).toBe(45_000);
    expect(subtaskTimeoutMs({ timeout: '0' })).toBeNull();
    expect(subtaskTimeoutMs({})).toBeNull();
    expect(subtaskTimeoutMs({ timeout: 'five minutes' })).toBe('invalid');
    const p = plan();
    (p.subtasks as Record<string, any>[])[0].contract.constraints.timeout = 'five minutes';
    const v = validateContract(p).findings;
    expect(summary(v)).toEqual(['error plan-bad-timeout subtasks[0].contract.constraints.timeout']);
    expect(v[0].message).toContain('not "five minutes"');
  });

  it('warns when delegated_to and the subtask agents disagree', () => {
    const v = ids(plan({ delegation: { task: 't', delegated_to: ['reader', 'editor'] } }));
    expect(v).toEqual(['warning plan-delegated-to-mismatch subtasks[1].agent', 'warning plan-delegated-to-mismatch delegation.delegated_to[1]']);
  });

  it('warns on retries under abort', () => {
    expect(ids(plan({ failure_handling: { policy: 'abort', max_retries: 2 } }))).toEqual(['warning plan-abort-with-retries failure_handling.max_retries']);
    expect(ids(plan({ failure_handling: { policy: 'abort', max_retries: 0 } }))).toEqual([]);
  });

  it('flags mutating subtasks without safety notes; a safety key or mutation: false clears it', () => {
    const p = plan();
    const draft = (p.subtasks as Record<string, any>[])[1];
    draft.contract.verification = 'file is written to docs/summary.md';
    expect(ids(p)).toEqual(['warning plan-mutation-without-safety subtasks[1].contract.constraints']);
    draft.contract.constraints.requires_approval = true;
    expect(ids(p)).toEqual([]);
    delete draft.contract.constraints.requires_approval;
    draft.contract.constraints.mutation = false;
    expect(ids(p)).toEqual([]);
  });

  it('mutation words: sent and created count; "store" as a noun and timestamp output names do not', () => {
    const p = plan();
    const draft = (p.subtasks as Record<string, any>[])[1];
    for (const verification of ['emails sent to customers', 'PR created on GitHub', 'results stored in the warehouse']) {
      draft.contract.verification = verification;
      expect(ids(p), verification).toEqual(['warning plan-mutation-without-safety subtasks[1].contract.constraints']);
    }
    draft.contract.verification = 'price read from the artifact store';
    draft.contract.outputs = { price: 'number', last_updated: 'string', created_at: 'string' };
    expect(ids(p)).toEqual([]);
  });

  it('warns on policy retry with no retry allowed', () => {
    expect(ids(plan({ failure_handling: { policy: 'retry', max_retries: 0 } }))).toEqual(['warning plan-retry-without-retries failure_handling.max_retries']);
    expect(ids(plan({ failure_handling: { policy: 'retry', max_retries: 1 } }))).toEqual([]);
  });

  it('a subtask that reads its own output, or an interface from a subtask to itself, is a cycle', () => {
    const self = plan();
    (self.subtasks as Record<string, any>[])[1].contract.inputs = { q: '${draft.report}' };
    expect(ids(self)).toEqual(['error plan-dependency-cycle subtasks[1].contract.inputs.q']);
    expect(validateContract(self).findings[0].message).toContain('an output of "draft" itself: a cycle (draft → draft)');
    expect(ids(plan({ interfaces: [{ from: 'read', to: 'read', format: { notes: 'array' }, required_fields: ['notes'] }] }))).toEqual(['error plan-dependency-cycle interfaces[0]']);
  });

  it('declaredFields reads keys at any depth and {…} lists', () => {
    expect([...declaredFields({ issues: 'array of {severity, file}', meta: { count: 'integer' } })].sort()).toEqual(['count', 'file', 'issues', 'meta', 'severity']);
  });

  it('formats paths the way the messages print them', () => {
    expect(formatPath(['subtasks', 1, 'contract', 'verification'])).toBe('subtasks[1].contract.verification');
    expect(formatPath(['handoff_context', 0, 'odd key'])).toBe('handoff_context[0]["odd key"]');
  });
});

describe('loading', () => {
  const fails = async (rel: string) => {
    const err = await loadContractFile(path.join(CONTRACTS, rel)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractFileError);
    return (err as Error).message;
  };

  it('unparsable YAML names the line and column', async () => {
    expect(await fails('malformed/not-yaml.yaml')).toMatch(/not-yaml\.yaml is not valid YAML: .+ \(line 4, column 3\)$/);
  });

  it('unparsable JSON names the line and column', async () => {
    expect(await fails('malformed/not-json.json')).toMatch(/not-json\.json is not valid JSON: .+ \(line 4, column 1\)$/);
  });

  it('a top-level list, an empty file and a missing file are one sentence each', async () => {
    expect(await fails('malformed/top-level-list.yaml')).toContain('must be a mapping with delegation, subtasks, merge_plan and failure_handling at the top level, not a list');
    expect(await fails('no-such-plan.yaml')).toMatch(/cannot read contract .*no-such-plan\.yaml: no such file$/);
    expect(() => parseContractText('  \n', 'empty.yaml')).toThrow('contract empty.yaml is empty');
    expect(() => parseContractText('a: *nowhere\n', 'alias.yaml')).toThrow(ContractFileError);
  });

  it('says a YAML document nested past the parser\'s stack is too deep, not "Maximum call stack size exceeded"', () => {
    const deep = `delegation: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
    expect(() => parseContractText(deep, 'deep.yaml')).toThrow(/^contract deep\.yaml is not valid YAML: it is nested too deeply for the YAML parser \(a plan this deep can be written as JSON\)/);
  });

  it('refuses a key twice in a JSON object, as YAML does; takes an alias used 100 times, not an alias bomb', () => {
    expect(() => parseContractText('{"merge_plan": {"strategy": "custom",\n "strategy": "bogus"}}', 'p.json')).toThrow('contract p.json is not valid: a key appears twice in one object (line 2, column 2)');
    const reused = `note: &n text\nlist: [${Array(100).fill('*n').join(', ')}]\n`;
    expect((parseContractText(reused, 'p.yaml').data.list as string[]).length).toBe(100);
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(', ')}]`)];
    expect(() => parseContractText(`${levels.join('\n')}\n`, 'bomb.yaml')).toThrow('Excessive alias count');
  });

  it('refuses an alias inside the value it names (a circular plan) in one sentence, and takes one value aliased twice', () => {
    expect(() => parseContractText('a: &x [*x]\n', 'seq.yaml')).toThrow(/^contract seq\.yaml: a\[0\] is an alias to a value that holds it, and a plan cannot refer to itself$/);
    expect(() => parseContractText('delegation: &d {task: t, self: *d}\n', 'map.yaml')).toThrow(/^contract map\.yaml: delegation\.self is an alias/);
    const shared = parseContractText('delegation: {task: t}\nx: &s {k: [1, 2]}\ny: {a: *s, b: *s}\n', 'shared.yaml');
    expect((shared.data.y as { b: { k: number[] } }).b.k).toEqual([1, 2]);
  });

  it('points a missing field at its parent line', () => {
    const loaded = parseContractText('delegation:\n  task: x\nsubtasks:\n  - id: a\n    agent: b\n', 'p.yaml');
    expect(loaded.lineOf(['subtasks', 0, 'agent'])).toBe(5);
    expect(loaded.lineOf(['subtasks', 0, 'contract'])).toBe(4);
    expect(loaded.lineOf(['failure_handling'])).toBe(1);
  });
});
