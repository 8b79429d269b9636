// Gen A's shared delegation.jsonl of another sessions root is another engine's tracker, not the
// archive or live file of this one: it going on says nothing about this root's open delegation.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, runMain } from '../helpers/cli.js';

const CASE = path.join(FIXTURES, 'checks', 'delegation-incomplete', 'trigger-engine-error-shared-archived');
let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

describe('delegation-incomplete across sessions roots', () => {
  it("another root's delegation.jsonl going on later does not make this root's crash an engine error", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'td-tracker-roots-'));
    mkdirSync(path.join(dir, 'host-a'));
    mkdirSync(path.join(dir, 'host-b'));
    // host-a: c9e1's start and its child's start, then nothing. host-b: d0f2, stamped later, whole.
    writeFileSync(path.join(dir, 'host-a', 'delegation.jsonl'), gunzipSync(readFileSync(path.join(CASE, 'delegation.jsonl.gz'))));
    writeFileSync(path.join(dir, 'host-b', 'delegation.jsonl'), readFileSync(path.join(CASE, 'delegation.jsonl')));
    const r = await runMain(['--sessions', path.join(dir, 'host-a'), '--sessions', path.join(dir, 'host-b'), 'c9e1a3b5', '--format', 'json']);
    const findings = JSON.parse(r.stdout).delegations[0].findings.filter((f: { id: string }) => f.id === 'delegation-incomplete');
    expect(findings).toHaveLength(1);
    expect(findings[0].message).toContain('no delegation_completed: crashed');
  });
});
