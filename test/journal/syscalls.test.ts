// How many file-system calls a scan makes per journal: a laptop with months of sessions holds
// tens of thousands of small files, where each call costs more than the bytes it reads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournalsParallel } from '../../src/journal/parallel.js';
import { ev, journal } from '../helpers/journal.js';

// The scanner's own bindings of node:fs, counted (a spy on the module object would not see them).
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const counted = <F extends (...args: never[]) => unknown>(f: F) => vi.fn(f);
  return { ...real, default: real, statSync: counted(real.statSync), fstatSync: counted(real.fstatSync), readSync: counted(real.readSync), openSync: counted(real.openSync) };
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
});
