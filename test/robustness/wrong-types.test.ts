/**
 * Values of the wrong type, timestamps that do not parse, and dates at the ends of the calendar:
 * the events are kept where they can be, counted where they cannot, and every format still renders.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain } from '../helpers/cli.js';
import { line } from '../helpers/journal.js';
import { expectHealthy, removeTempDirs, tempDir, writeTree, type JsonStats } from './support.js';

afterAll(removeTempDirs);

interface Doc {
  stats: JsonStats;
  delegations: {
    id: string;
    agents: string[];
    limits: string[];
    status: { totalSubRuns: number | null; succeeded: number | null; failed: number | null; aggregated: string | null };
    children: { attempts: { runId: string; attempt: number; error: string | null; outputPreview: string | null; depth: number | null }[] }[];
    timeline: { ts: string; time: string | null; text: string; file: string; line: number }[];
  }[];
}

/** Writes one journal and returns its JSON report, after every format rendered it without failing. */
const tempRoots = new Map<string, string>();

async function everyFormat(name: string, lines: string[]): Promise<Doc> {
  const root = tempDir(name);
  tempRoots.set(name, root);
  writeTree(root, { [`${name}.jsonl`]: `${lines.join('\n')}\n` });
  for (const format of Object.keys(FORMATTERS)) {
    const r = await runMain(['--sessions', root, '--all', '--format', format]);
    expectHealthy(r, `${name} as ${format}`);
    if (['json', 'sarif', 'otlp', 'chrome-trace'].includes(format)) expect(() => JSON.parse(r.stdout), `${name} as ${format}`).not.toThrow();
    if (format === 'ndjson') for (const l of r.stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(l), `${name} as ndjson`).not.toThrow();
  }
  const r = await runMain(['--sessions', root, '--all', '--format', 'json']);
  return JSON.parse(r.stdout) as Doc;
}

const L = (type: string, ts: unknown, metadata: unknown) => JSON.stringify({ type, ts, session_id: 's-types', metadata });

describe('values of the wrong JSON type', () => {
  it('keeps events with mistyped optional fields, skips and counts events whose ids are not strings', async () => {
    const doc = await everyFormat('types', [
      L('delegation_started', '2026-03-10T10:00:00Z', { delegation_id: 'd-types', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a', 7, null, 'b'], agent_count: '3' }),
      L('delegation_sub_run_started', '2026-03-10T10:00:01Z', { delegation_id: 'd-types', sub_run_id: 'run-a', parent_run_id: 'p', agent_id: 'a', depth: '1', retry_of: 7, status: true }),
      L('delegation_sub_run_completed', '2026-03-10T10:00:02Z', { delegation_id: 'd-types', sub_run_id: 'run-a', agent_id: 'a', status: 'verification_failed', error: { nested: true }, output_preview: [1, 2] }),
      L('delegation_retry', '2026-03-10T10:00:03Z', { delegation_id: 'd-types', original_run_id: 'run-a', retry_run_id: 'run-a2', agent_id: 'a', attempt: null, reason: 42 }),
      L('delegation_sub_run_started', '2026-03-10T10:00:03Z', { delegation_id: 'd-types', sub_run_id: 'run-a2', parent_run_id: 'p', agent_id: 'a', retry_of: 'run-a' }),
      L('delegation_sub_run_completed', '2026-03-10T10:00:04Z', { delegation_id: 'd-types', sub_run_id: 'run-a2', agent_id: 'a', status: 'completed', error: null, output_preview: 'fine' }),
      L('delegation_sub_run_started', '2026-03-10T10:00:05Z', { delegation_id: 42, sub_run_id: 'run-x', parent_run_id: 'p', agent_id: 'b' }), // id is a number
      L('delegation_sub_run_started', '2026-03-10T10:00:05Z', { delegation_id: 'd-types', sub_run_id: null, parent_run_id: 'p', agent_id: 'b' }),
      L('sync_marker', '2026-03-10T10:00:05Z', { action: 'pause', run_id: 5 }), // not run-scoped: not ours
      L('delegation_sub_run_started', 12345, { delegation_id: 'd-types', sub_run_id: 'run-b', parent_run_id: 'p', agent_id: 'b' }), // ts is a number
      L('delegation_completed', '2026-03-10T10:00:09Z', { delegation_id: 'd-types', pattern: 'fan_out', total_sub_runs: '2', succeeded: null, failed: [], aggregated_status: 7 }),
      L('delegation_completed', '2026-03-10T10:00:09Z', 'metadata as a string'),
      L('delegation_completed', '2026-03-10T10:00:09Z', null),
      JSON.stringify(['delegation_started', 'an array, not an object']),
    ]);
    expect(doc.stats).toMatchObject({ lines: 14, events: 8, missingFieldLines: 2, malformedLines: 3, badTimestampLines: 1 });
    const [d] = doc.delegations;
    expect(doc.delegations).toHaveLength(1);
    expect(d.agents).toEqual(['a', 'b']); // non-strings dropped, the count "3" not trusted
    expect(d.status).toMatchObject({ totalSubRuns: null, succeeded: null, failed: null, aggregated: null });
    const chain = d.children.find((c) => c.attempts[0].runId === 'run-a')!;
    expect(chain.attempts.map((a) => [a.runId, a.attempt, a.depth, a.error, a.outputPreview])).toEqual([
      ['run-a', 1, null, null, null],
      ['run-a2', 2, null, null, 'fine'],
    ]);
    // A missing attempt shows as the CLI projection's default (journal-format.md §4), and Limits says so.
    const retry = d.timeline.find((t) => t.text.startsWith('retry:'))!;
    expect(retry.text).toBe('retry: run-a -> run-a2 attempt=2 reason=?');
    expect(d.limits).toContain(`The delegation_retry at ${retry.file}:${retry.line} has no attempt number (missing or not an integer); the timeline shows 2, the CLI projection's default, and retry-attempt-gap does not judge it.`);
    expect(d.timeline.find((t) => t.line === 10)).toMatchObject({ ts: '', time: null });
    // The join's totals and status are of the wrong types: the checks that compare them could not.
    expect(d.limits.filter((l: string) => l.startsWith('The delegation_completed'))).toEqual([
      expect.stringContaining('has total_sub_runs, succeeded, failed missing or not an integer'),
      expect.stringContaining('has no aggregated_status string: status-mismatch could not judge it.'),
      // No aggregated_output_preview key either (as a Gen 0 join): failed-in-aggregate could not look at it.
      expect.stringContaining('has no aggregated_output_preview (absent, as journals of the oldest engine version write none, or not a string)'),
    ]);
  });
});

describe('timestamps that do not parse', () => {
  it('keeps the events in file position, and a Limits line says so', async () => {
    const doc = await everyFormat('bad-ts', [
      line('delegation_started', '2026-03-10T10:00:00Z', { delegation_id: 'd-ts', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a', 'b'], agent_count: 2 }),
      line('delegation_sub_run_started', 'yesterday at noon', { delegation_id: 'd-ts', sub_run_id: 'run-a', parent_run_id: 'p', agent_id: 'a', depth: 1, retry_of: null, status: 'running' }),
      line('delegation_sub_run_started', '2026-03-10T10:00:02Z', { delegation_id: 'd-ts', sub_run_id: 'run-b', parent_run_id: 'p', agent_id: 'b', depth: 1, retry_of: null, status: 'running' }),
      line('delegation_sub_run_completed', '2026-02-30T25:61:61Z', { delegation_id: 'd-ts', sub_run_id: 'run-a', agent_id: 'a', status: 'completed', error: null, output_preview: 'a' }),
      line('delegation_sub_run_completed', '2026-03-10T10:00:03Z', { delegation_id: 'd-ts', sub_run_id: 'run-b', agent_id: 'b', status: 'completed', error: null, output_preview: 'b' }),
      line('delegation_completed', '', { delegation_id: 'd-ts', pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'ab' }),
    ]);
    const [d] = doc.delegations;
    expect(doc.stats.badTimestampLines).toBe(3);
    expect(d.timeline.map((t) => t.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(d.timeline.map((t) => t.time === null)).toEqual([false, true, false, true, false, true]);
    expect(d.timeline[1].ts).toBe('yesterday at noon');
    expect(d.limits).toContain('3 events have a timestamp that does not parse; ordered by file position.');
    // The HTML hover card says so too, instead of an offset computed from a missing time.
    const html = (await runMain(['--sessions', tempRoots.get('bad-ts')!, '--all', '--format', 'html'])).stdout;
    expect(html).toContain('yesterday at noon (timestamp does not parse)');
    expect(html).not.toMatch(/\(−\d+h/);
  });
});

describe('dates far in the past or future', () => {
  it('orders and renders events from year 0 to year 9999 in every format', async () => {
    const doc = await everyFormat('far-dates', [
      line('delegation_started', '0000-01-01T00:00:00Z', { delegation_id: 'd-far', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a', 'b', 'c'], agent_count: 3 }),
      line('delegation_sub_run_started', '0001-01-01T00:00:00.000000001+00:00', { delegation_id: 'd-far', sub_run_id: 'run-a', parent_run_id: 'p', agent_id: 'a', depth: 1, retry_of: null, status: 'running' }),
      line('delegation_sub_run_started', '1969-12-31T23:59:59.999999999-00:30', { delegation_id: 'd-far', sub_run_id: 'run-b', parent_run_id: 'p', agent_id: 'b', depth: 1, retry_of: null, status: 'running' }),
      line('delegation_sub_run_started', '9999-12-31T23:59:59.999999999-14:00', { delegation_id: 'd-far', sub_run_id: 'run-c', parent_run_id: 'p', agent_id: 'c', depth: 1, retry_of: null, status: 'running' }),
      line('delegation_sub_run_completed', '1970-01-01T00:00:00Z', { delegation_id: 'd-far', sub_run_id: 'run-a', agent_id: 'a', status: 'completed', error: null, output_preview: 'a' }),
      line('delegation_sub_run_completed', '9999-12-31T23:59:59Z', { delegation_id: 'd-far', sub_run_id: 'run-b', agent_id: 'b', status: 'failed', error: 'agent execution timeout', output_preview: null }),
      line('delegation_completed', '2026-03-10T10:00:00Z', { delegation_id: 'd-far', pattern: 'fan_out', total_sub_runs: 3, succeeded: 1, failed: 1, aggregated_status: 'partial', aggregated_output_preview: null }),
    ]);
    const [d] = doc.delegations;
    expect(doc.stats.badTimestampLines).toBe(0);
    expect(d.timeline.map((t) => t.time)).toEqual([
      '0000-01-01T00:00:00.000Z',
      '0001-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:29:59.999Z',
      '2026-03-10T10:00:00.000Z',
      '9999-12-31T23:59:59.000Z',
      '+010000-01-01T13:59:59.999Z',
    ]);
    // OTLP times are unsigned 64-bit nanoseconds: instants outside 1970…2554 are left out, never sent negative or overflowing.
    const otlp = (await runMain(['--sessions', tempRoots.get('far-dates')!, '--all', '--format', 'otlp'])).stdout;
    const times = [...otlp.matchAll(/"(?:start|end)?[tT]imeUnixNano": "(-?\d+)"/g)].map((m) => BigInt(m[1]));
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) expect(t >= 0n && t < 1n << 64n, String(t)).toBe(true);
  });
});
