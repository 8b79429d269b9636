// A delegation whose timestamps do not parse has no instant for a span or a slice. OTLP names it
// in the resource and still exports the timed delegations nested under it; the Chrome trace keeps
// its findings, at the trace's start, marked untimed. Neither drops them silently.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const OUTER = 'a0000000-0000-4000-8000-000000000001';
const INNER = 'b0000000-0000-4000-8000-000000000002';
const RUN = 'c0000000-0000-4000-8000-000000000003';
const T = 'yesterday at noon';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-untimed-'));
  writeFileSync(
    path.join(dir, 'untimed.jsonl'),
    journal(
      ev.started(T, { delegation_id: OUTER, parent_run_id: 'p0', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T, { delegation_id: OUTER, sub_run_id: RUN, parent_run_id: 'p0', agent_id: 'a' }),
      ev.started('2025-11-07T08:00:01Z', { delegation_id: INNER, parent_run_id: RUN, pattern: 'fan_out', agent_ids: ['b'] }),
      ev.subStarted('2025-11-07T08:00:02Z', { delegation_id: INNER, sub_run_id: 'd0000000-0000-4000-8000-000000000004', parent_run_id: RUN, agent_id: 'b' }),
      ev.subCompleted('2025-11-07T08:00:03Z', { delegation_id: INNER, sub_run_id: 'd0000000-0000-4000-8000-000000000004', agent_id: 'b', status: 'completed', output_preview: 'done' }),
      ev.completed('2025-11-07T08:00:04Z', { delegation_id: INNER, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
      ev.subCompleted(T, { delegation_id: OUTER, sub_run_id: RUN, agent_id: 'a', status: 'failed', error: 'boom' }),
      ev.completed(T, { delegation_id: OUTER, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
    ),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = async (format: string) => {
  const r = await runBin(['--sessions', dir, '--all', '--format', format, '--fail-on', 'none']);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('a delegation without a usable timestamp', () => {
  it('has findings to show (the premise)', async () => {
    const json = await run('json');
    const outer = json.delegations.find((d: { id: string }) => d.id === OUTER);
    expect(outer.findings.length).toBeGreaterThan(0);
  });

  it('otlp: names it in the resource and still exports the timed delegation nested under it', async () => {
    const doc = await run('otlp');
    const [rs] = doc.resourceSpans;
    const untimed = rs.resource.attributes.find((a: { key: string }) => a.key === 'astra.untimed_delegations');
    expect(untimed.value.arrayValue.values).toEqual([{ stringValue: OUTER }]);
    const spans = rs.scopeSpans[0].spans as { attributes: { key: string; value: { stringValue?: string } }[]; parentSpanId?: string }[];
    const ids = spans.map((s) => s.attributes.find((a) => a.key === 'astra.delegation.id')?.value.stringValue);
    expect(ids).toContain(INNER);
    expect(ids).not.toContain(OUTER);
  });

  it('chrome-trace: keeps its findings at the start of the trace, marked untimed', async () => {
    const doc = await run('chrome-trace');
    const events = (doc.traceEvents ?? doc) as { cat?: string; ts?: number; args?: { untimed?: boolean; runs?: string[] } }[];
    const json = await run('json');
    const outer = json.delegations.find((d: { id: string }) => d.id === OUTER);
    const untimed = events.filter((e) => e.cat === 'finding' && e.args?.untimed);
    expect(untimed).toHaveLength(outer.findings.length);
    for (const e of untimed) expect(e.ts).toBe(0);
  });
});
