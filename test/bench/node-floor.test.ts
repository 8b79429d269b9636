import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The benchmark's Node floor must parse exactly the delegation lines, or its time means nothing.
const SCRIPT = path.resolve(__dirname, '../../bench/node_floor.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'td-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A journal of `n` lines, every `every`-th a delegation event, with filler long enough to straddle 256 KiB reads. */
function journal(name: string, n: number, every: number, lastNewline: boolean): { file: string; expected: number } {
  const lines: string[] = [];
  let expected = 0;
  for (let i = 0; i < n; i++) {
    if (i % every === 0) {
      lines.push(JSON.stringify({ type: 'delegation_started', delegation_id: `d${i}`, note: 'x'.repeat(i % 700) }));
      expected++;
    } else lines.push(JSON.stringify({ type: 'llm_round', text: 'y'.repeat((i * 37) % 9000) }));
  }
  const file = path.join(dir, name);
  writeFileSync(file, lines.join('\n') + (lastNewline ? '\n' : ''));
  return { file, expected };
}

function run(threads: number, files: string[]): string {
  const r = spawnSync(process.execPath, [SCRIPT, String(threads), ...files], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

describe('bench/node_floor.mjs', () => {
  const a = journal('a.jsonl', 400, 7, true); // ≈ 1.8 MB: several reads, lines across their edges
  const b = journal('b.jsonl', 120, 3, false); // ends on a delegation line without its newline

  it('parses every delegation line, on one thread and on two', () => {
    const total = String(a.expected + b.expected);
    expect(run(1, [a.file, b.file])).toBe(total);
    expect(run(2, [a.file, b.file])).toBe(total);
  });

  it('refuses to run without files', () => {
    const r = spawnSync(process.execPath, [SCRIPT, '2'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage/);
  });
});
