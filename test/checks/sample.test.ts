import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { runMain } from '../helpers/cli.js';
import { NOW_MS, ROOT } from './harness.js';

/** The engine sample, copied from the workspace's shared/samples (Gen B: a fan_out with a verification retry, a sequential with a timeout). */
const SAMPLE = path.resolve(ROOT, 'fixtures', 'samples', 'astra-sample.jsonl');

describe('astra-sample.jsonl', () => {
  // The copy keeps a lone clone's tests whole; beside the workspace it must stay the shared file.
  const shared = path.resolve(ROOT, '..', 'shared', 'samples', 'astra-sample.jsonl');
  it.runIf(existsSync(shared))('is the workspace\'s shared sample, byte for byte', () => {
    expect(readFileSync(SAMPLE).equals(readFileSync(shared))).toBe(true);
  });

  it('produces nothing above info from any check', async () => {
    const { report } = await analyze({ sessions: [SAMPLE], all: true, cwd: ROOT, env: {}, checkOptions: { nowMs: NOW_MS } });
    expect(report.delegations.map((d) => d.id)).toEqual(['b7a2e915-3c6d-4f80-9e14-5d2c8a7b6f31', 'e19c4d73-8a2b-4e6f-b5d0-3f7a9c1e2b84']);
    const findings = report.delegations.flatMap((d) => d.findings);
    expect(findings.filter((f) => f.severity !== 'info').map((f) => `[${f.severity}] ${f.id}: ${f.message}`)).toEqual([]);
    // What it does say is information the journal cannot settle: the inferred stop and the timeout.
    expect(findings.map((f) => f.id).sort()).toEqual(['sequential-stopped-early', 'timeout-as-failure']);
    expect(report.summary).toMatchObject({ error: 0, warning: 0, info: 2 });
  });

  it('exits 0 from the CLI with --fail-on warning', async () => {
    const { code, stderr } = await runMain(['--sessions', path.dirname(SAMPLE), '--all', '--fail-on', 'warning']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
