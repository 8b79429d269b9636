import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, FIXED_NOW, FIXTURES, ROOT, runMain } from '../helpers/cli.js';

/**
 * docs/json.md against what the CLI prints: every object of every JSON output, on every fixture
 * tree, has exactly the documented keys in the documented order, with documented types and
 * literal values, and every documented field and literal shows up somewhere.
 */

const DOC = readFileSync(path.join(ROOT, 'docs', 'json.md'), 'utf8');

interface Row {
  field: string;
  alts: string[];
}

/** The tables of docs/json.md by the type their heading names (`## \`DelegationReport\` …`). */
function parseDoc(doc: string): Map<string, Row[]> {
  const types = new Map<string, Row[]>();
  let current: string | null = null;
  for (const line of doc.split('\n')) {
    const heading = /^#{2,3} .*?`([A-Z]\w*)`/.exec(line);
    if (heading) {
      current = heading[1];
      continue;
    }
    if (/^#{1,3} /.test(line)) current = null;
    if (!current || !line.startsWith('| `')) continue;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    const field = /^`([\w.]+)`$/.exec(cells[0]);
    if (!field) throw new Error(`docs/json.md: one field per row, not ${cells[0]} (${current})`);
    const alts = cells[1].split('\\|').map((a) => a.trim().replace(/^`|`$/g, ''));
    const rows = types.get(current) ?? [];
    rows.push({ field: field[1], alts });
    types.set(current, rows);
  }
  return types;
}

const SCHEMA = parseDoc(DOC);
const PRIMITIVES = new Set(['string', 'number', 'boolean', 'null', 'object']);
/** Documented (type, field) rows seen in output, and the literal values seen. */
const seenFields = new Set<string>();
const seenLiterals = new Set<string>();

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** Whether `v` is one of alternative `alt`; recurses into named types and arrays. */
function matches(alt: string, v: unknown, where: string, errors: string[]): boolean {
  if (alt.endsWith('[]')) {
    if (!Array.isArray(v)) return false;
    v.forEach((x, i) => {
      if (!matches(alt.slice(0, -2), x, `${where}[${i}]`, errors)) errors.push(`${where}[${i}]: ${kindOf(x)} is not ${alt.slice(0, -2)}`);
    });
    return true;
  }
  if (/^".*"$/.test(alt)) return v === JSON.parse(alt);
  if (/^\d+$/.test(alt)) return v === Number(alt);
  if (PRIMITIVES.has(alt)) return alt === kindOf(v);
  if (SCHEMA.has(alt)) {
    if (kindOf(v) !== 'object') return false;
    check(alt, v as Record<string, unknown>, where, errors);
    return true;
  }
  throw new Error(`docs/json.md: unknown type ${alt}`);
}

/** Checks object `v` against type `type`'s rows under `prefix` (inline objects are `name.field` rows). */
function check(type: string, v: Record<string, unknown>, where: string, errors: string[], prefix = ''): void {
  const rows = SCHEMA.get(type)!.filter((r) => r.field.startsWith(prefix) && !r.field.slice(prefix.length).includes('.'));
  const documented = rows.map((r) => r.field.slice(prefix.length));
  if (JSON.stringify(Object.keys(v)) !== JSON.stringify(documented)) errors.push(`${where} (${type}${prefix ? ` ${prefix.slice(0, -1)}` : ''}): keys ${Object.keys(v).join(',')} but documented ${documented.join(',')}`);
  for (const row of rows) {
    const key = row.field.slice(prefix.length);
    if (!(key in v)) continue;
    seenFields.add(`${type}.${row.field}`);
    const value = v[key];
    const alt = row.alts.find((a) => (a === 'object' ? kindOf(value) === 'object' : matches(a, value, `${where}.${key}`, [])));
    if (!alt) {
      errors.push(`${where}.${key}: ${JSON.stringify(value)?.slice(0, 80)} is not ${row.alts.join(' | ')}`);
      continue;
    }
    if (/^".*"$/.test(alt)) seenLiterals.add(`${type}.${row.field}=${alt}`);
    if (alt === 'object') check(type, value as Record<string, unknown>, `${where}.${key}`, errors, `${row.field}.`);
    else matches(alt, value, `${where}.${key}`, errors); // again, now collecting nested errors
  }
}

function expectDocumented(type: string, value: unknown, label: string): void {
  const errors: string[] = [];
  if (!matches(type, value, label, errors)) errors.push(`${label}: not a ${type}`);
  expect(errors.slice(0, 20), `${label}: ${errors.length} mismatches with docs/json.md`).toEqual([]);
}

/** Every fixture tree: the demo, the format, join, SAFE and hostile cases, each check's cases, the samples. */
const TREES = [
  'formats', 'join', 'safe', 'hostile', 'samples',
  ...readdirSync(path.join(FIXTURES, 'checks')).map((d) => `checks/${d}`),
].map((t) => `fixtures/${t}`);

const fromJson = async (args: string[], expectCodes: number[] = [0, 1]) => {
  const r = await runMain([...args, '--format', 'json']);
  expect(expectCodes, `${args.join(' ')}: exit ${r.code} ${r.stderr}`).toContain(r.code);
  return JSON.parse(r.stdout) as unknown;
};

/** `--follow` over the demo tree, stopped with SIGINT once the replay is over. */
function followDemo(format: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--demo', '--follow', '--format', format], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/following \d+ journal files? under/.test(stderr)) child.kill('SIGINT');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

describe('docs/json.md matches the JSON the CLI prints', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'json-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('parses: every section names its fields one per row, with known types', () => {
    for (const t of ['TraceReport', 'DelegationReport', 'ChildReport', 'AttemptReport', 'Marker', 'Location', 'TimelineEntry', 'Finding', 'ScanStats', 'ListReport', 'ListRow']) expect(SCHEMA.has(t), t).toBe(true);
  });

  it('the document over every fixture tree, --all', async () => {
    expectDocumented('TraceReport', await fromJson(['--demo', '--all']), 'demo --all');
    for (const tree of TREES) expectDocumented('TraceReport', await fromJson(['--sessions', tree, '--all']), `${tree} --all`);
  });

  it('the document for each kind of target, with --contract, and without delegations', async () => {
    const reused = 'fixtures/formats/reuse-key-shaped-ids.jsonl';
    const cases: [string[], string][] = [
      [['--demo'], 'last'],
      [['--demo', 'last'], 'last'],
      [['--demo', '7c2d9e14-5b8a-4f36-a0c7-1e9f3d2b6a48'], 'delegation'],
      [['--demo', '9d41a6c8'], 'prefix'],
      [['--demo', '151d7554-9a57-4676-8971-8cfd1d422c4e'], 'parent-run'],
      [['--demo', 'd5c2a81f-6e9b-4073-a2f8-4b1d7e0c9a35'], 'session'],
      [['--sessions', reused, 'build#3'], 'delegation'],
      [['--sessions', reused, 'build'], 'delegation'],
    ];
    for (const [args, kind] of cases) {
      const doc = (await fromJson(args)) as { target: { kind: string } };
      expectDocumented('TraceReport', doc, args.join(' '));
      expect(doc.target.kind, args.join(' ')).toBe(kind);
    }
    for (const journal of readdirSync(path.join(FIXTURES, 'contracts', 'journals')).filter((f) => f.endsWith('.jsonl'))) {
      const plan = journal.startsWith('review-') ? (journal.includes('consensus') ? 'parallel-review-consensus.yaml' : 'parallel-review.yaml') : 'data-pipeline.yaml';
      expectDocumented('TraceReport', await fromJson(['--sessions', `fixtures/contracts/journals/${journal}`, '--contract', `fixtures/contracts/plans/${plan}`]), journal);
    }
    writeFileSync(path.join(dir, 'other.jsonl'), '{"type":"session_start","ts":"2025-01-01T00:00:00Z"}\n');
    const empty = (await fromJson(['--sessions', dir, '--all'], [0])) as { delegations: unknown[] };
    expectDocumented('TraceReport', empty, 'no delegations');
    expect(empty.delegations).toEqual([]);
  });

  it('NDJSON: the document\'s delegations, one compact line each, nothing else', async () => {
    for (const args of [['--demo', '--all'], ['--demo', '9d41a6c8'], ['--sessions', 'fixtures/formats', '--all']]) {
      const doc = (await fromJson(args)) as { delegations: unknown[] };
      const r = await runMain([...args, '--format', 'ndjson']);
      expect(r.stdout).toBe(doc.delegations.map((d) => `${JSON.stringify(d)}\n`).join(''));
      for (const line of r.stdout.trimEnd().split('\n')) expectDocumented('DelegationReport', JSON.parse(line), `${args.join(' ')} ndjson`);
    }
  });

  it('--follow: a TraceReport per report (kind follow, durationMs 0) in json, a DelegationReport per line in ndjson; exit 0', async () => {
    const json = await followDemo('json');
    expect(json.code).toBe(0);
    const docs = json.stdout.trimEnd().split(/\n(?=\{)/).map((d) => JSON.parse(d) as { target: { kind: string }; delegations: unknown[]; stats: { durationMs: number } });
    expect(docs.length).toBeGreaterThan(1);
    for (const d of docs) {
      expectDocumented('TraceReport', d, 'follow json');
      expect([d.target.kind, d.delegations.length, d.stats.durationMs]).toEqual(['follow', 1, 0]);
    }
    const ndjson = await followDemo('ndjson');
    expect(ndjson.code).toBe(0);
    const lines = ndjson.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(docs.length);
    for (const l of lines) expectDocumented('DelegationReport', JSON.parse(l), 'follow ndjson');
  }, 120_000);

  it('list --format json: whole-tree and newest-files-only reads, a completion without aggregated_status', async () => {
    expectDocumented('ListReport', await fromJson(['--demo', 'list']), 'list');
    for (const tree of TREES) expectDocumented('ListReport', await fromJson(['--sessions', tree, 'list', '--limit', '100']), `${tree} list`);
    // Old files and one fresh one: list reads the newest file only, and `total` is null.
    const copy = path.join(dir, 'demo');
    cpSync(path.join(FIXTURES, 'sessions'), copy, { recursive: true });
    const old = new Date('2020-01-01T00:00:00Z');
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(copy)) utimesSync(f, old, old);
    const newest = walk(copy).find((f) => f.includes('94e7b0d2'))!;
    utimesSync(newest, new Date(), new Date());
    const recent = (await fromJson(['--sessions', copy, 'list', '--limit', '1'])) as { total: number | null };
    expectDocumented('ListReport', recent, 'list newest-first');
    expect(recent.total).toBeNull();
    const noAgg = path.join(dir, 'no-aggregated-status.jsonl');
    const ev = (type: string, s: number, metadata: object) => JSON.stringify({ type, ts: `2025-06-12T14:00:0${s}.000000+00:00`, session_id: 's1', metadata });
    writeFileSync(noAgg, [
      ev('delegation_started', 0, { delegation_id: 'd-1', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 }),
      ev('delegation_sub_run_started', 1, { delegation_id: 'd-1', sub_run_id: 'r-1', parent_run_id: 'p-1', agent_id: 'a', depth: 1 }),
      ev('delegation_sub_run_completed', 2, { delegation_id: 'd-1', sub_run_id: 'r-1', agent_id: 'a', status: 'completed', output_preview: 'ok' }),
      ev('delegation_completed', 3, { delegation_id: 'd-1', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0 }),
    ].join('\n') + '\n');
    const row = ((await fromJson(['--sessions', noAgg, 'list'])) as { delegations: { status: unknown }[] }).delegations[0];
    expect(row.status).toBeNull();
  });

  it('every documented field, and every listed literal value, appears in some output', () => {
    const fields = [...SCHEMA].flatMap(([t, rows]) => rows.map((r) => `${t}.${r.field}`));
    expect(fields.filter((f) => !seenFields.has(f))).toEqual([]);
    const literals = [...SCHEMA].flatMap(([t, rows]) => rows.flatMap((r) => r.alts.filter((a) => /^".*"$/.test(a)).map((a) => `${t}.${r.field}=${a}`)));
    expect(literals.filter((l) => !seenLiterals.has(l))).toEqual([]);
  });

  it('README names the list --format json keys of docs/json.md, in order', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const shape = /`list --format json` gives the same rows with whole ids \(`(\{"delegations": \[\{.*?\}\].*?\})`\)/.exec(readme)![1];
    const names = [...shape.matchAll(/"(\w+)"/g)].map((m) => m[1]);
    const top = SCHEMA.get('ListReport')!.map((r) => r.field);
    const row = SCHEMA.get('ListRow')!.map((r) => r.field).filter((f) => !f.includes('.'));
    expect(names).toEqual([top[0], ...row, ...top.slice(1)]);
  });

  it('the example is a TraceReport as documented (abbreviated arrays, whole objects)', () => {
    const example = /## Example[\s\S]*?```json\n([\s\S]*?)```/.exec(DOC)![1];
    expectDocumented('TraceReport', JSON.parse(example), 'example');
  });

  it('exit codes: 1 with a finding at --fail-on, 0 with --fail-on none, 2 and an empty stdout for an unknown target', async () => {
    expect((await runMain(['--demo', '--all', '--format', 'json'])).code).toBe(1);
    expect((await runMain(['--demo', '--all', '--format', 'ndjson', '--fail-on', 'none'])).code).toBe(0);
    expect((await runMain(['--demo', 'list', '--format', 'json'])).code).toBe(1);
    const unknown = await runMain(['--demo', 'zzzz', '--format', 'json']);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
  });
});
