// Follow mode keeps its replay as an event index: dormant groups of linked delegations, woken
// by a new event that shares an id with them (src/model/dormant-components.ts).
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { indexJournalsParallel } from '../../src/journal/parallel.js';
import type { JournalEvent } from '../../src/journal/types.js';
import { streamDelegations } from '../../src/model/component-stream.js';
import type { Delegation } from '../../src/model/delegation.js';
import { DormantComponents } from '../../src/model/dormant-components.js';
import { FIXTURES, ROOT } from '../helpers/cli.js';

async function indexed(tree: string) {
  const files = await discoverJournals([path.isAbsolute(tree) ? tree : path.join(FIXTURES, tree)], ROOT);
  const { index } = await indexJournalsParallel(files, { jobs: 1 });
  return { files, index };
}

const keysOf = (all: readonly Delegation[]) => all.map((d) => d.key);
const lineOf = (e: JournalEvent) => `${e.fileIndex}:${e.line}`;

describe('DormantComponents', () => {
  const trees = ['sessions', 'formats', 'join', 'safe', 'hostile', ...readdirSync(path.join(FIXTURES, 'checks')).map((c) => `checks/${c}`)];
  it.each(trees)('replays the %s tree as the streamed --all gives it: same delegations, order and groups', async (tree) => {
    const a = await indexed(tree);
    const streamed = [...streamDelegations(a.index, a.files).items].map((i) => [i.delegation.key, keysOf(i.all), i.delegation.events.length]);
    const b = await indexed(tree);
    const replayed = [...new DormantComponents(b.index, b.files).replay()].map((i) => [i.delegation.key, keysOf(i.all), i.delegation.events.length]);
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed).toEqual(streamed);
  });

  it('wakes the group a new event shares an id with, once, and leaves the others dormant', async () => {
    const { files, index } = await indexed('sessions');
    const dormant = new DormantComponents(index, files);
    const items = [...dormant.replay()];
    const groups = new Map<number, Delegation[]>();
    for (const i of items) groups.set(i.component, i.all);
    expect(groups.size).toBeGreaterThan(2);
    const [c, all] = [...groups][1];
    const late = all[0].events[all[0].events.length - 1]; // an event carrying the group's ids
    const { woken, failure } = dormant.wakeLinked([late]);
    expect(failure).toBeNull();
    const expected = new Set(all.flatMap((d) => d.events.map(lineOf)));
    expect(new Set(woken.map(lineOf))).toEqual(expected);
    expect(dormant.wakeLinked([late])).toEqual({ woken: [], failure: null }); // awake now: the caller holds its events
    expect(dormant.wake(c)).toEqual([]);
    const [other] = [...groups].find(([k]) => k !== c)!;
    expect(dormant.wake(other).length).toBeGreaterThan(0); // still dormant until then
  });

  it('searches the output previews of dormant groups only', async () => {
    const { files, index } = await indexed('sessions');
    const dormant = new DormantComponents(index, files);
    const items = [...dormant.replay()];
    const item = items.find((i) => i.delegation.events.some((e) => e.type === 'delegation_sub_run_completed' && typeof e.outputPreview === 'string' && e.outputPreview.trim()))!;
    const completion = item.delegation.events.find((e) => e.type === 'delegation_sub_run_completed' && typeof e.outputPreview === 'string' && e.outputPreview.trim())!;
    const text = (completion as { outputPreview: string }).outputPreview.trim();
    expect(dormant.previews([text]).map((p) => p.text)).toContain(text);
    dormant.wake(item.component);
    expect(dormant.previews([text]).filter((p) => p.completion.file === completion.file && p.completion.line === completion.line)).toEqual([]);
  });

  it('keeps a group dormant while one of its journals cannot be read back, and wakes it whole once it can', async () => {
    const tree = mkdtempSync(path.join(os.tmpdir(), 'td-dormant-'));
    try {
      cpSync(path.join(FIXTURES, 'sessions'), tree, { recursive: true });
      const { files, index } = await indexed(tree);
      const dormant = new DormantComponents(index, files);
      const item = [...dormant.replay()].find((i) => new Set(i.delegation.events.map((e) => e.fileIndex)).size === 1)!;
      const late = item.delegation.events[item.delegation.events.length - 1];
      const journal = files[late.fileIndex].path;
      renameSync(journal, `${journal}.away`); // moved for a moment (its tail has not seen it go)
      const away = dormant.wakeLinked([late]);
      expect(away.woken.filter((e) => e.fileIndex === late.fileIndex)).toEqual([]);
      expect(String(away.failure)).toMatch(/no such file/);
      renameSync(`${journal}.away`, journal); // back: tried again at the group's next event, not given up
      const back = dormant.wakeLinked([late]);
      expect(back.failure).toBeNull();
      expect(new Set(back.woken.filter((e) => e.fileIndex === late.fileIndex).map(lineOf))).toEqual(new Set(item.all.flatMap((d) => d.events).filter((e) => e.fileIndex === late.fileIndex).map(lineOf)));
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('wakes a group whatever happened to the journals of other groups (one removed during the replay)', async () => {
    const tree = mkdtempSync(path.join(os.tmpdir(), 'td-dormant-'));
    try {
      cpSync(path.join(FIXTURES, 'sessions'), tree, { recursive: true });
      const { files, index } = await indexed(tree);
      // One plain journal (an archive's lines were copied at the replay: they need no file).
      const singleFile = (i: { delegation: Delegation }) => new Set(i.delegation.events.map((e) => e.fileIndex)).size === 1 && files[i.delegation.events[0].fileIndex].path.endsWith('.jsonl');
      const items = [...new DormantComponents(index, files).replay()];
      const mine = items.find(singleFile)!;
      const file = mine.delegation.events[0].fileIndex;
      const other = items.find((i) => singleFile(i) && i.delegation.events[0].fileIndex !== file)!;
      // Another group's journal goes for good after the scan: the replay cannot read it back.
      const again = await indexed(tree);
      rmSync(files[other.delegation.events[0].fileIndex].path);
      const dormant = new DormantComponents(again.index, again.files);
      expect([...dormant.replay()].length).toBeLessThan(items.length);
      const late = mine.delegation.events[mine.delegation.events.length - 1];
      const { woken, failure } = dormant.wakeLinked([late]);
      expect(failure).toBeNull();
      expect(woken.length).toBeGreaterThan(0);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('leaves out the lines of a journal read again from its start', async () => {
    const { files, index } = await indexed('sessions');
    const dormant = new DormantComponents(index, files);
    const item = [...dormant.replay()].find((i) => new Set(i.delegation.events.map((e) => e.fileIndex)).size === 1)!;
    const file = item.delegation.events[0].fileIndex;
    dormant.forgetFile(file);
    expect(dormant.wake(item.component).filter((e) => e.fileIndex === file)).toEqual([]);
  });
});
