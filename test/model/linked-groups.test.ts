// Follow mode keeps its events in groups linked by their ids and regroups only the groups new
// events join. Whatever order and batches the events come in, the delegations must be the ones
// grouping every event at once gives.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournals } from '../../src/journal/scan.js';
import type { FileStats, JournalEvent } from '../../src/journal/types.js';
import type { Delegation } from '../../src/model/delegation.js';
import { groupDelegations } from '../../src/model/group.js';
import { LinkedGroups } from '../../src/model/linked-groups.js';
import { delegationOrder } from '../../src/model/target.js';
import { buildDelegationReport } from '../../src/report/build.js';
import { FIXTURES, ROOT } from '../helpers/cli.js';

/** Every fixture tree, and every folder of check cases. */
function inputs(): string[] {
  const trees = ['sessions', 'formats', 'join', 'safe', 'hostile', 'contracts'].map((t) => path.join(FIXTURES, t));
  const checks = readdirSync(path.join(FIXTURES, 'checks')).map((d) => path.join(FIXTURES, 'checks', d)).filter((d) => statSync(d).isDirectory());
  return [...trees, ...checks];
}

/** A delegation as its report block shows it (children, attempts, timeline, nesting, notes). */
const shape = (ds: Delegation[], files: Map<string, FileStats>) => ds.map((d) => ({ block: buildDelegationReport(d, [], files), notes: d.notes }));

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('linked groups (follow mode)', () => {
  it('give the delegations of grouping every event, whatever the batches and their order', async () => {
    for (const tree of inputs()) {
      const files = await discoverJournals([tree], ROOT);
      const scan = await scanJournals(files);
      if (scan.events.length === 0) continue;
      const stats = new Map(scan.files.map((f) => [f.file, f]));
      const whole = shape(groupDelegations(scan.events).sort(delegationOrder), stats);
      for (const seed of [1, 2, 3]) {
        const next = random(seed);
        // Events in a shuffled order, in batches of 1 to 5, grouped after some of the batches.
        const order: JournalEvent[] = [...scan.events];
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(next() * (i + 1));
          [order[i], order[j]] = [order[j], order[i]];
        }
        const groups = new LinkedGroups();
        for (let i = 0; i < order.length; ) {
          const n = 1 + Math.floor(next() * 5);
          groups.add(order.slice(i, i + n));
          i += n;
          if (next() < 0.3) groups.delegations();
        }
        expect(shape(groups.delegations(), stats), `${path.relative(ROOT, tree)}, seed ${seed}`).toEqual(whole);
      }
    }
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
});
