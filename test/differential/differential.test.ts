// The differential harness (test/differential/README.md) on a few seeds, through the built
// binary, so it cannot rot: every road must agree. `npm test` builds first.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSeed } from './run.mjs';

describe('differential harness', () => {
  // Trees with nested and reused ids, retries, archives, Gen A's shared delegation.jsonl, torn lines and damaged events.
  it('seed 29: --all three ways, named targets, last, list, --stdin, gzip and a rotated pair agree', () => {
    expect(checkSeed(29, { maxTargets: 1 })).toEqual([]);
  });

  it.each([37, 32])('seed %i: --all three ways, last and list agree', (seed) => {
    expect(checkSeed(seed, { only: ['all', 'last', 'list'] })).toEqual([]);
  });

  it('reports a road that disagrees, with a repro', () => {
    // A CLI that drops one finding when every event is held in memory.
    const dir = mkdtempSync(path.join(tmpdir(), 'td-diff-fake-'));
    try {
      const fake = path.join(dir, 'fake.cjs');
      const real = path.resolve(__dirname, '../../bin/trace-delegation.cjs');
      writeFileSync(
        fake,
        `const r = require('node:child_process').spawnSync(process.execPath, [${JSON.stringify(real)}, ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'inherit'], maxBuffer: 1 << 30 });
let out = r.stdout.toString();
if (process.env.TRACE_DELEGATION_INDEXED === '0') { const d = JSON.parse(out); d.delegations.find((x) => x.findings.length)?.findings.pop(); out = JSON.stringify(d, null, 2); }
process.stdout.write(out); process.exitCode = r.status;`,
      );
      const problems = checkSeed(5, { cli: fake, only: ['all'] });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^seed 5 \[in-memory\]:\n {2}ROOT=.*gen\.mjs 5 \$ROOT\n {2}TRACE_DELEGATION_INDEXED=0 node .*fake\.cjs --sessions \$ROOT .*--all\n {2}at line \d+:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
