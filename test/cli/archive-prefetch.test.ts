// Follow mode's replay inflates the next archive ahead; what it hands over must be exactly the
// archive's text, and only while the archive is still the file it was.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchivePrefetch } from '../../src/cli/archive-prefetch.js';

const dir = mkdtempSync(path.join(tmpdir(), 'td-prefetch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An archive of `n` random-text lines (larger than one 64 KiB piece), and its text. */
function archive(name: string, n: number): { file: string; text: Buffer } {
  const text = Buffer.from(Array.from({ length: n }, (_, i) => JSON.stringify({ type: 'llm_round', i, text: randomBytes(500).toString('hex') })).join('\n') + '\n');
  const file = path.join(dir, name);
  writeFileSync(file, gzipSync(text));
  return { file, text };
}

const identity = (file: string) => {
  const st = statSync(file);
  return { size: st.size, mtimeMs: st.mtimeMs };
};

describe('ArchivePrefetch', () => {
  it('hands over the archive\'s text, in pieces, once', async () => {
    const { file, text } = archive('a.jsonl.gz', 400);
    const p = new ArchivePrefetch(64 * 1024);
    p.start(file);
    const chunks = await p.take(file, identity(file));
    expect(chunks!.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks!).equals(text)).toBe(true);
    expect(await p.take(file, identity(file))).toBeNull(); // taken already: its turn reads it
  });

  it('gives nothing for a file that changed since, one never started, one too large, or a damaged one', async () => {
    const p = new ArchivePrefetch(64 * 1024, 100_000);
    const changed = archive('changed.jsonl.gz', 50);
    p.start(changed.file);
    const before = identity(changed.file);
    utimesSync(changed.file, new Date(before.mtimeMs + 5000), new Date(before.mtimeMs + 5000)); // rewritten since
    expect(await p.take(changed.file, identity(changed.file))).toBeNull();

    expect(await p.take(path.join(dir, 'never.jsonl.gz'), { size: 1, mtimeMs: 1 })).toBeNull();

    const large = archive('large.jsonl.gz', 400); // ≈ 400 KB of text, over the 100 KB cap
    p.start(large.file);
    expect(await p.take(large.file, identity(large.file))).toBeNull();

    const damaged = path.join(dir, 'damaged.jsonl.gz');
    const whole = gzipSync(Buffer.from('x'.repeat(10_000)));
    writeFileSync(damaged, whole.subarray(0, whole.length >> 1));
    p.start(damaged);
    expect(await p.take(damaged, identity(damaged))).toBeNull();

    const missing = path.join(dir, 'missing.jsonl.gz');
    p.start(missing);
    expect(await p.take(missing, { size: 0, mtimeMs: 0 })).toBeNull();
  });
});
