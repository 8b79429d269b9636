import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { RuleSettings } from '../../src/checks/run.js';
import type { Finding } from '../../src/checks/types.js';
import { contractChecks, CONTRACT_CHECKS } from '../../src/contract/checks/index.js';
import { contractLimits } from '../../src/contract/limits.js';
import { humanDuration } from '../../src/contract/checks/util.js';
import { loadContractFile, parseContractText } from '../../src/contract/load.js';
import type { DelegationPlan } from '../../src/contract/types.js';
import { validateContract } from '../../src/contract/validate.js';
import type { TraceReport } from '../../src/report/types.js';
import { ROOT } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const CONTRACTS = path.join(ROOT, 'fixtures', 'contracts');
const NOW_MS = Date.parse('2030-01-01T00:00:00Z');
const REVIEW = 'plans/parallel-review.yaml';
const CONSENSUS = 'plans/parallel-review-consensus.yaml';
const PIPELINE = 'plans/data-pipeline.yaml';

async function planFile(rel: string): Promise<DelegationPlan> {
  const loaded = await loadContractFile(path.join(CONTRACTS, rel));
  const { plan } = validateContract(loaded.data, loaded.lineOf);
  if (!plan) throw new Error(`${rel} is not a valid plan`);
  return plan;
}

async function report(plan: DelegationPlan, source: { file: string } | { text: string }, rules: RuleSettings = {}): Promise<TraceReport> {
  const input = 'file' in source ? { sessions: [path.join(CONTRACTS, 'journals', source.file)] } : { stdin: Readable.from([source.text]) };
  const { report: r } = await analyze({ ...input, all: true, cwd: ROOT, env: {}, rules, checkOptions: { nowMs: NOW_MS }, extraChecks: contractChecks(plan), extraLimits: (d) => contractLimits(plan, 'plan.yaml', d) });
  return r;
}

const contractFindings = (r: TraceReport): Finding[] => r.delegations.flatMap((d) => d.findings).filter((f) => f.id.startsWith('contract-'));

interface Trigger {
  plan: string;
  journal: string;
  severities: string[];
  includes: string[];
}

/** For each contract check: the fixture journals that trigger it and look-alikes that must not. */
const CASES: Record<string, { trigger: Trigger[]; clean: [plan: string, journal: string][] }> = {
  'contract-missing-subtask': {
    trigger: [{ plan: REVIEW, journal: 'review-missing-subtask.jsonl', severities: ['error'], includes: ['subtask "style-review" (agent style-agent) never ran', 'the delegation was not started with style-agent', '(subtasks[2])'] }],
    clean: [[REVIEW, 'review-clean.jsonl'], [PIPELINE, 'pipeline-clean.jsonl']],
  },
  'contract-unexpected-agent': {
    trigger: [{ plan: REVIEW, journal: 'review-unexpected-agent.jsonl', severities: ['error'], includes: ['agent docs-agent ran (run c0a7ac70-0003-4000-8000-000000000004) but the contract names no subtask for it'] }],
    // review-clean retries perf-agent: a retry is the same subtask, not another agent run.
    clean: [[REVIEW, 'review-clean.jsonl'], [PIPELINE, 'pipeline-retry-policy.jsonl']],
  },
  'contract-dependency-order': {
    trigger: [
      {
        plan: PIPELINE,
        journal: 'pipeline-dependency-order.jsonl',
        severities: ['error', 'error'],
        includes: ['subtask "enrich-data" (agent enricher, run c0a7ac70-0012-4000-8000-000000000002) started at 2025-11-03T10:00:00.200000000+00:00, 29.8s before its dependency "validate-data"', 'subtask "store-data"'],
      },
    ],
    // Each stage starts 1 ms after the stage it depends on completed.
    clean: [[PIPELINE, 'pipeline-clean.jsonl'], [REVIEW, 'review-clean.jsonl']],
  },
  'contract-retry-policy': {
    trigger: [
      { plan: REVIEW, journal: 'review-retry-policy.jsonl', severities: ['error'], includes: ['subtask "perf-review" (agent perf-agent) was retried 2 times', 'failure_handling.max_retries 1 allows 1'] },
      { plan: PIPELINE, journal: 'pipeline-retry-policy.jsonl', severities: ['error'], includes: ['subtask "enrich-data" (agent enricher) was retried 1 time', 'failure_handling.policy is abort'] },
    ],
    // One retry, which max_retries 1 allows.
    clean: [[REVIEW, 'review-clean.jsonl']],
  },
  'contract-abort-ignored': {
    trigger: [{ plan: PIPELINE, journal: 'pipeline-abort-ignored.jsonl', severities: ['error', 'error'], includes: ['subtask "enrich-data" (agent enricher, run c0a7ac70-0014-4000-8000-000000000002) started at', 'ended failed at 2025-11-03T10:00:20.000000000+00:00; failure_handling.policy is abort'] }],
    // The validator failed and nothing else started; and failures under policy continue are fine.
    clean: [[PIPELINE, 'pipeline-aborted.jsonl'], [PIPELINE, 'pipeline-clean.jsonl'], [REVIEW, 'review-clean.jsonl']],
  },
  'contract-timeout': {
    trigger: [{ plan: REVIEW, journal: 'review-timeout.jsonl', severities: ['warning'], includes: ['subtask "style-review" (agent style-agent, run c0a7ac70-0004-4000-8000-000000000003) ran 3m30s', 'its constraints.timeout is 3m (subtasks[2].contract.constraints.timeout)'] }],
    // style-review 2m10s of 3m, security-review 4m20s of 5m, each perf-review attempt under 5m.
    clean: [[REVIEW, 'review-clean.jsonl']],
  },
  'contract-merge-mismatch': {
    trigger: [
      { plan: REVIEW, journal: 'review-merge-mismatch.jsonl', severities: ['warning'], includes: ['merge_plan.strategy is aggregate, but the aggregate holds one result while 3 sub-runs succeeded with output'] },
      { plan: CONSENSUS, journal: 'review-consensus-split.jsonl', severities: ['warning'], includes: ['merge_plan.strategy is consensus, but the 3 successful results have no strict majority (3 distinct outputs, the largest group has 1)'] },
    ],
    clean: [[REVIEW, 'review-clean.jsonl'], [CONSENSUS, 'review-consensus-agree.jsonl'], [PIPELINE, 'pipeline-clean.jsonl']],
  },
};

describe('contract check registry', () => {
  it('every contract check has a triggering and a clean fixture', () => {
    expect(Object.keys(CASES).sort()).toEqual(CONTRACT_CHECKS.map((c) => c.meta.id).sort());
    for (const c of Object.values(CASES)) {
      expect(c.trigger.length).toBeGreaterThan(0);
      expect(c.clean.length).toBeGreaterThan(0);
    }
  });

  it.each(CONTRACT_CHECKS.map((c) => [c.meta.id, c] as const))('%s is a documented contract check in its own module', (id, c) => {
    expect(id).toMatch(/^contract-[a-z-]+$/);
    expect(c.meta.category).toBe('contract');
    for (const field of ['why', 'example', 'reportLine', 'fix'] as const) expect(c.meta.docs[field].trim()).not.toBe('');
    expect(c.meta.docs.reportLine.startsWith(`- [${c.meta.defaultSeverity}] ${id}: `) || c.meta.docs.reportLine.includes(`] ${id}: `)).toBe(true);
    expect(existsSync(path.join(ROOT, 'src', 'contract', 'checks', `${id}.ts`))).toBe(true);
  });
});

describe.each(Object.entries(CASES))('%s', (id, cases) => {
  it.each(cases.trigger.map((t) => [t.journal, t] as const))('reports %s', async (_name, t) => {
    const found = contractFindings(await report(await planFile(t.plan), { file: t.journal })).filter((f) => f.id === id);
    expect(found.map((f) => f.severity)).toEqual(t.severities);
    const text = found.map((f) => f.message).join('\n');
    for (const s of t.includes) expect(text).toContain(s);
    for (const f of found) expect(f.evidence.length).toBeGreaterThan(0);
  });

  it.each(cases.clean)('does not report %s with %s', async (plan, file) => {
    const found = contractFindings(await report(await planFile(plan), { file })).filter((f) => f.id === id);
    expect(found.map((f) => f.message)).toEqual([]);
  });
});

describe('the clean journals are clean under their contracts', () => {
  it.each([
    [REVIEW, 'review-clean.jsonl'],
    [PIPELINE, 'pipeline-clean.jsonl'],
    [CONSENSUS, 'review-consensus-agree.jsonl'],
  ])('%s / %s: no contract finding', async (plan, file) => {
    expect(contractFindings(await report(await planFile(plan), { file })).map((f) => f.message)).toEqual([]);
  });
});

describe('a result counted through a completion timestamped just after the join', () => {
  it('is merged like any other: contract-merge-mismatch runs and says nothing on the clean review', async () => {
    // review-clean with the perf result 0.5 ms after the join (writers invert timestamps): the
    // join counted it, and the merge check used to fail on it ("Cannot read properties of null").
    const text = readFileSync(path.join(CONTRACTS, 'journals', 'review-clean.jsonl'), 'utf8').replace('"ts":"2025-11-03T10:04:40.000000000+00:00"', '"ts":"2025-11-03T10:04:40.100500000+00:00"');
    const r = await report(await planFile(REVIEW), { text });
    expect(r.delegations[0].limits.join('\n')).not.toContain('failed on delegation');
    expect(contractFindings(r).map((f) => f.id)).toEqual([]);
  });
});

describe('contract semantics', () => {
  const D = 'del-1';
  const P = 'parent-1';
  const T = (s: number) => `2025-11-03T10:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000000000+00:00`;
  const sub = (id: string, agent: string, deps: string[] = [], constraints: Record<string, unknown> = {}) => ({ id, agent, contract: { inputs: {}, outputs: { out: 'string' }, constraints, verification: 'out present' }, dependencies: deps });
  const mkPlan = (subtasks: ReturnType<typeof sub>[], strategy = 'custom', policy = 'continue', maxRetries = 0): DelegationPlan => {
    const v = validateContract({ delegation: { task: 't' }, subtasks, merge_plan: { strategy }, failure_handling: { policy, max_retries: maxRetries } });
    if (!v.plan) throw new Error(JSON.stringify(v.findings));
    return v.plan;
  };
  const ran = (run: string, agent: string, start: number, end: number | null, status = 'completed', output = `${agent} done`) => [
    ev.subStarted(T(start), { delegation_id: D, sub_run_id: run, parent_run_id: P, agent_id: agent }),
    ...(end === null ? [] : [ev.subCompleted(T(end), { delegation_id: D, sub_run_id: run, agent_id: agent, status, output_preview: output, error: status === 'completed' ? null : 'boom' })]),
  ];
  const byId = (r: TraceReport, id: string) => contractFindings(r).filter((f) => f.id === id);

  it('maps several subtasks on one agent in order of start', async () => {
    const plan = mkPlan([sub('second', 'worker', ['first']), sub('first', 'worker')]);
    const inOrder = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['worker', 'worker'] }), ...ran('run-a', 'worker', 1, 10), ...ran('run-b', 'worker', 11, 20), ev.completed(T(21), { delegation_id: D, pattern: 'sequential', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed' }));
    const r = await report(plan, { text: inOrder });
    expect(contractFindings(r)).toEqual([]);
    // "first" has to run first (it is a dependency), so it takes the earlier run.
    expect(r.delegations[0].limits.join('\n')).toContain('second→run-b, first→run-a');

    const overlapping = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['worker', 'worker'] }), ...ran('run-a', 'worker', 1, 10), ...ran('run-b', 'worker', 2, 12), ev.completed(T(13), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed' }));
    expect(byId(await report(plan, { text: overlapping }), 'contract-dependency-order').map((f) => f.message)).toEqual([expect.stringContaining('subtask "second" (agent worker, run run-b) started at 2025-11-03T10:00:02.000000000+00:00, 8s before its dependency "first" (run run-a)')]);
  });

  it('a dependency that completed with an empty error is named with it (the engine counts it as failed)', async () => {
    const plan = mkPlan([sub('build', 'builder'), sub('deploy', 'deployer', ['build'])]);
    const start = ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['builder', 'deployer'] });
    const built = (error: string | null) => ev.subCompleted(T(10), { delegation_id: D, sub_run_id: 'r1', agent_id: 'builder', status: 'completed', error, output_preview: 'built' });
    const rest = [...ran('r2', 'deployer', 11, 20), ev.completed(T(21), { delegation_id: D, pattern: 'sequential', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' })];
    const text = (error: string | null) => journal(start, ev.subStarted(T(1), { delegation_id: D, sub_run_id: 'r1', parent_run_id: P, agent_id: 'builder' }), built(error), ...rest);
    expect(byId(await report(plan, { text: text('') }), 'contract-dependency-order').map((f) => f.message)).toEqual([expect.stringContaining('after its dependency "build" (run r1) ended completed with error "": the outputs it depends on were never produced')]);
    expect(byId(await report(plan, { text: text(null) }), 'contract-dependency-order')).toEqual([]);
  });

  it('an extra run of a named agent is a warning; a dependency that never ran is an error', async () => {
    const plan = mkPlan([sub('a', 'alpha'), sub('b', 'beta', ['c']), sub('c', 'gamma')]);
    const text = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'alpha', 'beta'] }), ...ran('r1', 'alpha', 1, 5), ...ran('r2', 'alpha', 1, 6), ...ran('r3', 'beta', 1, 7), ev.completed(T(8), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 3, succeeded: 3, failed: 0, aggregated_status: 'completed' }));
    const r = await report(plan, { text });
    expect(byId(r, 'contract-unexpected-agent').map((f) => [f.severity, f.message])).toEqual([['warning', 'agent alpha ran 2 sub-runs but the contract assigns it 1 ("a"); extra: r2']]);
    expect(byId(r, 'contract-dependency-order').map((f) => f.message)).toEqual([expect.stringContaining('its dependency "c" (agent gamma) never ran')]);
    expect(byId(r, 'contract-missing-subtask').map((f) => f.severity)).toEqual(['error']);
  });

  it('a missing subtask is explained by abort or first_wins only where a stop after the last started stage could skip it', async () => {
    const three = [sub('sa', 'a'), sub('sb', 'b'), sub('sc', 'c')];
    const join = (pattern: string, total: number, ok: number, failed: number, status: string, at: number) => ev.completed(T(at), { delegation_id: D, pattern, total_sub_runs: total, succeeded: ok, failed, aggregated_status: status });
    const missing = async (plan: DelegationPlan, text: string) => byId(await report(plan, { text }), 'contract-missing-subtask').map((f) => [f.severity, f.message]);
    // fan_out starts every child up front: a later failure or success explains no child that never
    // started, least of all an agent the delegation was not started with.
    const fan = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['a', 'b'] }), ...ran('ra', 'a', 1, 5), ...ran('rb', 'b', 1, 6, 'failed'), join('fan_out', 2, 1, 1, 'partial', 7));
    for (const plan of [mkPlan(three, 'first_wins', 'abort'), mkPlan(three, 'first_wins', 'continue')]) expect(await missing(plan, fan)).toEqual([['error', expect.stringContaining('subtask "sc" (agent c) never ran: no sub-run of c in this delegation; the delegation was not started with c (subtasks[2])')]]);
    // sequential, abort: stage a failed and nothing started after it: b and c were rightly skipped.
    const seqIds = { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['a', 'b', 'c'] };
    const stopped = journal(ev.started(T(0), seqIds), ...ran('ra', 'a', 1, 5, 'failed'), join('sequential', 1, 0, 1, 'failed', 6));
    expect((await missing(mkPlan(three, 'custom', 'abort'), stopped)).map(([sev]) => sev)).toEqual(['info', 'info']);
    expect((await missing(mkPlan(three, 'custom', 'abort'), stopped))[0][1]).toContain('subtask "sa", the last stage that started, failed, so stopping was correct');
    // But when c started after a's failure, the delegation did not stop there: b's absence is unexplained.
    const skipped = journal(ev.started(T(0), seqIds), ...ran('ra', 'a', 1, 5, 'failed'), ...ran('rc', 'c', 6, 8), join('sequential', 2, 1, 1, 'partial', 9));
    expect(await missing(mkPlan(three, 'custom', 'abort'), skipped)).toEqual([['error', expect.stringContaining('subtask "sb" (agent b) never ran')]]);
    // Nor when c, started past b, failed too: b was skipped, not stopped before.
    const skippedThenFailed = journal(ev.started(T(0), seqIds), ...ran('ra', 'a', 1, 5, 'failed'), ...ran('rc', 'c', 6, 8, 'failed'), join('sequential', 2, 0, 2, 'failed', 9));
    expect(await missing(mkPlan(three, 'custom', 'abort'), skippedThenFailed)).toEqual([['error', expect.stringContaining('subtask "sb" (agent b) never ran')]]);
  });

  it('a missing subtask of a delegation that never completed is a warning', async () => {
    const plan = mkPlan([sub('a', 'alpha'), sub('b', 'beta')]);
    const text = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'beta'] }), ...ran('r1', 'alpha', 1, 5));
    const missing = byId(await report(plan, { text }), 'contract-missing-subtask');
    expect(missing.map((f) => [f.severity, f.message])).toEqual([['warning', expect.stringContaining('subtask "b" (agent beta) never ran') as unknown as string]]);
  });

  it('first_wins: several results joined, and stages started after a success', async () => {
    const plan = mkPlan([sub('a', 'alpha'), sub('b', 'beta')], 'first_wins');
    const fan = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'beta'] }), ...ran('r1', 'alpha', 1, 5), ...ran('r2', 'beta', 1, 6), ev.completed(T(7), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'alpha done\n---\nbeta done' }));
    expect(byId(await report(plan, { text: fan }), 'contract-merge-mismatch').map((f) => f.message)).toEqual(['merge_plan.strategy is first_wins, but the aggregate joins 2 results (AllResults)']);
    const seq = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['alpha', 'beta'] }), ...ran('r1', 'alpha', 1, 5), ...ran('r2', 'beta', 6, 9), ev.completed(T(10), { delegation_id: D, pattern: 'sequential', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed' }));
    expect(byId(await report(plan, { text: seq }), 'contract-merge-mismatch').map((f) => f.message)).toEqual([expect.stringContaining('1 more stage (beta run r2) started after run r1 had already succeeded')]);
    // Stopping after the first success is what first_wins asks: the missing stage is information.
    const stopped = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['alpha', 'beta'] }), ...ran('r1', 'alpha', 1, 5), ev.completed(T(6), { delegation_id: D, pattern: 'sequential', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }));
    const r = await report(plan, { text: stopped });
    expect(byId(r, 'contract-merge-mismatch')).toEqual([]);
    expect(byId(r, 'contract-missing-subtask').map((f) => f.severity)).toEqual(['info']);
  });

  it('merges what the join had: a result completed after it (late-result) is not counted against the strategy', async () => {
    const aggregate = mkPlan([sub('a', 'alpha'), sub('b', 'beta')], 'aggregate');
    const late = journal(
      ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'beta'] }),
      ...ran('r1', 'alpha', 1, 5),
      ev.subStarted(T(1), { delegation_id: D, sub_run_id: 'r2', parent_run_id: P, agent_id: 'beta' }),
      ev.completed(T(20), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'alpha done' }),
      ev.subCompleted(T(25), { delegation_id: D, sub_run_id: 'r2', agent_id: 'beta', status: 'completed', output_preview: 'beta done' }),
    );
    const r = await report(aggregate, { text: late });
    expect(byId(r, 'contract-merge-mismatch')).toEqual([]);
    expect(r.delegations[0].findings.map((f) => f.id)).toContain('late-result');
    // The control: both results there by the join, one kept.
    const early = late.replace(T(25), T(15)); // events are ordered by time, not by line
    expect(byId(await report(aggregate, { text: early }), 'contract-merge-mismatch').map((f) => f.message)).toEqual([
      'merge_plan.strategy is aggregate, but the aggregate holds one result while 2 sub-runs succeeded with output (FirstSuccess or Consensus)',
    ]);
  });

  it('one output whose text holds a `---` line (Markdown) is one result, not AllResults', async () => {
    const plan = mkPlan([sub('a', 'alpha'), sub('b', 'beta')], 'first_wins');
    const markdown = '## Summary\nAll good\n---\nDetails: none';
    const text = journal(
      ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'beta'] }),
      ...ran('r1', 'alpha', 1, 5, 'completed', markdown),
      ...ran('r2', 'beta', 1, 6, 'failed'),
      ev.completed(T(7), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial', aggregated_output_preview: markdown }),
    );
    expect(byId(await report(plan, { text }), 'contract-merge-mismatch')).toEqual([]);
  });

  it('first_wins: an empty aggregate is what FirstSuccess gives when the first success had no output (Gen A)', async () => {
    const plan = mkPlan([sub('a', 'alpha'), sub('b', 'beta')], 'first_wins');
    const blankFirst = journal(
      ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'beta'] }),
      ...ran('r1', 'alpha', 1, 5, 'completed', ''),
      ...ran('r2', 'beta', 1, 6),
      ev.completed(T(7), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed', aggregated_output_preview: null }),
    );
    expect(byId(await report(plan, { text: blankFirst }), 'contract-merge-mismatch')).toEqual([]);
    // The control: the first success had output, and the aggregate is empty.
    const withOutput = blankFirst.replace('"output_preview":""', '"output_preview":"alpha done"');
    expect(byId(await report(plan, { text: withOutput }), 'contract-merge-mismatch').map((f) => f.message)).toEqual([expect.stringContaining('the aggregate is empty although 2 sub-runs succeeded with output')]);
  });

  it('reads a JSON plan that starts with a byte order mark', () => {
    const loaded = parseContractText(`\uFEFF${JSON.stringify({ delegation: { task: 't' }, subtasks: [], merge_plan: { strategy: 'custom' } })}`, 'plan.json');
    expect(loaded.format).toBe('json');
  });

  it('prints durations that differ from the limit they break', () => {
    expect(['30000.4', '300900', '300001', '372000', '1500', '0', '3600000', '3723500'].map((v) => humanDuration(Number(v)))).toEqual(['30.0004s', '5m0.9s', '5m0.001s', '6m12s', '1.5s', '0s', '1h0m', '1h2m3.5s']);
    // A breach by a nanosecond (the journal's precision) still shows.
    expect([300000.000001, 0.000001, 30000.000001].map(humanDuration)).toEqual(['5m0.000000001s', '0.000000001s', '30.000000001s']);
  });

  it('an open run is not measured against its timeout', async () => {
    const plan = mkPlan([sub('a', 'alpha', [], { timeout: '30s' })]);
    const text = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha'] }), ...ran('r1', 'alpha', 1, null), ev.completed(T(120), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed' }));
    expect(byId(await report(plan, { text }), 'contract-timeout')).toEqual([]);
    const long = journal(ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha'] }), ...ran('r1', 'alpha', 1, 32), ev.completed(T(33), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'alpha done' }));
    expect(byId(await report(plan, { text: long }), 'contract-timeout').map((f) => f.message)).toEqual([expect.stringContaining('ran 31s')]);
  });

  it('a run stops at its first completion: a Gen A gate re-completion after the batch is not running time', async () => {
    const plan = mkPlan([sub('a', 'alpha', [], { timeout: '30s' }), sub('b', 'beta', [], { timeout: '5m' })], 'aggregate', 'continue', 1);
    const gated = (alphaEnd: number) =>
      journal(
        ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha', 'beta'] }),
        ev.subStarted(T(1), { delegation_id: D, sub_run_id: 'r1', parent_run_id: P, agent_id: 'alpha' }),
        ev.subStarted(T(1), { delegation_id: D, sub_run_id: 'r2', parent_run_id: P, agent_id: 'beta' }),
        ev.subCompleted(T(alphaEnd), { delegation_id: D, sub_run_id: 'r1', agent_id: 'alpha', status: 'completed', output_preview: 'ok' }),
        ev.subCompleted(T(240), { delegation_id: D, sub_run_id: 'r2', agent_id: 'beta', status: 'completed', output_preview: 'beta done' }),
        // Gen A gates every result after the batch: alpha's rejection comes minutes after it finished.
        ev.retry(T(241), { delegation_id: D, original_run_id: 'r1', retry_run_id: 'r3', agent_id: 'alpha' }),
        ev.subCompleted(T(241), { delegation_id: D, sub_run_id: 'r1', agent_id: 'alpha', status: 'verification_failed', error: 'output too short (2 chars, minimum 10)', output_preview: 'ok' }),
        ev.subStarted(T(242), { delegation_id: D, sub_run_id: 'r3', parent_run_id: P, agent_id: 'alpha', retry_of: 'r1' }),
        ev.subCompleted(T(250), { delegation_id: D, sub_run_id: 'r3', agent_id: 'alpha', status: 'completed', output_preview: 'alpha done' }),
        ev.completed(T(251), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'alpha done\n---\nbeta done' }),
      );
    // alpha ran 29 s of 30 s, then waited for the gate: within its limit.
    expect(byId(await report(plan, { text: gated(30) }), 'contract-timeout')).toEqual([]);
    // 31 s is past it, measured to its own completion, not to the gate's verdict.
    expect(byId(await report(plan, { text: gated(32) }), 'contract-timeout').map((f) => f.message)).toEqual([expect.stringContaining('(agent alpha, run r1) ran 31s (2025-11-03T10:00:01.000000000+00:00 → 2025-11-03T10:00:32.000000000+00:00)')]);
  });

  it('does not count the time a run spent paused (pause marker to its resume or second start)', async () => {
    const plan = mkPlan([sub('a', 'alpha', [], { timeout: '30s' })]);
    const paused = (resume: string[], end: number) =>
      journal(
        ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'fan_out', agent_ids: ['alpha'] }),
        ev.subStarted(T(1), { delegation_id: D, sub_run_id: 'r1', parent_run_id: P, agent_id: 'alpha' }),
        ev.marker(T(11), 'pause', 'r1'),
        ...resume,
        ev.subCompleted(T(end), { delegation_id: D, sub_run_id: 'r1', agent_id: 'alpha', status: 'completed', output_preview: 'alpha done' }),
        ev.completed(T(end + 1), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'alpha done' }),
      );
    const second = ev.subStarted(T(300), { delegation_id: D, sub_run_id: 'r1', parent_run_id: P, agent_id: 'alpha' });
    // 10 s, a pause of 289 s, then 15 s: 25 s of running against 30 s.
    expect(byId(await report(plan, { text: paused([second], 315) }), 'contract-timeout')).toEqual([]);
    expect(byId(await report(plan, { text: paused([ev.marker(T(300), 'resume', 'r1'), second], 315) }), 'contract-timeout')).toEqual([]);
    // 10 s, the pause, then 25 s: 35 s is past the limit, and the message says what it left out.
    expect(byId(await report(plan, { text: paused([second], 325) }), 'contract-timeout').map((f) => f.message)).toEqual([expect.stringContaining('ran 35s (2025-11-03T10:00:01.000000000+00:00 → 2025-11-03T10:05:25.000000000+00:00, not counting 4m49s paused)')]);
    // Without a pause marker, a second start is a resume of unknown pause: all of it counts.
    expect(byId(await report(plan, { text: paused([second], 315).replace(/.*"sync_marker".*\n/, '') }), 'contract-timeout').map((f) => f.message)).toEqual([expect.stringContaining('ran 5m14s')]);
  });

  it('first_wins explains a stop only in a delegation that completed, and never for a stage that needs the winner', async () => {
    const severities = (r: TraceReport, id: string) => byId(r, id).map((f) => f.severity);
    const start = ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['builder', 'deployer'] });
    const done = (succeeded: number) => ev.completed(T(30), { delegation_id: D, pattern: 'sequential', total_sub_runs: succeeded, succeeded, failed: 0, aggregated_status: 'completed' });
    const independent = mkPlan([sub('build', 'builder'), sub('deploy', 'deployer')], 'first_wins');
    const dependent = mkPlan([sub('build', 'builder'), sub('deploy', 'deployer', ['build'])], 'first_wins');
    const stopped = journal(start, ...ran('r1', 'builder', 1, 10), done(1));
    // The documented case: a stop after a success, which first_wins asks for.
    expect(severities(await report(independent, { text: stopped }), 'contract-missing-subtask')).toEqual(['info']);
    // deploy needs build's output: first_wins does not excuse leaving it out.
    expect(severities(await report(dependent, { text: stopped }), 'contract-missing-subtask')).toEqual(['error']);
    // No delegation_completed: it may have crashed after build, whatever the plan says.
    const open = journal(start, ...ran('r1', 'builder', 1, 10));
    expect(severities(await report(independent, { text: open }), 'contract-missing-subtask')).toEqual(['warning']);
    // A dependent stage that ran after the winner was owed; an independent one ran for nothing.
    const both = journal(start, ...ran('r1', 'builder', 1, 10), ...ran('r2', 'deployer', 11, 20), done(2));
    expect(byId(await report(dependent, { text: both }), 'contract-merge-mismatch')).toEqual([]);
    expect(byId(await report(independent, { text: both }), 'contract-merge-mismatch').map((f) => f.message)).toEqual([expect.stringContaining('1 more stage (deployer run r2) started after run r1 had already succeeded')]);
  });

  it('abort: a stage started at the instant of the failure, on a later line, started after it', async () => {
    const plan = mkPlan([sub('build', 'builder'), sub('deploy', 'deployer')], 'custom', 'abort');
    const start = ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['builder', 'deployer'] });
    const [bs, bf] = ran('r1', 'builder', 1, 10, 'failed');
    const [ds, df] = ran('r2', 'deployer', 10, 20);
    const done = ev.completed(T(21), { delegation_id: D, pattern: 'sequential', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' });
    expect(byId(await report(plan, { text: journal(start, bs, bf, ds, df, done) }), 'contract-abort-ignored').map((f) => f.message)).toEqual([expect.stringContaining('started at 2025-11-03T10:00:10.000000000+00:00, after run r1')]);
    // Journaled before the failure at the same instant: nothing shows it came after.
    expect(byId(await report(plan, { text: journal(start, bs, ds, bf, df, done) }), 'contract-abort-ignored')).toEqual([]);
  });

  it('dependency-order allows the writers\' sub-millisecond inversion, as late-result does', async () => {
    const plan = mkPlan([sub('build', 'builder'), sub('deploy', 'deployer', ['build'])]);
    const at = (s: number, frac: string) => T(s).replace('.000000000', `.${frac}`);
    const text = (depStartFrac: string) =>
      journal(
        ev.started(T(0), { delegation_id: D, parent_run_id: P, pattern: 'sequential', agent_ids: ['builder', 'deployer'] }),
        ...ran('r1', 'builder', 1, 10),
        ev.subStarted(at(9, depStartFrac), { delegation_id: D, sub_run_id: 'r2', parent_run_id: P, agent_id: 'deployer' }),
        ev.subCompleted(T(20), { delegation_id: D, sub_run_id: 'r2', agent_id: 'deployer', status: 'completed', output_preview: 'deployer done' }),
        ev.completed(T(21), { delegation_id: D, pattern: 'sequential', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed' }),
      );
    expect(byId(await report(plan, { text: text('999999999') }), 'contract-dependency-order')).toEqual([]);
    expect(byId(await report(plan, { text: text('999000000') }), 'contract-dependency-order')).toEqual([]);
    expect(byId(await report(plan, { text: text('998999999') }), 'contract-dependency-order').map((f) => f.message)).toEqual([expect.stringContaining('0.001000001s before its dependency "build"')]);
  });

  it('is held to the nested delegation that runs its agents, not to the outer one', async () => {
    const plan = mkPlan([sub('a', 'alpha'), sub('b', 'beta')]);
    const text = journal(
      ev.started(T(0), { delegation_id: 'outer', parent_run_id: 'root', pattern: 'fan_out', agent_ids: ['orchestrator'] }),
      ev.subStarted(T(1), { delegation_id: 'outer', sub_run_id: 'orch-run', parent_run_id: 'root', agent_id: 'orchestrator' }),
      ev.started(T(2), { delegation_id: 'inner', parent_run_id: 'orch-run', pattern: 'fan_out', agent_ids: ['alpha'] }),
      ev.subStarted(T(3), { delegation_id: 'inner', sub_run_id: 'r1', parent_run_id: 'orch-run', agent_id: 'alpha' }),
      ev.subCompleted(T(5), { delegation_id: 'inner', sub_run_id: 'r1', agent_id: 'alpha', status: 'completed', output_preview: 'alpha done' }),
      ev.completed(T(6), { delegation_id: 'inner', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'alpha done' }),
      ev.subCompleted(T(7), { delegation_id: 'outer', sub_run_id: 'orch-run', agent_id: 'orchestrator', status: 'completed', output_preview: 'delegated' }),
      ev.completed(T(8), { delegation_id: 'outer', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'delegated' }),
    );
    const r = await report(plan, { text });
    const outer = r.delegations.find((d) => d.id === 'outer')!;
    const inner = r.delegations.find((d) => d.id === 'inner')!;
    expect(outer.findings.filter((f) => f.id.startsWith('contract-'))).toEqual([]);
    expect(outer.limits.join('\n')).toContain('was not applied to this delegation: it describes delegation inner');
    expect(inner.findings.filter((f) => f.id.startsWith('contract-')).map((f) => f.id)).toEqual(['contract-missing-subtask']);
  });

  it('--rule contract-…=off and severity overrides apply to contract checks', async () => {
    const plan = await planFile(REVIEW);
    const off = await report(plan, { file: 'review-missing-subtask.jsonl' }, { 'contract-missing-subtask': 'off' });
    expect(contractFindings(off)).toEqual([]);
    const info = await report(plan, { file: 'review-missing-subtask.jsonl' }, { 'contract-missing-subtask': 'info' });
    expect(contractFindings(info).map((f) => f.severity)).toEqual(['info']);
  });
});
