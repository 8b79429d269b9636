// A journal tree the engine changes while one run reads it: each race is forced from a hook
// between two phases of the run (listing, scan, read back), never left to timing.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze, newestRecentFirst, prepareAnalysis, prepareLast, prepareStreamedAll, prepareStreamedTarget } from '../../src/analyze.js';
import { writeReportStream } from '../../src/cli/stream-report.js';
import { PassThrough } from 'node:stream';
import { ev, journal } from '../helpers/journal.js';
import { ROOT } from '../helpers/cli.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'td-live29-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ts = (s: number) => new Date(Date.parse('2026-05-01T10:00:00Z') + s * 1000).toISOString();
/** One finished fan_out of one child in session `sid`. */
function delegationLines(sid: string, did: string, t: number): string {
  const lines = [
    ev.started(ts(t), { delegation_id: did, parent_run_id: `p-${did}`, pattern: 'fan_out', agent_ids: ['a'] }),
    ev.subStarted(ts(t + 1), { delegation_id: did, sub_run_id: `${did}-r0`, parent_run_id: `p-${did}`, agent_id: 'a' }),
    ev.subCompleted(ts(t + 2), { delegation_id: did, sub_run_id: `${did}-r0`, agent_id: 'a', status: 'completed', output_preview: 'ok' }),
    ev.completed(ts(t + 3), { delegation_id: did, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
  ];
  return journal(...lines.map((l) => l.replace(/"session_id":"[^"]*"/, `"session_id":"${sid}"`)));
}

/**
 * A tree of `old.jsonl`, `a.jsonl` (scanned first) and `z.jsonl` (the newest delegation), each
 * modified when its delegation completed; `archive()` rotates z into z.jsonl.gz as the engine does.
 */
function tree(name: string) {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const write = (sid: string, t: number) => {
    const file = path.join(dir, `${sid}.jsonl`);
    writeFileSync(file, delegationLines(sid, `d-${sid}`, t));
    const mtime = new Date(Date.parse(ts(t + 4)));
    utimesSync(file, mtime, mtime);
    return file;
  };
  write('old', 0);
  write('a', 600);
  const z = write('z', 1200);
  const archive = () => {
    writeFileSync(`${z}.gz`, gzipSync(readFileSync(z)));
    unlinkSync(z);
  };
  return { dir, archive };
}

describe('a journal archived between the listing and its scan', () => {
  it('a named target in it is looked for again from a new listing, which finds the archive', async () => {
    const { dir, archive } = tree('target-listed-then-archived');
    let calls = 0;
    const source = await prepareStreamedTarget({
      cwd: ROOT,
      checkOptions: { nowMs: NOW },
      sessions: [dir],
      target: 'd-z',
      jobs: 1,
      // After a.jsonl, before z.jsonl is opened: the listing named z.jsonl, the archive is new.
      onFile: (done) => {
        if (done === 1 && calls++ === 0) archive();
      },
    });
    expect([...source.items()].map(({ delegation: d }) => d.id)).toEqual(['d-z']);
  });

  /** Options that archive z.jsonl once, right after the tree is listed. */
  const archivedAfterListing = (dir: string, archive: () => void) => {
    let listings = 0;
    return {
      cwd: ROOT,
      checkOptions: { nowMs: NOW },
      sessions: [dir],
      jobs: 1,
      onJournals: () => {
        if (listings++ === 0) archive();
      },
      listings: () => listings,
    };
  };

  it('--all (streamed, and with every event in memory) reports the archived session\'s delegation too', async () => {
    for (const road of ['streamed', 'in memory'] as const) {
      const { dir, archive } = tree(`all-listed-then-archived-${road === 'streamed' ? 's' : 'm'}`);
      const opts = { ...archivedAfterListing(dir, archive), all: true };
      const source = road === 'streamed' ? await prepareStreamedAll(opts) : await prepareAnalysis(opts);
      expect([...source.items()].map(({ delegation: d }) => d.id), road).toEqual(['d-old', 'd-a', 'd-z']);
      expect(source.scan.files.map((f) => f.error), road).not.toContain('no such file');
      expect(opts.listings(), road).toBe(2);
    }
  });

  it('last (newest files first) shows the archived newest delegation, not the one before it', async () => {
    const { dir, archive } = tree('last-listed-then-archived');
    const opts = archivedAfterListing(dir, archive);
    const prepared = await prepareLast(opts);
    expect(prepared.selected.map((d) => d.id)).toEqual(['d-z']);
    expect(prepared.notes.join('\n')).not.toMatch(/no such file/);
    expect(opts.listings()).toBe(2);
  });

  it('last over the whole index (the recent read gave up) shows the newest delegation archived before the index read its file', async () => {
    const { dir, archive } = tree('last-indexed-then-archived');
    let archived = 0;
    // maxEvents 0: the recent-first read gives up, the tree is indexed; z is archived once the index has read its first file.
    const opts = { cwd: ROOT, checkOptions: { nowMs: NOW }, sessions: [dir], jobs: 1, onFile: (done: number) => void (done === 1 && archived === 0 && (archived++, archive())) };
    const prepared = await prepareLast(opts, 0);
    expect(archived).toBe(1);
    expect(prepared.selected.map((d) => d.id)).toEqual(['d-z']);
    expect(prepared.scan.files.map((f) => f.error)).not.toContain('no such file');
  });

  it('a named target matched elsewhere too is looked for again: the archive holds another match (a prefix of two ids is ambiguous, not the one left)', async () => {
    const dir = path.join(tmp, 'target-matched-then-archived');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'a.jsonl'), delegationLines('a', 'd-ab1', 0));
    const z = path.join(dir, 'z.jsonl');
    writeFileSync(z, delegationLines('z', 'd-ab2', 600));
    let listings = 0;
    const opts = {
      cwd: ROOT,
      checkOptions: { nowMs: NOW },
      sessions: [dir],
      target: 'd-ab',
      jobs: 1,
      onJournals: () => {
        if (listings++ > 0) return;
        writeFileSync(`${z}.gz`, gzipSync(readFileSync(z)));
        unlinkSync(z);
      },
    };
    await expect(prepareStreamedTarget(opts)).rejects.toThrow(/ambiguous/);
    expect(listings).toBe(2);
  });

  it('list (newest files first) keeps the archived session\'s rows', async () => {
    const { dir, archive } = tree('list-listed-then-archived');
    const rows = await newestRecentFirst(archivedAfterListing(dir, archive), 2);
    expect(rows?.newest.map((d) => d.id)).toEqual(['d-a', 'd-z']);
    expect(rows?.limits.join('\n')).not.toMatch(/no such file/);
  });

  it('the library\'s analyze() finds a named target in it', async () => {
    const { dir, archive } = tree('analyze-listed-then-archived');
    const { report } = await analyze({ ...archivedAfterListing(dir, archive), target: 'd-z' });
    expect(report.delegations.map((d) => d.id)).toEqual(['d-z']);
  });
});

describe('a journal rewritten between the scan and the read-back', () => {
  it('does not take another event of the same length at a record\'s place for the one the scan saw', async () => {
    const dir = path.join(tmp, 'rewritten-same-length');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 's1.jsonl');
    // d-1 and d-2 write lines of the same lengths: rewritten as d-2 twice, every offset still holds a line.
    writeFileSync(file, delegationLines('s1', 'd-1', 0) + delegationLines('s1', 'd-2', 0));
    const opts = { sessions: [dir], all: true, cwd: ROOT, checkOptions: { nowMs: NOW } };
    const source = await prepareStreamedAll(opts);
    writeFileSync(file, delegationLines('s1', 'd-2', 0) + delegationLines('s1', 'd-2', 0));
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (d: Buffer) => chunks.push(d));
    await writeReportStream(sink, 'json', source, opts, { color: false, failOn: 'none' });
    const doc = JSON.parse(Buffer.concat(chunks).toString()) as { delegations: { key: string }[]; limits: string[] };
    expect(doc.delegations.map((d) => d.key)).toEqual(['d-2']); // not d-2 twice
    expect(doc.limits.join(' ')).toMatch(/^4 delegation lines changed on disk between the scan and the report/);
  });
});
