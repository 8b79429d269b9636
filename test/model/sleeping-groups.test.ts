// Follow mode puts quiet groups of linked delegations to sleep (deflated) and wakes them when a
// new event links to them. Whatever sleeps and wakes, and when, the delegations held and their
// findings must be the ones of a follower that holds every event.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_OPTIONS } from '../../src/checks/types.js';
import { runChecks } from '../../src/checks/run.js';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournals } from '../../src/journal/scan.js';
import type { FileStats, JournalEvent } from '../../src/journal/types.js';
import { registerForeignPreviews } from '../../src/model/cross-index.js';
import type { Delegation } from '../../src/model/delegation.js';
import { groupDelegations } from '../../src/model/group.js';
import { LinkedGroups } from '../../src/model/linked-groups.js';
import { SleepingGroups } from '../../src/model/sleeping-groups.js';
import { delegationOrder } from '../../src/model/target.js';
import { buildDelegationReport } from '../../src/report/build.js';
import { ROOT } from '../helpers/cli.js';
import { fixtureInputs, random, shuffled } from '../helpers/shuffled.js';


const NOW = Date.parse('2026-06-01T00:00:00Z');
const findingsOf = (d: Delegation, all: Delegation[], files: Map<string, FileStats>) =>
  runChecks({ delegation: d, all, files, options: { ...DEFAULT_CHECK_OPTIONS, nowMs: NOW } }).findings;


const at = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000000000+00:00`;
const loc = (line: number, fileIndex = 0) => ({ file: `f${fileIndex}.jsonl`, line, fileIndex, sessionId: 's', time: null, ts: at(line) });
const completion = (id: string, run: string, line: number, preview: string | null | undefined, fileIndex = 0): JournalEvent => ({
  ...loc(line, fileIndex), type: 'delegation_sub_run_completed', delegationId: id, subRunId: run, agentId: 'coder', status: 'completed', error: null, outputPreview: preview,
});

describe('sleeping groups (follow mode)', () => {
  it('give, with the groups held, the delegations and findings of holding every event, whatever sleeps and wakes', async () => {
    let slept = 0;
    let woken = 0;
    for (const tree of fixtureInputs()) {
      const files = await discoverJournals([tree], ROOT);
      const scan = await scanJournals(files);
      if (scan.events.length === 0) continue;
      const stats = new Map(scan.files.map((f) => [f.file, f]));
      const everyOne = groupDelegations(scan.events).sort(delegationOrder);
      const expected = new Map(everyOne.map((d) => [d.key, { block: buildDelegationReport(d, [], stats), findings: findingsOf(d, everyOne, stats) }]));
      for (const seed of [1, 2, 3]) {
        const next = random(seed);
        const order: JournalEvent[] = shuffled(scan.events, next);
        const groups = new LinkedGroups();
        const sleeping = new SleepingGroups();
        for (let i = 0; i < order.length; ) {
          const n = 1 + Math.floor(next() * 5);
          const batch = order.slice(i, i + n);
          i += n;
          // As Follower.hold: the sleeping groups a batch links to wake first.
          const back = sleeping.wakeLinked(batch);
          woken += back.length;
          groups.add(back);
          groups.add(batch);
          groups.delegations();
          // Any group, at random, goes to sleep (the follower picks the quiet ones with nothing to print).
          for (const t of groups.takeQuiet(Date.now() + 1, () => next() < 0.5)) {
            sleeping.put(t.events);
            slept++;
          }
        }
        const held = groups.delegations();
        const label = `${path.relative(ROOT, tree)}, seed ${seed}`;
        for (const d of held) {
          const all = groups.linkedTo(d);
          const foreign = groups.foreignPreviews(all);
          registerForeignPreviews(all, (texts) => [...foreign(texts), ...sleeping.previewsIn(texts)]);
          expect({ block: buildDelegationReport(d, [], stats), findings: findingsOf(d, all, stats) }, `${label}: ${d.key}`).toEqual(expected.get(d.key));
        }
        // Woken by their journals, the sleeping groups give back the rest, exactly.
        const rest: JournalEvent[] = [];
        for (const f of scan.files) rest.push(...sleeping.wakeFile(f.fileIndex).events);
        expect(sleeping.size, label).toBe(0);
        groups.add(rest);
        expect(groups.delegations().map((d) => d.key), label).toEqual(everyOne.map((d) => d.key));
      }
    }
    expect(slept).toBeGreaterThan(100); // the test did put groups to sleep, and woke some
    expect(woken).toBeGreaterThan(100);
  });

  it('gives back events exactly as they were (undefined, -0, Infinity, lone surrogates, instants)', () => {
    const odd: JournalEvent = { ...completion('d\uD800-a', 'r-a', 1, undefined), time: { ms: 1, subNs: 5 }, after: null };
    const start: JournalEvent = { ...loc(2), type: 'delegation_completed', delegationId: 'd\uD800-a', pattern: 'fan_out', totalSubRuns: Number.POSITIVE_INFINITY, succeeded: -0, failed: null, aggregatedStatus: 'completed', aggregatedOutputPreview: null };
    const sleeping = new SleepingGroups();
    sleeping.put([odd, start]);
    expect(sleeping.size).toBe(1);
    const back = sleeping.wakeLinked([completion('d\uD800-a', 'r-b', 3, 'x')]);
    expect(back).toStrictEqual([odd, start]);
    expect(Object.hasOwn(back[0], 'outputPreview')).toBe(true);
    expect(Object.is((back[1] as { succeeded: number }).succeeded, -0)).toBe(true);
    expect(sleeping.size).toBe(0);
    expect(sleeping.wakeLinked([completion('d\uD800-a', 'r-b', 3, 'x')])).toEqual([]); // given back once
  });

  it('wakes a group by any of its ids, or by a journal it has lines in, once', () => {
    const sleeping = new SleepingGroups();
    const a = [completion('d-a', 'r-a', 1, 'a', 0), completion('d-a', 'r-a2', 2, 'a2', 1)];
    const b = [completion('d-b', 'r-b', 3, 'b', 1)];
    sleeping.put(a);
    sleeping.put(b);
    expect(sleeping.wakeLinked([completion('d-x', 'r-a2', 9, 'late')])).toEqual(a); // by a sub-run id
    expect(sleeping.wakeFile(0)).toEqual({ events: [], keys: [] }); // a's only journal-0 group is awake already
    // An orphan (no start here): its instanceKey stands for its key.
    expect(sleeping.wakeFile(1)).toEqual({ events: b, keys: ['\u0001d-b'] });
    expect(sleeping.size).toBe(0);
  });

  it('wakes every group under an id hash that two share (a hash collision)', () => {
    const sleeping = new SleepingGroups();
    const a = [completion('d-a', 'r-same', 1, 'a')];
    const b = [completion('d-b', 'r-same', 2, 'b')]; // cannot happen between linked groups but by a collision
    sleeping.put(a);
    sleeping.put(b);
    expect(sleeping.wakeLinked([completion('d-c', 'r-same', 3, 'c')])).toEqual([...a, ...b]);
    expect(sleeping.size).toBe(0);
  });

  it('finds the outputs of sleeping groups in an aggregate, whole or inside a longer text, without waking them', () => {
    const long = 'an output long enough to be found inside a longer aggregate of several';
    const sleeping = new SleepingGroups();
    const a = [completion('d-a', 'r-a', 1, long), completion('d-a', 'r-b', 2, 'short one')];
    sleeping.put(a);
    const refs = (texts: string[]) => sleeping.previewsIn(texts).map((r) => `${r.delegation.key}@${r.completion.line}`).sort();
    expect(refs(['short one'])).toEqual(['d-a@2']);
    expect(refs([`header\n${long}\nfooter`])).toEqual(['d-a@1']);
    expect(refs(['short', 'unrelated text that is long enough to be windowed over here'])).toEqual([]);
    expect(sleeping.size).toBe(1);
  });
});

describe('linked groups: takeQuiet', () => {
  it('takes only groups grouped, unchanged, quiet since the time given and accepted, and unlinks them', () => {
    const groups = new LinkedGroups();
    groups.add([completion('d-a', 'r-a', 1, 'a'), completion('d-b', 'r-b', 2, 'b')]);
    expect(groups.takeQuiet(Date.now() + 1, () => true)).toEqual([]); // not grouped yet
    groups.delegations();
    expect(groups.takeQuiet(Date.now() - 60_000, () => true)).toEqual([]); // not quiet since then
    const taken = groups.takeQuiet(Date.now() + 1, (ds) => ds[0].key === 'd-a');
    expect(taken.map((t) => t.delegations.map((d) => d.key))).toEqual([['d-a']]);
    expect(groups.stale).toBe(true);
    expect(groups.delegations().map((d) => d.key)).toEqual(['d-b']);
    // d-a's ids no longer link: a new event of it starts a group of its own.
    groups.add([completion('d-a', 'r-a', 3, 'late')]);
    expect(groups.delegations().map((d) => `${d.key}:${d.events.length}`)).toEqual(['d-b:1', 'd-a:1']); // in time order: d-a's event is now the later
    expect(groups.size).toBe(2);
  });
});
