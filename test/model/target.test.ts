import { describe, expect, it } from 'vitest';
import type { Delegation } from '../../src/model/delegation.js';
import { delegationOrder, resolveTarget } from '../../src/model/target.js';
import { group } from '../helpers/events.js';
import { line } from '../helpers/journal.js';

const T = (s: number) => `2025-11-03T09:15:${String(s).padStart(2, '0')}.000000000+00:00`;
const start = (s: number, id: string, parent: string, sid = 'sess-1') =>
  line('delegation_started', T(s), { agent_count: 1, agent_ids: ['x'], delegation_id: id, parent_run_id: parent, pattern: 'fan_out' }, sid);
const sub = (s: number, id: string, run: string, parent: string, sid = 'sess-1') =>
  line('delegation_sub_run_started', T(s), { agent_id: 'x', delegation_id: id, depth: 1, parent_run_id: parent, retry_of: null, status: 'running', sub_run_id: run }, sid);

const keys = (r: ReturnType<typeof resolveTarget>) => (r.ok ? r.delegations.map((d) => d.key) : r.reason === 'ambiguous' ? r.candidates.map((d) => d.key) : r.reason);
const kind = (r: ReturnType<typeof resolveTarget>) => (r.ok ? r.kind : r.reason);

// One corpus exercising every kind of target:
//   abc123 (parent p-1), abc456 (parent p-1), abd999 (parent abc123: a parent run id that is also
//   a delegation id), sess-2 holds zz-1 and its sub-run; zz-1#2 reuses zz-1; nested-in runs under run r-1.
const ds: Delegation[] = group({
  'sess-1.jsonl': [start(1, 'abc123', 'p-1'), sub(2, 'abc123', 'r-1', 'p-1'), start(3, 'abc456', 'p-1'), start(4, 'abd999', 'abc123'), start(5, 'nested-in', 'r-1'), start(6, 'sess-2', 'p-9')],
  'sess-2.jsonl': [start(7, 'zz-1', 'p-2', 'sess-2'), sub(8, 'zz-1', 'z-run', 'p-2', 'sess-2'), start(9, 'zz-1', 'p-3', 'sess-2')],
  // A file whose lines carry no session_id: its session is known only from the file name.
  'legacy-s.jsonl': [JSON.stringify({ type: 'delegation_started', ts: T(10), metadata: { agent_count: 1, agent_ids: ['x'], delegation_id: 'legacy-d', parent_run_id: 'p-4', pattern: 'fan_out' } })],
}).sort(delegationOrder);
const sessionFiles = new Map([
  ['sess-1', ['sess-1.jsonl']],
  ['sess-2', ['sess-2.jsonl']],
  ['legacy-s', ['legacy-s.jsonl']],
]);
const resolve = (q: string | undefined) => resolveTarget(q, ds, sessionFiles);

describe('resolveTarget', () => {
  it('an exact delegation id selects it, with its nested descendants', () => {
    const r = resolve('abc123');
    expect(kind(r)).toBe('delegation');
    expect(keys(r)).toEqual(['abc123', 'nested-in']);
  });

  it('a reused id selects every delegation that carries it; the key selects one', () => {
    expect(keys(resolve('zz-1'))).toEqual(['zz-1', 'zz-1#2']);
    expect(keys(resolve('zz-1#2'))).toEqual(['zz-1#2']);
  });

  it('an exact parent run id selects all delegations it started', () => {
    const r = resolve('p-1');
    expect(kind(r)).toBe('parent-run');
    expect(keys(r)).toEqual(['abc123', 'abc456', 'nested-in']);
    expect(keys(resolve('r-1'))).toEqual(['nested-in']);
  });

  it('a delegation id wins over the same string used as a parent run id', () => {
    expect(kind(resolve('abc123'))).toBe('delegation');
    expect(keys(resolve('abc123'))).not.toContain('abd999');
  });

  it('a session id selects delegations with any event in it, from session_id or from the file name', () => {
    const r = resolve('sess-1');
    expect(kind(r)).toBe('session');
    expect(keys(r)).toEqual(['abc123', 'abc456', 'abd999', 'nested-in', 'sess-2']);
    expect(keys(resolve('legacy-s'))).toEqual(['legacy-d']);
  });

  it('an exact delegation id wins over a session of the same name', () => {
    const r = resolve('sess-2');
    expect(kind(r)).toBe('delegation');
    expect(keys(r)).toEqual(['sess-2']);
  });

  it('a unique prefix selects its delegation; an ambiguous one lists every candidate in start order', () => {
    expect(kind(resolve('abd'))).toBe('prefix');
    expect(keys(resolve('abd'))).toEqual(['abd999']);
    expect(keys(resolve('abc4'))).toEqual(['abc456']);
    const r = resolve('ab');
    expect(kind(r)).toBe('ambiguous');
    expect(keys(r)).toEqual(['abc123', 'abc456', 'abd999']);
  });

  it('a prefix shared by one reused id is not ambiguous', () => {
    expect(kind(resolve('zz'))).toBe('prefix');
    expect(keys(resolve('zz'))).toEqual(['zz-1', 'zz-1#2']);
  });

  it('an exact parent run id wins over a prefix of delegation ids', () => {
    const local = group({ 's.jsonl': [start(1, 'p-10-a', 'x'), start(2, 'p-10-b', 'x'), start(3, 'other', 'p-10')] });
    expect(kind(resolveTarget('p-10', local))).toBe('parent-run');
    expect(keys(resolveTarget('p-10', local))).toEqual(['other']);
  });

  it('a name nothing matches is unknown', () => {
    expect(kind(resolve('nope'))).toBe('unknown');
    expect(kind(resolve('z-run'))).toBe('unknown'); // a sub-run id is not a target
  });

  it('last, empty or omitted selects the most recent delegation_started', () => {
    for (const q of [undefined, '', 'last']) {
      const r = resolve(q);
      expect(kind(r)).toBe('last');
      expect(keys(r)).toEqual(['legacy-d']);
    }
  });

  it('last ignores orphans, and the newest start brings its nested delegations', () => {
    const local = group({
      's.jsonl': [start(1, 'old', 'p'), start(2, 'outer', 'p'), sub(3, 'outer', 'o-1', 'p'), sub(4, 'inner', 'i-1', 'o-1')],
    });
    expect(keys(resolveTarget('last', local))).toEqual(['outer']);
    const withInner = group({ 's.jsonl': [start(1, 'outer', 'p'), sub(2, 'outer', 'o-1', 'p'), start(3, 'inner', 'o-1'), start(4, 'early-looking', 'q').replace(T(4), T(0))] });
    expect(keys(resolveTarget(undefined, withInner))).toEqual(['inner']);
  });

  it('last with no delegation_started at all is empty', () => {
    const orphans = group({ 's.jsonl': [sub(1, 'lost', 'r', 'p')] });
    expect(kind(resolveTarget('last', orphans))).toBe('empty');
    expect(kind(resolveTarget('last', []))).toBe('empty');
  });

  it('orders blocks by start time, then file and line', () => {
    const local = group({ 'b.jsonl': [start(5, 'late', 'p')], 'a.jsonl': [start(1, 'early', 'p'), start(5, 'tie-later-file', 'p')] });
    expect([...local].sort(delegationOrder).map((d) => d.key)).toEqual(['early', 'late', 'tie-later-file']);
  });
});

describe('resolveTarget without a journaled delegation_started', () => {
  it('a parent run id finds a delegation known only from its sub-run starts, not one whose start names another parent', () => {
    const local = group({
      's.jsonl': [sub(1, 'startless', 'r-1', 'p-7'), start(2, 'started', 'p-8'), sub(3, 'started', 'r-2', 'p-7')],
    });
    expect(kind(resolveTarget('p-7', local))).toBe('parent-run');
    expect(keys(resolveTarget('p-7', local))).toEqual(['startless']);
    expect(keys(resolveTarget('p-8', local))).toEqual(['started']);
  });
});
