// Follow mode keeps its events in groups linked by their ids and regroups only the groups new
// events join. Whatever order and batches the events come in, the delegations must be the ones
// grouping every event at once gives.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournals } from '../../src/journal/scan.js';
import type { FileStats, JournalEvent } from '../../src/journal/types.js';
import type { Delegation } from '../../src/model/delegation.js';
import { groupDelegations } from '../../src/model/group.js';
import { DEFAULT_CHECK_OPTIONS } from '../../src/checks/types.js';
import { runChecks } from '../../src/checks/run.js';
import { registerForeignPreviews } from '../../src/model/cross-index.js';
import { LinkedGroups } from '../../src/model/linked-groups.js';
import { delegationOrder } from '../../src/model/target.js';
import { buildDelegationReport } from '../../src/report/build.js';
import { FIXTURES, ROOT } from '../helpers/cli.js';
import { fixtureInputs, random, shuffled } from '../helpers/shuffled.js';


/** A delegation as its report block shows it (children, attempts, timeline, nesting, notes). */
const shape = (ds: Delegation[], files: Map<string, FileStats>) => ds.map((d) => ({ block: buildDelegationReport(d, [], files), notes: d.notes }));

const NOW = Date.parse('2026-06-01T00:00:00Z');
const findingsOf = (d: Delegation, all: Delegation[], files: Map<string, FileStats>) =>
  runChecks({ delegation: d, all, files, options: { ...DEFAULT_CHECK_OPTIONS, nowMs: NOW } }).findings;


describe('linked groups (follow mode)', () => {
  it('give the delegations of grouping every event, whatever the batches and their order', async () => {
    for (const tree of fixtureInputs()) {
      const files = await discoverJournals([tree], ROOT);
      const scan = await scanJournals(files);
      if (scan.events.length === 0) continue;
      const stats = new Map(scan.files.map((f) => [f.file, f]));
      const whole = shape(groupDelegations(scan.events).sort(delegationOrder), stats);
      for (const seed of [1, 2, 3]) {
        const next = random(seed);
        // Events in a shuffled order, in batches of 1 to 5, grouped after some of the batches.
        const order: JournalEvent[] = shuffled(scan.events, next);
        const groups = new LinkedGroups();
        for (let i = 0; i < order.length; ) {
          const n = 1 + Math.floor(next() * 5);
          groups.add(order.slice(i, i + n));
          i += n;
          if (next() < 0.3) groups.delegations();
        }
        const current = groups.delegations();
        expect(shape(current, stats), `${path.relative(ROOT, tree)}, seed ${seed}`).toEqual(whole);
        // Checked against its group and the other groups' outputs, each delegation has the findings
        // it has checked against every delegation (follow mode prints it so).
        const everyOne = groupDelegations(scan.events).sort(delegationOrder);
        const expected = everyOne.map((d) => findingsOf(d, everyOne, stats));
        const got = current.map((d) => {
          const all = groups.linkedTo(d);
          registerForeignPreviews(all, groups.foreignPreviews(all));
          return findingsOf(d, all, stats);
        });
        expect(got, `${path.relative(ROOT, tree)}, seed ${seed}`).toEqual(expected);
      }
    }
  });

  it("searches the current outputs of the other groups only, after regrouping and merging", () => {
    const at = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000000000+00:00`;
    const text = 'an output long enough to be found inside a longer aggregate';
    const loc = (line: number) => ({ file: 'a.jsonl', line, fileIndex: 0, sessionId: 's', time: null, ts: at(line) });
    const completion = (id: string, run: string, line: number, preview: string): JournalEvent => ({
      ...loc(line), type: 'delegation_sub_run_completed', delegationId: id, subRunId: run, agentId: 'coder', status: 'completed', error: null, outputPreview: preview,
    });
    const start = (id: string, run: string, line: number, parent: string): JournalEvent => ({
      ...loc(line), type: 'delegation_sub_run_started', delegationId: id, subRunId: run, parentRunId: parent, agentId: 'coder', status: 'running', depth: 1, retryOf: null,
    });
    const groups = new LinkedGroups();
    const other = 'another output, long enough to be found inside an aggregate too';
    groups.add([completion('d-a', 'r-a', 1, text), completion('d-b', 'r-b', 2, other)]);
    let [a, b] = groups.delegations();
    const found = (d: Delegation, texts = [text]) => {
      const all = groups.linkedTo(d);
      return groups.foreignPreviews(all)(texts).map((r) => `${r.delegation.key}@${r.completion.line}`);
    };
    expect(found(b)).toEqual(['d-a@1']);
    expect(found(a)).toEqual([]); // its own group is not foreign
    // d-a regroups (a new event): its old delegation object is gone from the search.
    groups.add([start('d-a', 'r-a', 3, 'p-a')]);
    [a, b] = groups.delegations();
    expect(found(b)).toEqual(['d-a@1']);
    // d-b's run is now linked to d-a's parent run: the groups merge (d-b's, the smaller, into
    // d-a's), and nothing is foreign.
    groups.add([start('d-b', 'r-b', 4, 'p-a')]);
    const merged = groups.delegations();
    expect(groups.linkedTo(merged[0])).toBe(groups.linkedTo(merged[1]));
    expect(merged.map((d) => found(d, [text, other]))).toEqual([[], []]);
    // A third group sees the merged group's current outputs, each once.
    groups.add([completion('d-c', 'r-c', 5, 'unrelated')]);
    const c = groups.delegations().find((d) => d.key === 'd-c')!;
    expect(found(c, [text, other])).toEqual(['d-a@1', 'd-b@2']);
  });

  it('regroups only what changed, and forgets a file that is read again', async () => {
    const files = await discoverJournals([path.join(FIXTURES, 'sessions')], ROOT);
    const scan = await scanJournals(files);
    const groups = new LinkedGroups();
    groups.add(scan.events);
    const first = groups.delegations();
    expect(groups.stale).toBe(false);
    expect(groups.delegations()).toBe(first); // nothing new: the same list, not regrouped
    const file = scan.events.find((e) => e.type === 'delegation_started')!.fileIndex;
    groups.removeFile(file);
    const rest = scan.events.filter((e) => e.fileIndex !== file);
    expect(groups.delegations().map((d) => d.key)).toEqual(groupDelegations(rest).sort(delegationOrder).map((d) => d.key));
  });

  it('are stale once a file that held every event is removed, so a caller listing only when stale sees none', async () => {
    const files = await discoverJournals([path.join(FIXTURES, 'sessions')], ROOT);
    const scan = await scanJournals(files);
    const only = scan.events.find((e) => e.type === 'delegation_started')!.fileIndex;
    const groups = new LinkedGroups();
    groups.add(scan.events.filter((e) => e.fileIndex === only));
    expect(groups.delegations().length).toBeGreaterThan(0);
    expect(groups.stale).toBe(false);
    groups.removeFile(only);
    expect(groups.stale).toBe(true);
    expect(groups.delegations()).toEqual([]);
    expect(groups.stale).toBe(false);
  });
});
