// How many file-system calls a scan makes per journal: a laptop with months of sessions holds
// tens of thousands of small files, where each call costs more than the bytes it reads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournalsParallel } from '../../src/journal/parallel.js';
import { ev, journal } from '../helpers/journal.js';

// The scanner's own bindings of node:fs, counted (a spy on the module object would not see them).
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const counted = <F extends (...args: never[]) => unknown>(f: F) => vi.fn(f);
  return {
    ...real,
    default: real,
    statSync: counted(real.statSync),
    fstatSync: counted(real.fstatSync),
    readSync: counted(real.readSync),
    openSync: counted(real.openSync),
    createReadStream: counted(real.createReadStream),
  };
});

const root = mkdtempSync(path.join(tmpdir(), 'td-syscalls-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (let i = 0; i < 20; i++)
  writeFileSync(path.join(root, `s-${i}.jsonl`), journal(ev.started(`2026-01-0${1 + (i % 9)}T10:00:00.000000000+00:00`, { delegation_id: `d-${i}`, parent_run_id: `p-${i}`, pattern: 'fan_out', agent_ids: ['a'] })));

describe('system calls per journal (one scan thread)', () => {
  it('a small plain file takes one open, one fstat and one read; its path is not stat-ed, and the loop is not turned', async () => {
    const files = await discoverJournals([root], root);
    const counts = [fs.statSync, fs.fstatSync, fs.readSync, fs.openSync] as unknown as ReturnType<typeof vi.fn>[];
    for (const c of counts) c.mockClear();
    const turns = vi.spyOn(globalThis, 'setImmediate');
    const scan = await scanJournalsParallel(files, { jobs: 1 });
    expect(turns, 'a turn of the event loop per file, with nothing waiting for it').not.toHaveBeenCalled();
    turns.mockRestore();
    expect(scan.events.map((e) => e.type)).toEqual(Array(20).fill('delegation_started'));
    expect(scan.files.every((f) => f.error === null && f.mtimeMs > 0)).toBe(true);
    const [stat, fstat, read, open] = counts.map((c) => c.mock.calls.length);
    expect({ stat, fstat, read, open }).toEqual({ stat: 0, fstat: 20, read: 20, open: 20 });
  });

  it('a small archive is inflated in one call; a large one, or one that inflates past 16 MiB, is streamed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-archives-'));
    try {
      const started = (i: number) => ev.started(`2026-02-01T10:00:0${i}.000000000+00:00`, { delegation_id: `a-${i}`, parent_run_id: `p-a-${i}`, pattern: 'fan_out', agent_ids: ['a'] });
      for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, `small-${i}.jsonl.gz`), gzipSync(journal(started(i))));
      // Two gzip members one after the other (an archive appended to): both are read.
      writeFileSync(path.join(dir, 'members.jsonl.gz'), Buffer.concat([gzipSync(journal(started(7))), gzipSync(journal(started(8)))]));
      // Incompressible padding: well over 64 KiB once gzipped.
      const noise = JSON.stringify({ type: 'llm_round', ts: '2026-02-01T10:00:00Z', data: randomBytes(120_000).toString('base64') });
      writeFileSync(path.join(dir, 'large.jsonl.gz'), gzipSync(`${noise}\n${journal(started(5))}`));
      // A few KiB that inflate to 24 MiB: not held whole.
      const filler = `${JSON.stringify({ type: 'turn', ts: '2026-02-01T10:00:00Z', text: 'x'.repeat(4000) })}\n`.repeat(6 * 1024);
      const bomb = gzipSync(`${filler}${journal(started(6))}`, { level: 9 });
      expect(bomb.length).toBeLessThan(64 * 1024);
      writeFileSync(path.join(dir, 'bomb.jsonl.gz'), bomb);
      const files = await discoverJournals([dir], dir);
      const streams = fs.createReadStream as unknown as ReturnType<typeof vi.fn>;
      streams.mockClear();
      const scan = await scanJournalsParallel(files, { jobs: 1 });
      expect(scan.events.map((e) => e.type === 'delegation_started' && e.delegationId).sort()).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'a-4', 'a-5', 'a-6', 'a-7', 'a-8']);
      expect(scan.files.every((f) => f.error === null)).toBe(true);
      expect(streams.mock.calls.map(([p]) => path.basename(String(p))).sort()).toEqual(['bomb.jsonl.gz', 'large.jsonl.gz']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
