// `last` reads newest-first by mtime and stops once the newest delegation_started is newer than
// every unread file. It must give the same delegation report as a full scan, reading fewer files.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze, buildTraceReport, newestRecentFirst, prepareAnalysis, prepareLast, TargetError, type AnalyzeOptions, type PreparedAnalysis, type ReportSource } from '../../src/analyze.js';
import { FORMATTERS } from '../../src/format/index.js';
import { writeReportStream } from '../../src/cli/stream-report.js';
import { discoverJournals } from '../../src/journal/discover.js';
import { MTIME_MARGIN_MS, scanRecentFirst, stoppedShort } from '../../src/journal/recent.js';
import { scanJournals } from '../../src/journal/scan.js';
import { ev, journal } from '../helpers/journal.js';
import { FIXTURES, ROOT, runBin, runMain } from '../helpers/cli.js';

const NOW = Date.parse('2026-01-10T00:00:00Z');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000000+00:00');
const DAY = 86_400_000;

/** Writes a journal and sets its mtime to its last event, as the engine's appends would. */
function put(root: string, rel: string, lines: string[], lastMs: number, gzip = false): string {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, gzip ? gzipSync(journal(...lines)) : journal(...lines));
  utimesSync(p, new Date(lastMs), new Date(lastMs));
  return p;
}

/** A delegation of two sub-runs starting at `t`, events in one file (or the sub-runs in another). */
function delegation(id: string, t: number, status = 'completed') {
  const parent = `p-${id}`;
  return {
    head: [ev.started(iso(t), { delegation_id: id, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['coder', 'reviewer'] })],
    runs: [
      ev.subStarted(iso(t + 100), { delegation_id: id, sub_run_id: `${id}-a`, parent_run_id: parent, agent_id: 'coder' }),
      ev.subStarted(iso(t + 200), { delegation_id: id, sub_run_id: `${id}-b`, parent_run_id: parent, agent_id: 'reviewer' }),
      ev.subCompleted(iso(t + 5000), { delegation_id: id, sub_run_id: `${id}-a`, agent_id: 'coder', status: 'completed', output_preview: `a of ${id}` }),
      ev.subCompleted(iso(t + 6000), { delegation_id: id, sub_run_id: `${id}-b`, agent_id: 'reviewer', status, output_preview: null, error: status === 'failed' ? 'boom' : null }),
    ],
    tail: [ev.completed(iso(t + 7000), { delegation_id: id, pattern: 'fan_out', total_sub_runs: 2, succeeded: status === 'completed' ? 2 : 1, failed: status === 'completed' ? 0 : 1, aggregated_status: status === 'completed' ? 'completed' : 'partial' })],
  };
}

/**
 * s-1.jsonl: `xLines` (d-x's, 3 days old), then d-x started again by its parent run an hour ago;
 * s-2.jsonl: d-y, a day old. `last` read through the index (no room for recent events) and whole
 * in memory.
 */
async function restartedX(root: string, xLines: string[]) {
  const y = delegation('d-y', NOW - DAY);
  const again = ev.started(iso(NOW - 3600_000), { delegation_id: 'd-x', parent_run_id: 'p-d-x', pattern: 'fan_out', agent_ids: ['coder', 'reviewer'] });
  put(root, 's-1.jsonl', [...xLines, again], NOW);
  put(root, 's-2.jsonl', [...y.head, ...y.runs, ...y.tail], NOW);
  const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
  const inMemory = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
  const indexed = await written(await prepareLast(options, 0), options, 'json');
  return { inMemory, indexed };
}

/**
 * Twelve sessions over twelve days. The newest delegation (d-new) starts in the newest session and
 * its sub-runs land in another session file (the tracker's), both written after it started. An
 * older session, still written to later, is modified after d-new started too.
 */
function history(): { root: string; newest: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
  dirs.push(root);
  for (let i = 0; i < 10; i++) {
    const t = NOW - (12 - i) * DAY;
    const d = delegation(`d-old-${i}`, t, i % 3 ? 'completed' : 'failed');
    put(root, `${i % 2 ? 'v1/users/b64-bG9jYWw/sessions/' : ''}s-${i}.jsonl${i === 4 ? '.gz' : ''}`, [...d.head, ...d.runs, ...d.tail], t + 7000, i === 4);
  }
  const t = NOW - 3600_000;
  const d = delegation('d-new', t, 'failed');
  put(root, 'v1/users/b64-bG9jYWw/sessions/s-request.jsonl', [...d.head, ...d.tail], t + 7000);
  put(root, 'v1/users/b64-YWxpY2U/sessions/s-tracker.jsonl', d.runs, t + 6000);
  // A long session that started days ago but kept writing after d-new started.
  const busy = delegation('d-busy', NOW - 2 * DAY);
  put(root, 's-busy.jsonl', [...busy.head, ...busy.runs, ...busy.tail, ev.marker(iso(t + 9000), 'pause', 'x')], t + 9000);
  return { root, newest: 'd-new' };
}

const opts = (root: string) => ({ sessions: [root], cwd: root, checkOptions: { nowMs: NOW } });

describe('recent-first last', () => {
  it('gives the same report as a full scan while reading only the files written since the newest start', async () => {
    const { root, newest } = history();
    const fast = await analyze(opts(root));
    const full = await analyze({ ...opts(root), recentFirst: false });
    expect(fast.report.delegations.map((d) => d.id)).toEqual([newest]);
    expect(fast.report.delegations).toEqual(full.report.delegations);
    // The three files written after d-new started, out of thirteen.
    expect(full.scan.files).toHaveLength(13);
    expect(fast.scan.files.map((f) => path.basename(f.file)).sort()).toEqual(['s-busy.jsonl', 's-request.jsonl', 's-tracker.jsonl']);
    expect(fast.report.limits.join('\n')).toMatch(/last read 3 of 13 journal files/);
    expect(full.report.limits.join('\n')).not.toMatch(/last read/);
  });

  it('numbers files and events as the full scan does', async () => {
    const { root } = history();
    const files = await discoverJournals([root], root);
    const full = await scanJournals(files);
    const r = await scanRecentFirst(files, (subset) => scanJournals(subset));
    expect(r.fullReason).toBeNull();
    expect(r.read).toBe(3);
    for (const f of r.scan.files) expect(f).toEqual(full.files[f.fileIndex]);
    const wanted = new Set(r.scan.files.map((f) => f.fileIndex));
    expect(r.scan.events).toEqual(full.events.filter((e) => wanted.has(e.fileIndex)));
  });

  it('reads both files of a .jsonl / .jsonl.gz pair when one of them is recent', async () => {
    const { root } = history();
    const t = NOW - 1800_000;
    const d = delegation('d-pair', t);
    // The archive is old; the plain file repeats its first line and goes on.
    put(root, 's-pair.jsonl.gz', [ev.marker(iso(NOW - 5 * DAY), 'resume', 'y'), ...d.head.slice(0, 0)], NOW - 5 * DAY, true);
    put(root, 's-pair.jsonl', [ev.marker(iso(NOW - 5 * DAY), 'resume', 'y'), ...d.head, ...d.runs, ...d.tail], t + 7000);
    const fast = await analyze(opts(root));
    const full = await analyze({ ...opts(root), recentFirst: false });
    expect(fast.report.delegations.map((x) => x.id)).toEqual(['d-pair']);
    expect(fast.report.delegations).toEqual(full.report.delegations);
    const read = fast.scan.files.map((f) => path.basename(f.file));
    expect(read).toContain('s-pair.jsonl.gz');
    // Discovery order puts s-pair.jsonl first, so the archive's copy of the shared line is the repeat.
    expect(fast.scan.files.find((f) => f.file.endsWith('s-pair.jsonl.gz'))!.duplicateLines).toBe(1);
  });

  it('reads everything when a file it reads holds lines newer than its mtime (clock skew, copies)', async () => {
    const { root } = history();
    // Written by a host whose clock runs a day ahead: mtime says 30 min ago, its lines say tomorrow.
    const d = delegation('d-skewed', NOW + DAY);
    put(root, 's-skewed.jsonl', [...d.head, ...d.runs, ...d.tail], NOW - 1800_000);
    const files = await discoverJournals([root], root);
    const r = await scanRecentFirst(files, (subset) => scanJournals(subset));
    expect(r.fullReason).toMatch(/s-skewed.jsonl has lines newer than its modification time/);
    expect(r.read).toBe(files.length);
    const fast = await analyze(opts(root));
    const full = await analyze({ ...opts(root), recentFirst: false });
    expect(fast.report.delegations).toEqual(full.report.delegations);
    expect(fast.report.limits).toEqual(full.report.limits);
  });

  it('gives up past maxBytes (follow mode then replays every file instead of reading twice)', async () => {
    const { root } = history();
    const files = await discoverJournals([root], root);
    const r = await scanRecentFirst(files, (subset) => scanJournals(subset), { maxBytes: 1 });
    expect(r.newestStart).toBeNull();
    expect(r.fullReason).toMatch(/more than 1 bytes would be read/);
    expect(r.read).toBeLessThan(files.length); // it stopped after the first batch
    const unlimited = await scanRecentFirst(files, (subset) => scanJournals(subset), { maxBytes: 1e9 });
    expect(unlimited.newestStart).not.toBeNull();
    expect(unlimited.read).toBe((await scanRecentFirst(files, (subset) => scanJournals(subset))).read);
  });

  it('gives up past maxEvents, before keeping much more than that (files copied without their dates all look new)', async () => {
    const { root } = history();
    touchAll(root, NOW); // what `cp -r` does
    const files = await discoverJournals([root], root);
    const all = await scanRecentFirst(files, (subset) => scanJournals(subset));
    expect(all.read).toBe(files.length); // every file is newer than every start
    const r = await scanRecentFirst(files, (subset) => scanJournals(subset), { maxEvents: 13 });
    expect(stoppedShort(r)).toBe(true);
    expect(r.fullReason).toMatch(/more than 13 events would be kept/);
    // Batches are sized by the events still allowed at the density read so far: one more file of
    // 5-6 events at most (18 kept here), not as many bytes as everything read before (30).
    expect(r.scan.events.length).toBeGreaterThanOrEqual(13);
    expect(r.scan.events.length).toBeLessThan(13 + 7);
    expect(stoppedShort(all)).toBe(false);
  });

  it.each([
    ['a plain journal', false],
    ['an archive (inflated as a stream)', true],
  ])('reads %s past maxEvents up to maxFileEvents, stops past that, and never takes its first part for the whole', async (_, gzip) => {
    // One session written for days: 40 delegations with 20 KB of llm_round lines after each
    // (800 KB, so reads of 256 KiB end well before its end), the newest at its end. Random text,
    // so the archive is larger than one read too.
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) {
      const d = delegation(`d-${i}`, NOW - (40 - i) * 3600_000);
      lines.push(...d.head, ...d.runs, ...d.tail, JSON.stringify({ type: 'llm_round', ts: iso(NOW), text: randomBytes(10_000).toString('hex') }));
    }
    put(root, `s-long.jsonl${gzip ? '.gz' : ''}`, lines, NOW, gzip);
    const old = delegation('d-old', NOW - 5 * DAY);
    put(root, 's-old.jsonl', [...old.head, ...old.runs, ...old.tail], NOW - 5 * DAY + 7000);
    const files = await discoverJournals([root], root);
    const scan = (maxFileEvents: number) => scanRecentFirst(files, (subset, maxEventsPerFile) => scanJournals(subset, { maxEventsPerFile }), { maxEvents: 13, maxFileEvents });
    // Past maxFileEvents too: the file stops being read.
    const openFiles = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const before = openFiles();
    const r = await scan(13);
    // The journal left half read is closed (a stream closes its file asynchronously).
    for (let i = 0; i < 50 && openFiles() > before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(openFiles()).toBe(before);
    expect(r.readInPart).toBe(true);
    expect(stoppedShort(r)).toBe(true); // the caller indexes the tree
    expect(r.fullReason).toMatch(/more than 13 events would be kept \(s-long\.jsonl(\.gz)? alone holds more than 13\)/);
    expect(r.scan.events.length).toBeLessThan(6 * 40 / 2); // the first read of 256 KiB, not the file
    // Within maxFileEvents, it is read whole, and the rule skips the older file.
    const whole1 = await scan(1000);
    expect(whole1.readInPart).toBe(false);
    expect(whole1.scan.events.length).toBe(6 * 40);
    expect([whole1.read, whole1.total, whole1.newestStart]).toEqual([1, 2, iso(NOW - 3600_000)]);
    // `last` finds the newest delegation, at the end of the file, either way.
    const options = opts(root);
    const whole = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
    const indexed = await written(await prepareLast(options, 13, 13), options, 'json');
    expect(JSON.parse(indexed.out).delegations.map((d: { id: string }) => d.id)).toEqual(['d-39']);
    expect(indexed).toEqual(whole);
    const recent = JSON.parse((await written(await prepareLast(options, 13, 1000), options, 'json')).out);
    expect(recent.delegations).toEqual(JSON.parse(whole.out).delegations);
    expect(recent.limits.join('\n')).toMatch(/last read 1 of 2 journal files/);
  });

  it('finds the same newest delegation as a whole read on random trees, whatever the limits', async () => {
    // Seeded random trees: sessions of 1-6 delegations each (a few spread over two files, a few
    // padded past one 256 KiB read), every file dated by its last line as appends would date it,
    // read with limits that make each path run: the recent files in memory, a journal stopped in
    // part, the whole tree indexed.
    let seed = 20261130;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pad = JSON.stringify({ type: 'llm_round', ts: iso(NOW), text: 'p'.repeat(3_000) });
    for (let tree = 0; tree < 24; tree++) {
      const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
      dirs.push(root);
      const sessions = 1 + rand(5);
      for (let k = 0; k < sessions; k++) {
        const lines: string[] = [];
        const elsewhere: string[] = [];
        let last = 0;
        // Appended in time order, as the engine writes them.
        const starts = Array.from({ length: 1 + rand(6) }, () => NOW - (1 + rand(20 * 24)) * 3600_000).sort((x, y) => x - y);
        for (const [i, t] of starts.entries()) {
          const d = delegation(`d-${tree}-${k}-${i}`, t, rand(3) ? 'completed' : 'failed');
          const split = rand(5) === 0; // its sub-runs in another session's file
          lines.push(...d.head, ...(split ? [] : d.runs), ...d.tail);
          if (split) elsewhere.push(...d.runs);
          if (rand(2) === 0) for (let j = 0; j < 100; j++) lines.push(pad); // 300 KB: more than one read
          last = Math.max(last, t + 7000);
        }
        put(root, `s-${k}.jsonl`, lines, last);
        if (elsewhere.length) put(root, `s-${k}-tracker.jsonl`, elsewhere, last);
      }
      const options = opts(root);
      const whole = JSON.parse((await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json')).out);
      for (const [maxEvents, maxFileEvents] of [[1_000, 1_000], [5, 0], [13, 13], [0, 0]]) {
        const last = JSON.parse((await written(await prepareLast(options, maxEvents, maxFileEvents), options, 'json')).out);
        expect(last.delegations, `tree ${tree}, limits ${maxEvents}/${maxFileEvents}`).toEqual(whole.delegations);
      }
    }
  });

  it('reads everything when a delegation_started has no parseable ts', async () => {
    const { root } = history();
    put(root, 's-untimed.jsonl', [ev.started('sometime', { delegation_id: 'd-untimed', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] })], NOW - 60_000);
    const files = await discoverJournals([root], root);
    const r = await scanRecentFirst(files, (subset) => scanJournals(subset));
    expect(r.read).toBe(files.length);
    expect(r.fullReason).toMatch(/no parseable ts/);
  });

  it('says no delegation was found after reading every file, like the full scan', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    put(root, 'a.jsonl', [ev.marker(iso(NOW - DAY), 'pause', 'r')], NOW - DAY);
    put(root, 'b.jsonl', [ev.marker(iso(NOW - 2 * DAY), 'pause', 'r')], NOW - 2 * DAY);
    const err = await analyze(opts(root)).catch((e) => e);
    expect(err).toBeInstanceOf(TargetError);
    expect(err.message).toBe('no delegation_started event found in 2 journal files under ' + root);
  });
});

/** Sets every journal's modification time to `ms`, as a copy that does not keep dates would. */
function touchAll(dir: string, ms: number): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) touchAll(p, ms);
    else utimesSync(p, new Date(ms), new Date(ms));
  }
}

/** What writeReportStream writes for `source`, with the measured duration zeroed. */
async function written(source: ReportSource, options: AnalyzeOptions, format: string): Promise<{ out: string; code: number }> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (d: Buffer) => chunks.push(d));
  const code = await writeReportStream(sink, format, source, options, { color: false, failOn: 'error' });
  return { out: Buffer.concat(chunks).toString().replace(/"durationMs": \d+/, '"durationMs": 0'), code };
}

describe('last over a tree whose modification times narrow nothing (streamed formats)', () => {
  it('indexes the whole tree and rebuilds the newest groups only: the same report as reading every event', async () => {
    const { root } = history();
    touchAll(root, NOW);
    const checkDirs = readdirSync(path.join(FIXTURES, 'checks')).map((d) => path.join(FIXTURES, 'checks', d));
    const trees = [root, ...['sessions', 'formats', 'join', 'safe', 'hostile'].map((t) => path.join(FIXTURES, t)), ...checkDirs];
    for (const tree of trees) {
      const options: AnalyzeOptions = { sessions: [tree], cwd: ROOT, checkOptions: { nowMs: NOW } };
      for (const format of ['json', 'text']) {
        const outcome = (source: () => Promise<ReportSource>) => source().then((s) => written(s, options, format), (err: Error) => ({ error: err.message }));
        const inMemory = await outcome(() => prepareAnalysis({ ...options, recentFirst: false }));
        // maxEvents 0: the recent-first read stops at once, so the index path always runs.
        const indexed = await outcome(() => prepareLast(options, 0));
        expect(indexed, `${tree} (${format})`).toEqual(inMemory);
        if (tree === root) expect(indexed).toHaveProperty('out');
      }
      // The other formats build the whole document from the same selection (sarif, html, …).
      const documented = (p: Promise<PreparedAnalysis>) =>
        p.then(
          (prepared) => FORMATTERS.sarif(buildTraceReport(prepared.scan, prepared, options, prepared), { color: false, failOn: 'error' }).replace(/"durationMs": \d+/, ''),
          (err: Error) => err.message,
        );
      expect(await documented(prepareLast(options, 0)), `${tree} (sarif)`).toBe(await documented(prepareAnalysis({ ...options, recentFirst: false })));
    }
  });

  it('keeps rebuilding groups while one could still hold a newer start than the newest found', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    // d-x (still open) was started twice: its group's newest start record is the repeat (NOW - 1 h),
    // but the delegation orders by its first start (3 days ago). d-y, in another group, started in
    // between and is the newest delegation: the group rebuilt first does not hold the answer.
    // (A repeat after d-x's completion, or once none of its sub-runs is running, would be a new
    // delegation, and the newest: its reviewer run is left running here.)
    const x = delegation('d-x', NOW - 3 * DAY);
    const { inMemory, indexed } = await restartedX(root, [...x.head, ...x.runs.slice(0, 3)]);
    expect(JSON.parse(indexed.out).delegations.map((d: { id: string }) => d.id)).toEqual(['d-y']);
    expect(indexed).toEqual(inMemory);
  });

  it('takes a start of a completed delegation id by the same parent run as a new delegation, the newest', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const x = delegation('d-x', NOW - 3 * DAY);
    const { inMemory, indexed } = await restartedX(root, [...x.head, ...x.runs, ...x.tail]);
    expect(JSON.parse(indexed.out).delegations.map((d: { key: string }) => d.key)).toEqual(['d-x#2']);
    expect(indexed).toEqual(inMemory);
  });

  it('takes a start by the same parent run after the first use ended without a completion, its sub-runs settled, as a new delegation', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const x = delegation('d-x', NOW - 3 * DAY);
    const { inMemory, indexed } = await restartedX(root, [...x.head, ...x.runs]);
    expect(JSON.parse(indexed.out).delegations.map((d: { key: string }) => d.key)).toEqual(['d-x#2']);
    expect(indexed).toEqual(inMemory);
  });

  it('counts a start journaled twice as one delegation: list --limit N still gets N rows', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const older = delegation('d-older', NOW - 2 * DAY);
    const newer = delegation('d-newer', NOW - DAY);
    put(root, 'a.jsonl', [...older.head, ...older.runs, ...older.tail], NOW - 2 * DAY + 7000);
    put(root, 'b.jsonl', [...newer.head, ...newer.head, ...newer.runs, ...newer.tail], NOW - DAY + 7000);
    const r = await scanRecentFirst(await discoverJournals([root], root), (subset) => scanJournals(subset), { count: 2 });
    expect(r.read).toBe(2); // d-newer's repeated start did not stand for a second delegation
    const rows = await runMain(['--sessions', root, 'list', '--limit', '2', '--fail-on', 'none'], { cwd: root });
    expect(rows.stdout).toMatch(/d-newer[\s\S]*d-older/);
  });

  it('reads the whole tree when a delegation id is reused and the older one\'s start is in a file not read', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    // old.jsonl (not modified since) holds dup's first start; new.jsonl, recent, holds a sub-run
    // of that first dup and then a new dup started by another parent run.
    put(root, 'old.jsonl', [ev.started(iso(NOW - 2 * DAY), { delegation_id: 'dup', parent_run_id: 'p1', pattern: 'fan_out', agent_ids: ['coder'] })], NOW - 2 * DAY);
    put(root, 'new.jsonl', [
      ev.subStarted(iso(NOW - 2 * DAY + 1000), { delegation_id: 'dup', sub_run_id: 'r1', parent_run_id: 'p1', agent_id: 'coder' }),
      ev.started(iso(NOW - 3600_000), { delegation_id: 'dup', parent_run_id: 'p2', pattern: 'fan_out', agent_ids: ['coder'] }),
    ], NOW - 3600_000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const whole = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
    const last = JSON.parse(whole.out);
    expect(last.delegations.map((d: { key: string; children: unknown[] }) => [d.key, d.children.length])).toEqual([['dup#2', 0]]);
    expect(await written(await prepareAnalysis(options), options, 'json')).toEqual(whole);
    expect(await written(await prepareLast(options), options, 'json')).toEqual(whole);
    const rows = await runMain(['--sessions', root, 'list', '--limit', '1', '--fail-on', 'none'], { cwd: root });
    expect(rows.stdout).toContain('dup#2');
  });

  it('reads the whole tree when the newest delegation holds sub-runs of another parent run started just before it (a full read gives them to an older start)', async () => {
    // old.jsonl (not read) holds dup's first use, by p1. new.jsonl: two sub-runs under p-lost,
    // whose delegation_started was lost, a second before dup is started again by p2. A full read
    // attaches them to the latest start before them, p1's; the files modified since p2's start
    // hold no start before them, so they went to p2's, with findings --all does not give it.
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const t = NOW - 3600_000;
    const first = delegation('dup', t - 2 * 3600_000);
    put(root, 'old.jsonl', [...first.head, ...first.runs, ...first.tail], t - 2 * 3600_000 + 7000);
    const lost = (run: string, dt: number) => ev.subStarted(iso(t + dt), { delegation_id: 'dup', sub_run_id: run, parent_run_id: 'p-lost', agent_id: 'coder' });
    const done = (run: string, dt: number) => ev.subCompleted(iso(t + dt), { delegation_id: 'dup', sub_run_id: run, agent_id: 'coder', status: 'completed', output_preview: `out of ${run}` });
    put(root, 'new.jsonl', [
      lost('r-lost-1', -1000), lost('r-lost-2', -990),
      ev.started(iso(t), { delegation_id: 'dup', parent_run_id: 'p2', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted(iso(t + 100), { delegation_id: 'dup', sub_run_id: 'r2', parent_run_id: 'p2', agent_id: 'coder' }),
      done('r-lost-1', 3000), done('r-lost-2', 3500), done('r2', 4000),
      ev.completed(iso(t + 5000), { delegation_id: 'dup', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'out of r2' }),
    ], t + 5000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const whole = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
    const newest = JSON.parse(whole.out).delegations;
    expect(newest.map((d: { key: string; children: unknown[]; findings: unknown[] }) => [d.key, d.children.length, d.findings.length])).toEqual([['dup#2', 1, 0]]);
    expect(await written(await prepareAnalysis(options), options, 'json')).toEqual(whole);
    expect(await written(await prepareLast(options), options, 'json')).toEqual(whole);
    expect(await newestRecentFirst(options, 1)).toBeNull();
    const rows = await runMain(['--sessions', root, 'list', '--limit', '1', '--format', 'json', '--fail-on', 'none'], { cwd: root, env: { TRACE_DELEGATION_NOW: iso(NOW) } });
    expect(JSON.parse(rows.stdout).delegations.map((r: { key: string; findings: unknown }) => [r.key, r.findings])).toEqual([['dup#2', { error: 0, warning: 0, info: 0 }]]);
  });

  it('reads the whole tree when an event of the newest delegation is stamped before its start, even by a millisecond (a full read may give it to an older start of the id)', async () => {
    // old.jsonl (not read): dup by p1, completed. new.jsonl: p1 starts dup again; its sub-run's
    // line follows the start but is stamped 1 ms before it (a clock a little behind). A full read
    // attaches that run to the latest start before it, the old one (docs: each event to the start
    // before it); the recent files hold no start before it, so it went to the new one.
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const t = NOW - 3600_000;
    const first = delegation('dup', t - 3 * 3600_000);
    put(root, 'old.jsonl', [...first.head, ...first.runs, ...first.tail], t - 3 * 3600_000 + 7000);
    put(root, 'new.jsonl', [
      ev.started(iso(t), { delegation_id: 'dup', parent_run_id: 'p-dup', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted(iso(t - 1), { delegation_id: 'dup', sub_run_id: 'r-new', parent_run_id: 'p-dup', agent_id: 'coder' }),
      ev.subCompleted(iso(t + 4000), { delegation_id: 'dup', sub_run_id: 'r-new', agent_id: 'coder', status: 'completed', output_preview: 'new output' }),
      ev.completed(iso(t + 5000), { delegation_id: 'dup', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'new output' }),
    ], t + 5000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const whole = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
    expect(JSON.parse(whole.out).delegations.map((d: { key: string }) => d.key)).toEqual(['dup#2']);
    expect(await written(await prepareAnalysis(options), options, 'json')).toEqual(whole);
    expect(await written(await prepareLast(options), options, 'json')).toEqual(whole);
    expect(await newestRecentFirst(options, 1)).toBeNull();
    const all = await analyze({ ...options, all: true, recentFirst: false });
    const newest = all.report.delegations.at(-1)!;
    const rows = await runMain(['--sessions', root, 'list', '--limit', '1', '--format', 'json', '--fail-on', 'none'], { cwd: root, env: { TRACE_DELEGATION_NOW: iso(NOW) } });
    const counts = { error: 0, warning: 0, info: 0 };
    for (const f of newest.findings) counts[f.severity]++;
    expect(JSON.parse(rows.stdout).delegations.map((r: { key: string; findings: unknown }) => [r.key, r.findings])).toEqual([[newest.key, counts]]);
  });

  it('reads the whole tree when the newest delegation took a join another open use of its id could have (the runs that decide are in a file not read)', async () => {
    // s.jsonl: p1 starts dup, p2 starts it again a minute later, then p1's join (p1's two outputs).
    // tracker.jsonl, not modified since p2 started, holds p1's runs: a full read gives the join to
    // p1 by them; the recent file alone gave it to p2.
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const t = NOW - 3600_000;
    const start = (dt: number, parent: string) => ev.started(iso(t + dt), { delegation_id: 'dup', parent_run_id: parent, pattern: 'fan_out', agent_ids: ['coder', 'reviewer'] });
    const run = (dt: number, id: string, parent: string, agent: string) => ev.subStarted(iso(t + dt), { delegation_id: 'dup', sub_run_id: id, parent_run_id: parent, agent_id: agent });
    const done = (dt: number, id: string, agent: string) => ev.subCompleted(iso(t + dt), { delegation_id: 'dup', sub_run_id: id, agent_id: agent, status: 'completed', output_preview: `out ${id}` });
    put(root, 'tracker.jsonl', [run(10, 'r1a', 'p1', 'coder'), run(20, 'r1b', 'p1', 'reviewer'), done(5000, 'r1a', 'coder'), done(6000, 'r1b', 'reviewer')], t + 6000);
    put(root, 's.jsonl', [
      start(0, 'p1'), start(60_000, 'p2'), run(60_010, 'r2a', 'p2', 'coder'),
      ev.completed(iso(t + 61_000), { delegation_id: 'dup', pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'out r1a\n---\nout r1b' }),
    ], t + 61_000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const whole = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
    expect(JSON.parse(whole.out).delegations.map((d: { key: string; completedTs: string | null }) => [d.key, d.completedTs])).toEqual([['dup#2', null]]);
    expect(await written(await prepareAnalysis(options), options, 'json')).toEqual(whole);
    expect(await written(await prepareLast(options), options, 'json')).toEqual(whole);
    expect(await newestRecentFirst(options, 1)).toBeNull();
  });

  it("reads the whole tree when a tracker wrote an older same-id delegation's completion after the newest start", async () => {
    // The older dup's start and sub-run start are in old.jsonl (not read); a tracker file written
    // after the newest start holds that sub-run's completion, with no start of its own in the files read.
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    put(root, 'old.jsonl', [
      ev.started(iso(NOW - 2 * 3600_000), { delegation_id: 'dup', parent_run_id: 'p1', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted(iso(NOW - 2 * 3600_000 + 1000), { delegation_id: 'dup', sub_run_id: 'r-old', parent_run_id: 'p1', agent_id: 'coder' }),
    ], NOW - 2 * 3600_000 + 2000);
    put(root, 'new.jsonl', [
      ev.started(iso(NOW - 3600_000), { delegation_id: 'dup', parent_run_id: 'p2', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted(iso(NOW - 3600_000 + 1000), { delegation_id: 'dup', sub_run_id: 'r-new', parent_run_id: 'p2', agent_id: 'coder' }),
      ev.subCompleted(iso(NOW - 3600_000 + 5000), { delegation_id: 'dup', sub_run_id: 'r-new', agent_id: 'coder', status: 'completed', output_preview: 'fixed' }),
      ev.completed(iso(NOW - 3600_000 + 6000), { delegation_id: 'dup', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'fixed' }),
    ], NOW - 3600_000 + 7000);
    put(root, 'tracker.jsonl', [ev.subCompleted(iso(NOW - 3600_000 + 30_000), { delegation_id: 'dup', sub_run_id: 'r-old', agent_id: 'coder', status: 'completed', output_preview: 'old' })], NOW - 3600_000 + 31_000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const whole = await written(await prepareAnalysis({ ...options, recentFirst: false, all: true }), options, 'json');
    const newest = JSON.parse(whole.out).delegations.at(-1);
    expect([newest.key, newest.findings]).toEqual(['dup#2', []]);
    const last = JSON.parse((await written(await prepareLast(options), options, 'json')).out);
    expect(last.delegations.map((d: { key: string; findings: unknown[] }) => [d.key, d.findings])).toEqual([['dup#2', []]]);
    const cli = await runMain(['--sessions', root, '--fail-on', 'error'], { cwd: root, env: { TRACE_DELEGATION_NOW: iso(NOW) } });
    expect(cli.code).toBe(0);
    const rows = await runMain(['--sessions', root, 'list', '--limit', '1', '--format', 'json'], { cwd: root });
    expect(JSON.parse(rows.stdout).delegations.map((r: { key: string }) => r.key)).toEqual(['dup#2']);
  });

  it('keeps reading recent files only when the newest delegation repeats an identical delegation_completed', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const older = delegation('d-older', NOW - 3 * DAY);
    put(root, 'older.jsonl', [...older.head, ...older.runs, ...older.tail], NOW - 3 * DAY + 60_000);
    const newest = delegation('d-new', NOW - 3600_000);
    put(root, 'new.jsonl', [...newest.head, ...newest.runs, ...newest.tail, ...newest.tail], NOW - 3600_000 + 60_000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const last = await prepareLast(options);
    expect(last.selected.map((d) => d.id)).toEqual(['d-new']);
    expect(last.notes.some((n) => n.startsWith('last read 1 of 2 journal files'))).toBe(true);
  });

  it('reads the whole tree when events newer than the newest start belong to a start it did not read (an mtime set back)', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    const older = delegation('d-older', NOW - 3 * 3600_000);
    put(root, 'older.jsonl', [...older.head, ...older.runs, ...older.tail], NOW - 3 * 3600_000 + 60_000);
    // d-back started last, but its file's mtime was set back a day; its sub-runs are in a recent tracker file.
    put(root, 'back.jsonl', [ev.started(iso(NOW - 3600_000), { delegation_id: 'd-back', parent_run_id: 'pb', pattern: 'fan_out', agent_ids: ['coder'] })], NOW - DAY);
    put(root, 'tracker.jsonl', [
      ev.subStarted(iso(NOW - 3600_000 + 1000), { delegation_id: 'd-back', sub_run_id: 'rb', parent_run_id: 'pb', agent_id: 'coder' }),
      ev.subCompleted(iso(NOW - 3600_000 + 5000), { delegation_id: 'd-back', sub_run_id: 'rb', agent_id: 'coder', status: 'completed', output_preview: 'ok' }),
    ], NOW - 3600_000 + 6000);
    const options: AnalyzeOptions = { sessions: [root], cwd: root, checkOptions: { nowMs: NOW } };
    const last = JSON.parse((await written(await prepareLast(options), options, 'json')).out);
    expect(last.delegations.map((d: { id: string }) => d.id)).toEqual(['d-back']);
    const cli = await runMain(['--sessions', root, '--format', 'json', '--fail-on', 'none'], { cwd: root, env: { TRACE_DELEGATION_NOW: iso(NOW) } });
    expect(JSON.parse(cli.stdout).delegations.map((d: { id: string }) => d.id)).toEqual(['d-back']);
  });

  it('with a start whose ts does not parse, reads every event as before (that order needs them all)', async () => {
    const { root } = history();
    // An untimed start orders where it stands in its file: after the marker just before it, the
    // newest time of the tree.
    put(root, 'v1/users/b64-enp6/sessions/s-untimed.jsonl', [ev.marker(iso(NOW), 'pause', 'r-x'), ev.started('sometime', { delegation_id: 'd-untimed', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] })], NOW);
    touchAll(root, NOW);
    const options: AnalyzeOptions = { sessions: [root], cwd: ROOT, checkOptions: { nowMs: NOW } };
    const inMemory = await written(await prepareAnalysis({ ...options, recentFirst: false }), options, 'json');
    expect(JSON.parse(inMemory.out).delegations.map((d: { id: string }) => d.id)).toEqual(['d-untimed']);
    expect(await written(await prepareLast(options, 0), options, 'json')).toEqual(inMemory);
  });

  it('says no delegation was found, as the full read does', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    put(root, 'a.jsonl', [ev.marker(iso(NOW - DAY), 'pause', 'r')], NOW);
    const err = await prepareLast({ sessions: [root], cwd: root }, 0).catch((e) => e);
    expect(err).toBeInstanceOf(TargetError);
    expect(err.message).toBe('no delegation_started event found in 1 journal file under ' + root);
  });

  it('keeps memory down from the CLI: 60,000 events copied without their dates', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-recent-'));
    dirs.push(root);
    for (let f = 0; f < 40; f++) {
      const lines: string[] = [];
      for (let k = 0; k < 250; k++) {
        const d = delegation(`d-${f}-${k}`, NOW - DAY + (f * 250 + k) * 60_000);
        lines.push(...d.head, ...d.runs, ...d.tail);
      }
      put(root, `s-${f}.jsonl`, lines, NOW);
    }
    const peak = async (env: NodeJS.ProcessEnv) => {
      const rssFile = path.join(root, `rss-${env.TRACE_DELEGATION_INDEXED ?? '1'}`);
      const r = await runBin(['--sessions', root, 'last', '--format', 'json'], { env: { ...env, NODE_OPTIONS: `--import=${path.join(ROOT, 'bench/maxrss.mjs')}`, BENCH_RSS_FILE: rssFile } });
      return { out: r.stdout.replace(/"durationMs": \d+/, '"durationMs": 0'), kib: Number(readFileSync(rssFile, 'utf8').split(' ')[0]) }; // peak KiB, then CPU seconds
    };
    const indexed = await peak({});
    const inMemory = await peak({ TRACE_DELEGATION_INDEXED: '0' });
    expect(JSON.parse(indexed.out).delegations.map((d: { id: string }) => d.id)).toEqual(['d-39-249']);
    expect(indexed.out).toBe(inMemory.out);
    expect(indexed.kib).toBeLessThan(inMemory.kib * 0.8); // measured: 84 against 137 MB
  });
});

describe('recent-first list (the N newest delegations)', () => {
  /** The full scan's N newest reports, oldest first, as `list` would show them without the shortcut. */
  const fullNewest = async (root: string, n: number) => (await analyze({ ...opts(root), all: true, recentFirst: false })).report.delegations.slice(-n);

  it('stops at the N-th newest start and gives the full scan’s N newest reports', async () => {
    const { root } = history();
    const files = await discoverJournals([root], root);
    // The newest starts: d-new (an hour ago), d-busy (2 days), d-old-9 (3 days), d-old-8 (4 days)…
    const starts = [NOW - 3600_000, NOW - 2 * DAY, NOW - 3 * DAY, NOW - 4 * DAY];
    let before = 0;
    for (const n of [1, 2, 3, 4]) {
      const r = await scanRecentFirst(files, (subset) => scanJournals(subset), { count: n });
      expect(r.newestStart, `count ${n}`).toBe(iso(starts[n - 1]));
      // Every file modified since the n-th newest start (less the margin) is read; fewer than all.
      const since = starts[n - 1] - MTIME_MARGIN_MS;
      const needed = files.filter((f) => statSync(f.path).mtimeMs >= since).length;
      expect(r.read, `count ${n}`).toBeGreaterThanOrEqual(needed);
      expect(r.read, `count ${n}`).toBeLessThan(13);
      expect(r.read, `count ${n}`).toBeGreaterThanOrEqual(before);
      before = r.read;
      const rows = await newestRecentFirst(opts(root), n);
      expect(rows, `count ${n}`).not.toBeNull();
      expect(rows!.newest, `count ${n}`).toEqual(await fullNewest(root, n));
      expect(rows!).toMatchObject({ read: r.read, files: 13, since: r.newestStart });
    }
  });

  it('gives up (the caller reads every file) when fewer starts exist than rows wanted', async () => {
    const { root } = history();
    expect(await newestRecentFirst(opts(root), 12)).toBeNull(); // 12 starts in 13 files: every file is read
    expect(await newestRecentFirst(opts(root), 13)).toBeNull();
  });

  it('gives up when a row would be events without their delegation_started: the start may be older than the files read', async () => {
    const { root } = history();
    // A late completion of an old delegation's sub-run, journaled an hour ago in another session.
    put(root, 's-late.jsonl', [ev.subCompleted(iso(NOW - 3000_000), { delegation_id: 'd-old-8', sub_run_id: 'd-old-8-b', agent_id: 'reviewer', status: 'completed', output_preview: 'late' })], NOW - 3000_000);
    expect(await newestRecentFirst(opts(root), 2)).toBeNull();
    // Through the CLI: the rows and footer of a full read, where d-old-8 is in its place.
    const r = await runMain(['list', '--limit', '2', '--sessions', root, '--now', iso(NOW)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/2 of 12 delegations, newest first\n$/);
    expect(r.stdout).toContain('d-new');
    expect(r.stdout).not.toContain('d-old-8');
  });

  it('says in the footer what it read and what that leaves out', async () => {
    const { root } = history();
    const r = await runMain(['list', '--limit', '2', '--sessions', root, '--now', iso(NOW)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('d-new');
    expect(r.stdout).toContain('d-busy');
    const { read } = (await newestRecentFirst(opts(root), 2))!;
    expect(read).toBeLessThan(13);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      `the 2 newest delegations, newest first; read ${read} of 13 journal files, newest first, down to every file modified since the oldest of them started (${iso(NOW - 2 * DAY)}); checks that compare delegations, and the #2 key of a reused delegation id, saw only the files read (name a delegation to check it against every file)`,
    );
  });
});
