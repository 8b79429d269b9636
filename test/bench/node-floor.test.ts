import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The benchmark's Node scans must parse exactly the delegation lines, or their times mean nothing.
const SCRIPT = path.resolve(__dirname, '../../bench/node_floor.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'td-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A journal of `n` lines, every `every`-th a delegation event, with filler long enough to straddle 256 KiB reads. */
function journal(name: string, n: number, every: number, lastNewline: boolean): { file: string; expected: number; quoting: number } {
  const lines: string[] = [];
  let expected = 0;
  let quoting = 0;
  for (let i = 0; i < n; i++) {
    if (i % every === 0) {
      lines.push(JSON.stringify({ type: 'delegation_started', delegation_id: `d${i}`, note: 'x'.repeat(i % 700) }));
      expected++;
    } else if (i % 50 === 1) {
      // Not an event: a transcript that quotes one. The lean scan's head test drops it; the reference's needle does not.
      lines.push(JSON.stringify({ type: 'transcript_item', text: '{"type":"delegation_started"}' }));
      quoting++;
    } else lines.push(JSON.stringify({ type: 'llm_round', text: 'y'.repeat((i * 37) % 9000) }));
  }
  const file = path.join(dir, name);
  writeFileSync(file, lines.join('\n') + (lastNewline ? '\n' : ''));
  return { file, expected, quoting };
}

function run(threads: number, mode: string, files: string[]): string {
  const r = spawnSync(process.execPath, [SCRIPT, String(threads), mode, ...files], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

describe('bench/node_floor.mjs', () => {
  const a = journal('a.jsonl', 400, 7, true); // ≈ 1.8 MB: several reads, lines across their edges
  const b = journal('b.jsonl', 120, 3, false); // ends on a delegation line without its newline

  it('the lean floor parses every delegation line and nothing else, on one thread and on two', () => {
    const total = String(a.expected + b.expected);
    expect(run(1, '--lean', [a.file, b.file])).toBe(total);
    expect(run(2, '--lean', [a.file, b.file])).toBe(total);
  });

  it('the reference scan parses every line holding the needle, as BENCHMARKS.md\'s script does', () => {
    const total = String(a.expected + b.expected + a.quoting + b.quoting);
    expect(a.quoting).toBeGreaterThan(0);
    expect(run(1, '--reference', [a.file, b.file])).toBe(total);
    expect(run(2, '--reference', [a.file, b.file])).toBe(total);
  });

  it('refuses to run without a mode or files', () => {
    for (const args of [['2'], ['2', '--lean'], ['2', 'a.jsonl']]) {
      const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/usage/);
    }
  });
});
