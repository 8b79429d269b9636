// An onFile that throws stops the scan with its error, also while this thread inflates an archive:
// the archive's record then throws too, and that must not escape as an unhandled rejection
// (Node ends the caller's process on one).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournalsParallel } from '../../src/journal/parallel.js';
import { ROOT } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const TS = (s: number) => `2025-11-03T09:00:${String(s).padStart(2, '0')}+00:00`;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-stop-archive-'));
  for (let i = 0; i < 4; i++) {
    const text = journal(ev.started(TS(i), { delegation_id: `d-${i}`, parent_run_id: `p-${i}`, pattern: 'fan_out', agent_ids: ['coder'] }));
    // Archives first and last, plain files between: an archive is in flight while a plain file's record throws.
    if (i % 3 === 0) writeFileSync(path.join(dir, `s-${i}.jsonl.gz`), gzipSync(text));
    else writeFileSync(path.join(dir, `s-${i}.jsonl`), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a scan stopped by onFile', () => {
  for (const jobs of [1, 2]) {
    it(`rejects with onFile's error and leaves no unhandled rejection (jobs ${jobs})`, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const files = await discoverJournals([dir], ROOT);
        expect(files.some((f) => f.path.endsWith('.gz'))).toBe(true);
        const onFile = () => {
          throw new Error('stop reading');
        };
        await expect(scanJournalsParallel(files, { jobs, minParallelBytes: 0, onFile })).rejects.toThrow('stop reading');
        // The archives still in flight settle after the rejection: wait for them.
        await new Promise((r) => setTimeout(r, 300));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    }, 15_000);
  }
});

describe('an onFile that throws while a file is being read (progress within a large file)', () => {
  it('stops the scan with its error, not as the file read cut short', async () => {
    const big = mkdtempSync(path.join(tmpdir(), 'td-stop-big-'));
    try {
      const filler = JSON.stringify({ type: 'llm_round', ts: TS(1), session_id: 's', metadata: { text: 'x'.repeat(1000) } });
      const lines = [ev.started(TS(0), { delegation_id: 'd', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] }), ...Array.from({ length: 6000 }, () => filler)];
      writeFileSync(path.join(big, 's.jsonl'), journal(...lines)); // ≈ 6 MB: progress is told within it
      const files = await discoverJournals([big], ROOT);
      let thrown = false;
      // Once, as a caller giving up at a deadline might: the read must not swallow it as the file's error.
      const onFile = () => {
        if (thrown) return;
        thrown = true;
        throw new Error('stop reading');
      };
      await expect(scanJournalsParallel(files, { jobs: 1, onFile })).rejects.toThrow('stop reading');
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });
});
