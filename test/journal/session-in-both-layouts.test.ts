// One session's journal in both layouts (a legacy <sid>.jsonl left beside its copy under
// v1/users/…/sessions/): its lines are read once, as for a journal and its .jsonl.gz archive,
// so every timeline line is not doubled. Lines that differ are all kept.
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SID = '94e7b0d2-3f5a-4c16-8e9b-a7d3c1f0e548';
const SOURCE = path.join(FIXTURES, 'sessions', 'v1', 'users', 'b64-dXNyXzhjMmU0MQ', 'sessions', `${SID}.jsonl`);

async function report(sessions: string): Promise<{ id: string; timeline: unknown[]; findings: { id: string }[] }[]> {
  const r = await runMain(['--sessions', sessions, '--all', '--format', 'json', '--fail-on', 'none']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).delegations;
}

describe('a session in both layouts', () => {
  it('reads its repeated lines once, and keeps a line only one of them has', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-layouts-'));
    dirs.push(dir);
    const owner = path.join(dir, 'v1', 'users', 'b64-bG9jYWw', 'sessions');
    mkdirSync(owner, { recursive: true });
    cpSync(SOURCE, path.join(owner, `${SID}.jsonl`));
    const alone = await report(dir);
    cpSync(SOURCE, path.join(dir, `${SID}.jsonl`));
    const both = await report(dir);
    expect(both.map((d) => [d.id, d.timeline.length, d.findings.map((f) => f.id)])).toEqual(alone.map((d) => [d.id, d.timeline.length, d.findings.map((f) => f.id)]));
    // The legacy copy went on being written: its new line is kept.
    appendFileSync(path.join(dir, `${SID}.jsonl`), journal(ev.started('2025-11-08T10:30:00.000000000+00:00', { delegation_id: 'd-legacy-only', parent_run_id: 'p-x', pattern: 'fan_out', agent_ids: ['coder'] })));
    const more = await report(dir);
    expect(more.map((d) => d.id)).toEqual([...alone.map((d) => d.id), 'd-legacy-only']);
    expect(more.slice(0, alone.length).map((d) => d.timeline.length)).toEqual(alone.map((d) => d.timeline.length));
  });
});
