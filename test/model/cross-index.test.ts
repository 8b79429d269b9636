import { describe, expect, it } from 'vitest';
import { delegationsByParentRun, previewIndex, previewsIn, runsById } from '../../src/model/cross-index.js';
import { ev } from '../helpers/journal.js';
import { group } from '../helpers/events.js';

const LONG = 'Refactored the retry loop in client.rs to use jittered backoff'; // 62 characters
const TRUNCATED = `${'x'.repeat(500)}…`;

const all = group({
  'a.jsonl': [
    ev.started('2026-01-05T10:00:00Z', { delegation_id: 'd-1', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['a', 'b', 'c'] }),
    ev.subStarted('2026-01-05T10:00:01Z', { delegation_id: 'd-1', sub_run_id: 'r-a', parent_run_id: 'p-1', agent_id: 'a' }),
    ev.subCompleted('2026-01-05T10:00:02Z', { delegation_id: 'd-1', sub_run_id: 'r-a', agent_id: 'a', status: 'completed', output_preview: '  ok  ' }),
    ev.subCompleted('2026-01-05T10:00:03Z', { delegation_id: 'd-1', sub_run_id: 'r-b', agent_id: 'b', status: 'completed', output_preview: LONG }),
    ev.subCompleted('2026-01-05T10:00:04Z', { delegation_id: 'd-1', sub_run_id: 'r-c', agent_id: 'c', status: 'completed', output_preview: TRUNCATED }),
    ev.started('2026-01-05T11:00:00Z', { delegation_id: 'd-2', parent_run_id: 'p-1', pattern: 'fan_out', agent_ids: ['a'] }),
    ev.subStarted('2026-01-05T11:00:01Z', { delegation_id: 'd-2', sub_run_id: 'r-a', parent_run_id: 'p-1', agent_id: 'a' }),
  ],
});

describe('cross-delegation index', () => {
  it('is built once per delegation list', () => {
    expect(previewIndex(all)).toBe(previewIndex(all));
    expect(previewIndex([...all])).not.toBe(previewIndex(all));
  });

  it('finds previews by whole segment (trimmed) and, from 40 characters, inside a text', () => {
    const texts = (refs: ReturnType<typeof previewsIn>) => refs.map((r) => r.run.runId).sort();
    expect(texts(previewsIn(all, ['ok']))).toEqual(['r-a']);
    expect(texts(previewsIn(all, ['it is ok now']))).toEqual([]); // short previews only match whole segments
    expect(texts(previewsIn(all, [`Reviewed "${LONG}": fine`]))).toEqual(['r-b']);
    // A truncated preview matches by the 500 characters it kept.
    expect(texts(previewsIn(all, [`prefix ${'x'.repeat(500)} suffix`]))).toEqual(['r-c']);
  });

  it('indexes run ids and parent runs across delegations', () => {
    expect(runsById(all).get('r-a')!.map((r) => r.delegation.id)).toEqual(['d-1', 'd-2']);
    expect(delegationsByParentRun(all).get('p-1')!.map((d) => d.id)).toEqual(['d-1', 'd-2']);
  });
});
