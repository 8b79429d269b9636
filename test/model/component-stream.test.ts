// The streamed `--all` (and a named target, and streamAll) keeps an index of the events and
// checks one linked group of delegations at a time. Its report must be byte for byte the report
// built from every event in memory.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { analyze, buildTraceReport, prepareAnalysis, prepareLast, prepareStreamedAll, prepareStreamedTarget, streamAll, type AnalyzeOptions } from '../../src/analyze.js';
import { writeReportStream } from '../../src/cli/stream-report.js';
import { FORMATTERS } from '../../src/format/index.js';
import { discoverJournals } from '../../src/journal/discover.js';
import { EventIndex, IndexChunkBuilder } from '../../src/journal/event-index.js';
import { PAGE, PagedColumn } from '../../src/journal/paged.js';
import { indexJournalsParallel } from '../../src/journal/parallel.js';
import { streamDelegations } from '../../src/model/component-stream.js';
import { hash53, NumberTable, windowHash, windowHashes } from '../../src/journal/id-hash.js';
import { FIXTURES, ROOT, runBin, runMain } from '../helpers/cli.js';
import { hasMkfifo, mkfifo } from '../helpers/fifo.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const steady = (s: string) => s.replace(/"durationMs": \d+/, '"durationMs": 0');

async function streamedAndWhole(sessions: string[], format: string) {
  const opts: AnalyzeOptions = { cwd: ROOT, checkOptions: { nowMs: NOW }, sessions, all: true };
  const ctx = { color: false, failOn: 'error' as const };
  const prepared = await prepareAnalysis(opts);
  const whole = FORMATTERS[format](buildTraceReport(prepared.scan, prepared, opts, prepared), ctx);
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (d: Buffer) => chunks.push(d));
  const code = await writeReportStream(sink, format, await prepareStreamedAll(opts), opts, ctx);
  const bytes = (s: string) => Buffer.from(s).toString('latin1');
  return { whole: steady(bytes(whole)), streamed: steady(Buffer.concat(chunks).toString('latin1')), code };
}

/** Every fixture tree, and every single journal of the check cases on its own. */
function fixtureInputs(): string[] {
  const trees = ['sessions', 'checks', 'formats', 'join', 'safe', 'hostile', 'contracts'].map((t) => path.join(FIXTURES, t));
  const singles: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.jsonl(\.gz)?$/.test(name)) singles.push(p);
    }
  };
  walk(FIXTURES);
  return [...trees, ...singles];
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'td-components-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const line = (type: string, ts: string, sid: string, metadata: object) => JSON.stringify({ type, ts, session_id: sid, metadata });

/** A delegation whose children complete with `previews`; the aggregate joins `aggregate`. */
function delegation(sid: string, did: string, parent: string, t: number, runs: [string, string, string][], aggregate: string): string[] {
  const ts = (s: number) => new Date(Date.parse('2026-05-01T10:00:00Z') + (t + s) * 1000).toISOString();
  const out = [line('delegation_started', ts(0), sid, { delegation_id: did, parent_run_id: parent, pattern: 'fan_out', agent_ids: runs.map((r) => r[1]) })];
  for (const [run, agent] of runs) out.push(line('delegation_sub_run_started', ts(1), sid, { delegation_id: did, sub_run_id: run, parent_run_id: parent, agent_id: agent, status: 'running' }));
  for (const [run, agent, preview] of runs) out.push(line('delegation_sub_run_completed', ts(2), sid, { delegation_id: did, sub_run_id: run, agent_id: agent, status: 'completed', output_preview: preview }));
  out.push(line('delegation_completed', ts(3), sid, { delegation_id: did, pattern: 'fan_out', total_sub_runs: runs.length, succeeded: runs.length, failed: 0, aggregated_status: 'completed', aggregated_output_preview: aggregate }));
  return out;
}

/** The streamed JSON report of `tree`, with `between` run after the scan and before the report. */
async function reportAfter(tree: string, between: () => void) {
  const opts: AnalyzeOptions = { cwd: ROOT, checkOptions: { nowMs: NOW }, sessions: [tree], all: true };
  const source = await prepareStreamedAll(opts);
  between();
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (d: Buffer) => chunks.push(d));
  await writeReportStream(sink, 'json', source, opts, { color: false, failOn: 'none' });
  return JSON.parse(Buffer.concat(chunks).toString());
}

describe('streamed --all (event index, one component at a time)', () => {
  for (const format of ['json', 'text']) {
    it(`${format}: equals the in-memory report on every fixture tree and journal`, async () => {
      for (const input of fixtureInputs()) {
        const { whole, streamed } = await streamedAndWhole([input], format);
        expect(streamed, input).toBe(whole);
      }
    });
  }

  it('keys a reused id apart from an id of the reuse-key shape that only a retry’s sub-run start carries, as in memory', async () => {
    const dir = path.join(tmp, 'key-shaped-retry');
    mkdirSync(dir, { recursive: true });
    const lines = [
      ...delegation('s1', 'x', 'P', 0, [['r1', 'a', 'one']], 'one'),
      ...delegation('s1', 'x', 'P', 60, [['r2', 'a', 'two']], 'two'),
      // The only event of delegation `x#2`: its retry_of fills the index's four link slots.
      line('delegation_sub_run_started', '2026-05-01T10:05:00.000Z', 's1', { delegation_id: 'x#2', sub_run_id: 'o1', parent_run_id: 'Q', agent_id: 'a', depth: 1, retry_of: 'gone-run', status: 'running' }),
    ];
    writeFileSync(path.join(dir, 's1.jsonl'), `${lines.join('\n')}\n`);
    const { whole, streamed } = await streamedAndWhole([dir], 'json');
    expect(streamed).toBe(whole);
    expect((JSON.parse(whole) as { delegations: { key: string }[] }).delegations.map((d) => d.key).sort()).toEqual(['x', 'x#2', 'x#3']);
  });

  it('a named target (id, key, prefix, parent run, session; unknown and ambiguous) reports as in memory', async () => {
    for (const tree of ['sessions', 'join', 'checks'].map((t) => path.join(FIXTURES, t))) {
      const { report } = await analyze({ cwd: ROOT, sessions: [tree], all: true });
      const targets = new Set<string>(['no-such-delegation', 'd', '']);
      for (const d of report.delegations) {
        targets.add(d.id).add(d.key).add(d.id.slice(0, 3)).add(d.id.slice(0, 8));
        if (d.parentRunId) targets.add(d.parentRunId);
        for (const f of d.files) targets.add(path.basename(f).replace(/\.jsonl(\.gz)?$/, ''));
      }
      targets.delete('');
      for (const target of targets) {
        for (const format of ['json', 'text']) {
          const args = ['--sessions', tree, target, '--format', format];
          const streamed = await runMain(args);
          const inMemory = await runMain(args, { env: { TRACE_DELEGATION_INDEXED: '0' } });
          expect({ ...streamed, stdout: steady(streamed.stdout) }, `${target} in ${tree} (${format})`).toEqual({ ...inMemory, stdout: steady(inMemory.stdout) });
        }
      }
    }
  });

  it('a target that is another kind of id (here a sub-run id that is also a session id) still takes every delegation the session rule selects', async () => {
    const tree = path.join(tmp, 'sub-run-named-like-a-session');
    mkdirSync(tree, { recursive: true });
    // Session s-x holds d-1, whose sub-run is named s-x too, and d-2, linked to nothing of d-1.
    writeFileSync(path.join(tree, 's-x.jsonl'), `${[...delegation('s-x', 'd-1', 'run-1', 0, [['s-x', 'a', 'one']], 'one'), ...delegation('s-x', 'd-2', 'run-2', 60, [['r-2', 'b', 'two']], 'two')].join('\n')}\n`);
    const args = ['--sessions', tree, 's-x', '--format', 'json'];
    const streamed = await runMain(args);
    const inMemory = await runMain(args, { env: { TRACE_DELEGATION_INDEXED: '0' } });
    expect(JSON.parse(streamed.stdout).delegations.map((d: { id: string }) => d.id)).toEqual(['d-1', 'd-2']);
    expect(steady(streamed.stdout)).toBe(steady(inMemory.stdout));
  });

  it('finds a session named only inside the lines, and a prefix, through the ids each file carries', async () => {
    const tree = path.join(tmp, 'sessions-inside');
    mkdirSync(tree, { recursive: true });
    // A Gen A style file: its name is no session, its events say which session they belong to.
    writeFileSync(path.join(tree, 'delegation.jsonl'), `${[...delegation('s-inner', 'd-abc-1', 'run-1', 0, [['r-1', 'a', 'one']], 'one'), ...delegation('s-other', 'd-xyz-2', 'run-2', 60, [['r-2', 'b', 'two']], 'two')].join('\n')}\n`);
    writeFileSync(path.join(tree, 's-other.jsonl'), `${delegation('s-other', 'd-abd-3', 'run-3', 120, [['r-3', 'c', 'three']], 'three').join('\n')}\n`);
    for (const [target, ids] of [['s-inner', ['d-abc-1']], ['s-other', ['d-xyz-2', 'd-abd-3']], ['d-xy', ['d-xyz-2']], ['d-ab', null], ['d-q', null]] as const) {
      const args = ['--sessions', tree, target, '--format', 'json'];
      const streamed = await runMain(args);
      const inMemory = await runMain(args, { env: { TRACE_DELEGATION_INDEXED: '0' } });
      expect({ ...streamed, stdout: steady(streamed.stdout) }, target).toEqual({ ...inMemory, stdout: steady(inMemory.stdout) });
      if (ids) expect(JSON.parse(streamed.stdout).delegations.map((d: { id: string }) => d.id), target).toEqual(ids);
      else expect(streamed.code, target).toBe(2); // ambiguous (d-ab) or unknown (d-q)
    }
  });

  it('the library streamAll() gives the report analyze({ all: true }) gives, block by block', async () => {
    for (const tree of ['sessions', 'join', 'hostile'].map((t) => path.join(FIXTURES, t))) {
      const options = { cwd: ROOT, checkOptions: { nowMs: NOW }, sessions: [tree] };
      const { report } = await analyze({ ...options, all: true });
      const streamed = await streamAll(options);
      const delegations = [...streamed.delegations];
      const rebuilt = { ...streamed.head, delegations, ...streamed.tail() };
      expect({ ...rebuilt, stats: { ...rebuilt.stats, durationMs: 0 } }, tree).toEqual({ ...report, stats: { ...report.stats, durationMs: 0 } });
      expect(delegations.length).toBeGreaterThan(0);
    }
  });

  it.skipIf(!existsSync('/proc/self/fd'))('streamAll closes its journals when the caller stops early (break)', async () => {
    const open = () => readdirSync('/proc/self/fd').length;
    const options = { cwd: ROOT, checkOptions: { nowMs: NOW }, sessions: [path.join(FIXTURES, 'sessions')] };
    const warm = await streamAll(options);
    for (const d of warm.delegations) if (d) break;
    const before = open();
    for (let i = 0; i < 20; i++) {
      const streamed = await streamAll(options);
      for (const d of streamed.delegations) if (d) break;
    }
    expect(open()).toBe(before);
  });

  it('with --contract, the contract checks report the same as in memory', async () => {
    const cases = [
      ['pipeline-abort-ignored', 'data-pipeline.yaml'],
      ['review-timeout', 'parallel-review.yaml'],
      ['review-consensus-split', 'parallel-review-consensus.yaml'],
      ['review-unexpected-agent', 'parallel-review.json'],
    ];
    for (const [journal, plan] of cases) {
      const args = ['--all', '--format', 'json', '--contract', path.join(FIXTURES, 'contracts', 'plans', plan), '--sessions', path.join(FIXTURES, 'contracts', 'journals', `${journal}.jsonl`)];
      const streamed = await runBin(args);
      const inMemory = await runBin(args, { env: { TRACE_DELEGATION_INDEXED: '0' } });
      expect(streamed.stdout).toMatch(/"id": "contract-/);
      expect({ ...streamed, stdout: steady(streamed.stdout) }, journal).toEqual({ ...inMemory, stdout: steady(inMemory.stdout) });
    }
  });

  it("finds another delegation's output in an aggregate across unlinked sessions", async () => {
    const stale = 'EU revenue for Q3 is 97.5 million, up 4 percent on the quarter before';
    // Yesterday's delegation in another session, another parent run: a separate component.
    const a = delegation('s-old', 'd-old', 'run-old', 0, [['r-old', 'eu', stale]], stale);
    const b = delegation('s-new', 'd-new', 'run-new', 86400, [['r-us', 'us', 'US revenue is 120 million']], `US revenue is 120 million\n---\n${stale}`);
    const tree = path.join(tmp, 'foreign-tree');
    mkdirSync(tree, { recursive: true });
    writeFileSync(path.join(tree, 's-old.jsonl'), `${a.join('\n')}\n`);
    writeFileSync(path.join(tree, 's-new.jsonl'), `${b.join('\n')}\n`);
    const files = await discoverJournals([tree]);
    const { index } = await indexJournalsParallel(files, { jobs: 1 });
    expect(index.components().components.count).toBe(2);
    const { whole, streamed } = await streamedAndWhole([tree], 'json');
    expect(streamed).toBe(whole);
    const report = JSON.parse(Buffer.from(streamed, 'latin1').toString());
    type Finding = { id: string; message: string };
    const findings: Finding[] = report.delegations.flatMap((d: { findings: Finding[] }) => d.findings);
    expect(findings.filter((f) => f.id === 'failed-in-aggregate').map((f) => f.message)).toEqual([expect.stringContaining('of delegation d-old (parent run run-old)')]);
  });

  it('reports lines that changed on disk between the scan and the report, and leaves them out', async () => {
    const tree = path.join(tmp, 'rewritten');
    mkdirSync(tree, { recursive: true });
    const file = path.join(tree, 's1.jsonl');
    writeFileSync(file, `${delegation('s1', 'd-1', 'run-1', 0, [['r1', 'a', 'done']], 'done').join('\n')}\n`);
    const report = await reportAfter(tree, () => writeFileSync(file, 'x'.repeat(statSync(file).size))); // rewritten in place
    expect(report.delegations).toHaveLength(0);
    expect(report.limits.join('\n')).toMatch(/4 delegation lines changed on disk between the scan and the report/);
  });

  /** Two sessions, s1 holding `first` and s2 `second`; `archive()` rotates s1 into s1.jsonl.gz, as the engine archives a session. */
  function twoSessions(name: string, first: string, second: string) {
    const tree = path.join(tmp, name);
    mkdirSync(tree, { recursive: true });
    const file = path.join(tree, 's1.jsonl');
    writeFileSync(file, `${delegation('s1', first, 'run-1', 0, [['r1', 'a', 'done']], 'done').join('\n')}\n`);
    writeFileSync(path.join(tree, 's2.jsonl'), `${delegation('s2', second, 'run-2', 60, [['r2', 'b', 'ok']], 'ok').join('\n')}\n`);
    const archive = () => {
      writeFileSync(`${file}.gz`, gzipSync(readFileSync(file)));
      unlinkSync(file);
    };
    return { tree, archive };
  }

  it('a journal deleted or moved after the scan (archived, say) is named in the note, not called rewritten', async () => {
    const { tree, archive } = twoSessions('archived-meanwhile', 'd-1', 'd-2');
    const report = await reportAfter(tree, archive);
    expect(report.delegations.map((d: { id: string }) => d.id)).toEqual(['d-2']);
    const limits = report.limits.join('\n');
    expect(limits).toMatch(/4 delegation lines could not be read again after the scan: \S*s1\.jsonl was deleted or moved meanwhile \(a session archived to \.jsonl\.gz, say\); those events are left out: run again\./);
    expect(limits).not.toMatch(/rewritten/);
  });

  it.skipIf(!hasMkfifo)('a journal swapped for a FIFO after the scan is named, not opened for reading (it would block until a writer came)', async () => {
    const { tree } = twoSessions('fifo-meanwhile', 'd-1', 'd-2');
    const report = await reportAfter(tree, () => {
      unlinkSync(path.join(tree, 's1.jsonl'));
      mkfifo(path.join(tree, 's1.jsonl'));
    });
    expect(report.delegations.map((d: { id: string }) => d.id)).toEqual(['d-2']);
    expect(report.limits.join('\n')).toMatch(/could not be read again after the scan \(\S*s1\.jsonl: not a regular file\)/);
  });

  it('a named target whose journal is archived between the scan and the read back is found by a second run', async () => {
    const { tree, archive } = twoSessions('archived-named', 'd-rotated', 'd-other');
    let scans = 0;
    const opts = {
      cwd: ROOT,
      checkOptions: { nowMs: NOW },
      sessions: [tree],
      target: 'd-rotated',
      jobs: 1,
      // After the first scan's last file: the engine rotates s1 into s1.jsonl.gz, as it archives a session.
      onFile: (done: number, total: number) => {
        if (done === total && scans++ === 0) archive();
      },
    };
    const source = await prepareStreamedTarget(opts);
    expect(scans).toBe(2);
    expect([...source.items()].map(({ delegation: d }) => d.id)).toEqual(['d-rotated']);
  });

  it('last, read through the index, finds the newest delegation again when its journal is archived before the read back', async () => {
    const { tree, archive } = twoSessions('archived-last', 'd-newest', 'd-older');
    // s1 holds the newer delegation here: move s2's start an hour back.
    const s2 = path.join(tree, 's2.jsonl');
    writeFileSync(s2, readFileSync(s2, 'utf8').replace(/2026-05-01T10:/g, '2026-05-01T09:'));
    let scans = 0;
    const opts = {
      cwd: ROOT,
      checkOptions: { nowMs: NOW },
      sessions: [tree],
      jobs: 1,
      onFile: (done: number, total: number) => {
        if (done === total && scans++ === 0) archive();
      },
    };
    // maxEvents 0: the recent-first read gives up at once, so the index path runs (and reads lines back).
    const prepared = await prepareLast(opts, 0);
    expect(scans).toBe(2);
    expect(prepared.selected.map((d) => d.id)).toEqual(['d-newest']);
    expect(prepared.notes.join('\n')).not.toMatch(/deleted or moved/);
  });

  it('appended lines after the scan are not read (offsets stay valid in an append-only journal)', async () => {
    const tree = path.join(tmp, 'appended');
    mkdirSync(tree, { recursive: true });
    const file = path.join(tree, 's1.jsonl');
    writeFileSync(file, `${delegation('s1', 'd-1', 'run-1', 0, [['r1', 'a', 'done']], 'done').join('\n')}\n`);
    const report = await reportAfter(tree, () => appendFileSync(file, `${delegation('s1', 'd-2', 'run-1', 60, [['r2', 'a', 'later']], 'later').join('\n')}\n`));
    expect(report.delegations.map((d: { id: string }) => d.id)).toEqual(['d-1']);
    expect(report.limits.join('\n')).not.toMatch(/changed on disk/);
  });

  it('reads back lines that span read blocks, CRLF endings, a BOM and archives at the right offsets', async () => {
    const tree = path.join(tmp, 'offsets');
    mkdirSync(tree, { recursive: true });
    const huge = `${'x'.repeat(700_000)} done`; // longer than two read blocks
    const lines = delegation('s1', 'd-big', 'run-1', 0, [['r1', 'a', huge], ['r2', 'b', 'small']], `${huge}\n---\nsmall`);
    writeFileSync(path.join(tree, 's1.jsonl'), `\uFEFF${lines.join('\r\n')}\r\n`);
    writeFileSync(path.join(tree, 's2.jsonl.gz'), gzipSync(`${delegation('s2', 'd-gz', 'run-2', 10, [['r3', 'c', huge]], huge).join('\n')}\n`));
    // A second archive: its lines sit in a second arena (records address arena and position).
    writeFileSync(path.join(tree, 's3.jsonl.gz'), gzipSync(`${delegation('s3', 'd-gz2', 'run-3', 20, [['r4', 'd', 'tiny']], 'tiny').join('\n')}\n`));
    for (const format of ['json', 'text']) {
      const { whole, streamed } = await streamedAndWhole([tree], format);
      expect(streamed).toBe(whole);
    }
    const report = await reportAfter(tree, () => {});
    expect(report.delegations.map((d: { id: string }) => d.id)).toEqual(['d-big', 'd-gz', 'd-gz2']);
    expect(report.limits.join('\n')).not.toMatch(/changed on disk/);
  });

  it('worker threads build the same index as one thread', async () => {
    const files = await discoverJournals([path.join(FIXTURES, 'sessions')]);
    const keys = async (jobs: number) => {
      const { index } = await indexJournalsParallel(files, { jobs, minParallelBytes: 0 });
      const stream = streamDelegations(index, files);
      return [...stream.items].map((i) => `${i.delegation.key}:${i.delegation.events.length}:${i.all.length}`);
    };
    const one = await keys(1);
    expect(one.length).toBeGreaterThan(3);
    expect(await keys(2)).toEqual(one);
  });

  it('says how many components it has read, up to all of them once the items are consumed', async () => {
    const files = await discoverJournals([path.join(FIXTURES, 'sessions')]);
    const { index } = await indexJournalsParallel(files, { jobs: 1 });
    const stream = streamDelegations(index, files);
    const { done, total } = stream.progress();
    expect(done).toBe(0);
    expect(total).toBeGreaterThan(1);
    const seen: number[] = [];
    for (const _ of stream.items) seen.push(stream.progress().done);
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b)); // never goes back
    expect(stream.progress()).toEqual({ done: total, total });
  });
});

/** An index of delegation starts: [line, ms, delegation id, parent run id] each, in one chunk. */
function startsIndex(starts: [number, number | null, string, string][], options: { starts?: boolean } = {}): EventIndex {
  const b = new IndexChunkBuilder();
  for (const [line, ms, delegationId, parentRunId] of starts)
    b.add({ type: 'delegation_started', delegationId, parentRunId, pattern: null, agentIds: [], agentCount: null, file: 'f', line, fileIndex: 0, ts: '', time: ms === null ? null : { ms, subNs: 0 }, sessionId: null }, Buffer.alloc(50), 0, 50, line * 100);
  const index = new EventIndex(options);
  index.add(b.finish());
  return index;
}

describe('event index', () => {
  it('links events that share an id, and orders components by their earliest event', () => {
    const index = startsIndex([
      [1, 5000, 'd-late', 'p-2'],
      [2, 1000, 'd-early', 'p-1'],
      [3, 9000, 'd-sibling', 'p-1'], // same parent run as d-early: one component
    ]);
    const { components } = index.components();
    expect([0, 1].map((c) => [...components.recordsOf(c)])).toEqual([[1, 2], [0]]);
    expect(components.lowerBound(0)).toEqual({ ms: 1000, subNs: 0, fileIndex: 0, line: 2 });
    expect(index.eventCount).toBe(3);
  });

  it('lists the components holding an id, for a named target to read only those', () => {
    const index = startsIndex([
      [1, 5000, 'd-late', 'p-2'],
      [2, 1000, 'd-early', 'p-1'],
      [3, 9000, 'd-sibling', 'p-1'],
      [4, 7000, 'd-other', 'p-3'],
    ]);
    const { components, linked } = index.components(['d-late', 'p-1', 'no-such-id', 'd-sibling'].map(hash53));
    // Components in order: {d-early, d-sibling} (1000), d-late (5000), d-other (7000).
    expect([0, 1, 2].map((c) => [...components.recordsOf(c)])).toEqual([[1, 2], [0], [3]]);
    expect(linked).toEqual([0, 1]); // each once, in order; the unknown id adds none
  });

  it('lists the components holding a start by their newest start, for `last` over a whole tree', () => {
    const rows: [number, number | null, string, string][] = [
      [1, 5000, 'd-late', 'p-2'],
      [2, 1000, 'd-early', 'p-1'],
      [3, 9000, 'd-sibling', 'p-1'], // d-early's component: its newest start is 9000
      [4, 7000, 'd-other', 'p-3'],
      [5, null, 'd-untimed', 'p-4'], // no parseable ts: counted, not ordered
    ];
    const { components, newest } = startsIndex(rows, { starts: true }).components();
    expect(newest!.untimed).toBe(1);
    expect([...newest!.components].map((c) => [...components.recordsOf(c)])).toEqual([[1, 2], [3], [0]]);
    expect(newest!.keys.map((k) => k.ms)).toEqual([9000, 7000, 5000]);
    expect(newest!.keys[0]).toEqual({ ms: 9000, subNs: 0, fileIndex: 0, line: 3 });
    expect(startsIndex(rows).components().newest).toBeNull(); // not asked for: nothing kept
  });

  it('keeps each chunk’s archived lines apart and returns each record’s own bytes', () => {
    const index = new EventIndex();
    const texts: string[] = [];
    for (let chunk = 0; chunk < 3; chunk++) {
      const b = new IndexChunkBuilder();
      for (let k = 0; k < 4; k++) {
        const text = `{"chunk":${chunk},"k":${k},"pad":"${'p'.repeat(chunk * 10 + k)}"}`;
        texts.push(text);
        const buf = Buffer.from(`xx${text}yy`);
        // offset −1: an archived line (its bytes are copied); chunk 1 has plain lines instead.
        b.add({ type: 'delegation_completed', delegationId: `d-${chunk}-${k}`, status: null, file: 'f', line: k + 1, fileIndex: chunk, ts: '', time: { ms: k, subNs: 0 }, sessionId: null } as never, buf, 2, buf.length - 2, chunk === 1 ? 1000 + k : -1);
      }
      index.add(b.finish());
    }
    const view = index.view();
    for (let r = 0; r < texts.length; r++) {
      if (Math.floor(r / 4) === 1) expect(view.offset.get(r)).toBe(1000 + (r % 4));
      else expect(view.archived(r).toString()).toBe(texts[r]);
    }
  });

  /** An index of `chunks` chunks of 200 archived completion lines each, and the lines' texts in record order. */
  function archivedIndex(chunks: number): { index: EventIndex; texts: string[]; raw: number } {
    const index = new EventIndex();
    const texts: string[] = [];
    let raw = 0;
    for (let chunk = 0; chunk < chunks; chunk++) {
      const b = new IndexChunkBuilder();
      for (let k = 0; k < 200; k++) {
        const text = line('delegation_sub_run_completed', `2026-05-01T10:00:${String(k % 60).padStart(2, '0')}Z`, `s-${chunk}`, { delegation_id: `d-${chunk}-${k % 7}`, sub_run_id: `r-${chunk}-${k}`, status: 'completed', output_preview: `output ${k} of chunk ${chunk}` });
        texts.push(text);
        raw += text.length;
        b.add({ type: 'delegation_completed', delegationId: `d-${chunk}-${k}`, status: null, file: 'f', line: k + 1, fileIndex: chunk, ts: '', time: { ms: k, subNs: 0 }, sessionId: null } as never, Buffer.from(text), 0, text.length, -1);
      }
      index.add(b.finish());
    }
    return { index, texts, raw };
  }

  it('keeps archived lines deflated, several chunks together, and reads them back in any order', () => {
    const { index, texts, raw } = archivedIndex(8);
    const view = index.view();
    expect(view.archived(1599).toString()).toBe(texts[1599]); // reading the last arena deflates it
    expect(index.archivedBytes).toBeLessThan(raw / 4); // JSON lines of ids deflate well
    expect(raw).toBeGreaterThan(2 * 96 * 1024); // so they span three arenas or more
    // Alternate between the ends: each switch inflates another arena again.
    for (const r of [0, 1599, 1, 1598, 800, 799, 17, 1300, 400, 1200]) expect(view.archived(r).toString()).toBe(texts[r]);
  });

  it('keeps the last eight arenas inflated, and reads evicted ones again correctly', () => {
    const { index, texts } = archivedIndex(40);
    const view = index.view();
    const inflate = vi.spyOn(createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib'), 'inflateRawSync');
    try {
      // One record per arena boundary region, front to back, then back again: more than eight arenas.
      const step = 173;
      const forward = Array.from({ length: Math.floor(texts.length / step) }, (_, i) => i * step);
      for (const r of forward) expect(view.archived(r).toString()).toBe(texts[r]);
      const arenas = inflate.mock.calls.length;
      expect(arenas).toBeGreaterThan(8);
      // The newest eight arenas are still inflated: reading their records again inflates nothing.
      const recent = forward.slice(-20);
      for (const r of recent.reverse()) expect(view.archived(r).toString()).toBe(texts[r]);
      expect(inflate.mock.calls.length).toBe(arenas);
      // The first arenas were evicted: they are inflated again, and still right.
      for (const r of forward.slice(0, 5)) expect(view.archived(r).toString()).toBe(texts[r]);
      expect(inflate.mock.calls.length).toBeGreaterThan(arenas);
    } finally {
      inflate.mockRestore();
    }
  });

  it('keeps large inflated arenas up to its byte cap besides the newest, and two that fit do not evict each other', () => {
    const index = new EventIndex({ keptArenaBytes: 2 * 1024 * 1024 });
    const texts: string[] = [];
    // Three chunks of 1.5 MB of lines each: each is deflated as an arena of its own.
    for (let chunk = 0; chunk < 3; chunk++) {
      const b = new IndexChunkBuilder();
      for (let k = 0; k < 300; k++) {
        const text = line('delegation_sub_run_completed', '2026-05-01T10:00:00Z', `s-${chunk}`, { delegation_id: `d-${chunk}`, sub_run_id: `r-${chunk}-${k}`, status: 'completed', output_preview: `${chunk}:${k}:${'o'.repeat(5000)}` });
        texts.push(text);
        b.add({ type: 'delegation_completed', delegationId: `d-${chunk}`, status: null, file: 'f', line: k + 1, fileIndex: chunk, ts: '', time: { ms: k, subNs: 0 }, sessionId: null } as never, Buffer.from(text), 0, text.length, -1);
      }
      index.add(b.finish());
    }
    const view = index.view();
    const inflate = vi.spyOn(createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib'), 'inflateRawSync');
    try {
      // Two 1.5 MB arenas read in turn (a delegation's lines in two archives): one besides the newest fits, no thrashing.
      for (let k = 0; k < 5; k++) for (const r of [k, 300 + k]) expect(view.archived(r).toString()).toBe(texts[r]);
      expect(inflate.mock.calls.length).toBe(2);
      // A third: two besides it would be 3 MB, over the cap, so the oldest is let go.
      expect(view.archived(600).toString()).toBe(texts[600]);
      expect(view.archived(301).toString()).toBe(texts[301]); // still kept
      expect(inflate.mock.calls.length).toBe(3);
      expect(view.archived(1).toString()).toBe(texts[1]); // let go: inflated again
      expect(inflate.mock.calls.length).toBe(4);
    } finally {
      inflate.mockRestore();
    }
  });

  it('paged columns keep values across pages, and fill() gives zeroed entries', () => {
    const col = PagedColumn.doubles();
    for (let i = 0; i < 3 * PAGE + 5; i++) col.push(i * 1.5);
    expect(col.size).toBe(3 * PAGE + 5);
    expect([col.get(0), col.get(PAGE - 1), col.get(PAGE), col.get(3 * PAGE + 4)]).toEqual([0, (PAGE - 1) * 1.5, PAGE * 1.5, (3 * PAGE + 4) * 1.5]);
    col.set(PAGE, -7);
    expect(col.get(PAGE)).toBe(-7);
    const table = PagedColumn.ints().fill(PAGE + 1);
    expect([table.size, table.get(PAGE), table.get(0)]).toEqual([PAGE + 1, 0, 0]);
  });

  it('window hashes equal the hash of each window, and hashes are exact integers', () => {
    const text = 'The quarterly figure – 97.5 million – was revised; ünïcödé and 😀 surrogate pairs too. '.repeat(3);
    let n = 0;
    windowHashes(text, 40, (h, at) => {
      expect(h).toBe(windowHash(text.slice(at, at + 40)));
      expect(Number.isSafeInteger(h)).toBe(true);
      n++;
    });
    expect(n).toBe(text.length - 39);
    expect(hash53('run-1')).not.toBe(hash53('run-2'));
    expect(Number.isSafeInteger(hash53('x'.repeat(1000)))).toBe(true);
  });

  it('NumberTable keeps every key through growth', () => {
    const t = new NumberTable(4);
    const keys = Array.from({ length: 5000 }, (_, i) => hash53(`id-${i}`));
    keys.forEach((k, i) => expect(t.getOrAdd(k, () => i)).toBe(i));
    keys.forEach((k, i) => expect(t.get(k)).toBe(i));
    expect(t.get(hash53('absent'))).toBeUndefined();
    expect(t.size).toBe(5000);
  });

  it('NumberTable keeps 0 and −0 apart from empty slots', () => {
    const t = new NumberTable(4);
    expect(t.get(0)).toBeUndefined();
    expect(t.getOrAdd(0, () => 7)).toBe(7);
    expect(t.getOrAdd(-0, () => 8)).toBe(7);
    expect(t.getOrAdd(1, () => 9)).toBe(9);
    expect(t.get(0)).toBe(7);
    expect(t.size).toBe(2);
  });
});

describe('library errors', () => {
  it('are named and exported: a missing root is an InputError, an unknown target a TargetError', async () => {
    const { InputError: Exported, TargetError: ExportedTarget } = await import('../../src/index.js');
    const missing = await analyze({ sessions: [path.join(FIXTURES, 'no-such-root')], cwd: ROOT }).catch((e) => e);
    expect(missing).toBeInstanceOf(Exported);
    expect(missing.name).toBe('InputError');
    const unknown = await analyze({ sessions: [path.join(FIXTURES, 'sessions')], cwd: ROOT, target: 'no-such-id' }).catch((e) => e);
    expect(unknown).toBeInstanceOf(ExportedTarget);
    expect(unknown.name).toBe('TargetError');
    const both = await analyze({ sessions: [path.join(FIXTURES, 'sessions')], cwd: ROOT, all: true, target: 'b3e8' }).catch((e) => e);
    expect(both).toBeInstanceOf(Exported);
    expect(both.message).toBe('all and target cannot be combined: all reports every delegation, target names some');
  });
});

describe('untimed starts among timed ones', () => {
  it('order alike in every reading: an untimed event takes the time of the event before it in its file', async () => {
    // By time d3 (11:00) < d1 (12:00); d2's ts does not parse and follows d1 in a.jsonl. Comparing
    // untimed starts by file position alone made a cycle (d1 < d2 by line, d2 < d3 by file).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'td-untimed-'));
    try {
      const start = (id: string, ts: string) => JSON.stringify({ type: 'delegation_started', ts, session_id: 's', metadata: { delegation_id: id, parent_run_id: `p-${id}`, pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 } });
      writeFileSync(path.join(dir, 'a.jsonl'), `${start('d1', '2026-01-01T12:00:00.000000000+00:00')}\n${start('d2', 'yesterday')}\n`);
      writeFileSync(path.join(dir, 'b.jsonl'), `${start('d3', '2026-01-01T11:00:00.000000000+00:00')}\n`);
      const args = ['--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'];
      const ids = (r: { stdout: string }) => r.stdout.trim().split('\n').map((l) => JSON.parse(l).id);
      expect(ids(await runMain(args))).toEqual(['d3', 'd1', 'd2']);
      expect(ids(await runMain(args, { env: { TRACE_DELEGATION_INDEXED: '0' } }))).toEqual(['d3', 'd1', 'd2']);
      const json = await runMain(['--sessions', dir, '--all', '--format', 'json', '--fail-on', 'none']);
      expect(JSON.parse(json.stdout).delegations.map((d: { id: string }) => d.id)).toEqual(['d3', 'd1', 'd2']);
      const last = await runMain(['--sessions', dir, 'last', '--format', 'json', '--fail-on', 'none']);
      expect(JSON.parse(last.stdout).delegations.map((d: { id: string }) => d.id)).toEqual(['d2']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
