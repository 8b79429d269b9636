// Follow mode's live delegations, put to sleep once they are done with. Held in memory, every
// delegation that arrived while following stayed there with its events (about 10 KB each: a
// follower of a busy runtime grew by tens of MB an hour). A group of linked delegations that is
// quiet and has nothing left to print on its own is kept here instead, as one deflated copy of
// its events (about a tenth of the heap), with the hashes of the ids that link to it. A new event
// that shares an id with it wakes it: its events are given back, as they were, and grouped with
// the new one, so the reports are the ones a follower holding everything prints. The replay's
// groups sleep the same way in the event index (dormant-components.ts).
import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { linkIds } from '../journal/event-index.js';
import { hash53, windowHashes } from '../journal/id-hash.js';
import { MIN_SUBSTRING, previewKeys } from '../journal/preview.js';
import type { JournalEvent } from '../journal/types.js';
import { localPreviewsIn, type PreviewRef } from './cross-index.js';
import { groupDelegations } from './group.js';
import { instanceKey } from './delegation.js';

/** A sleeping group: its events, structured-cloned (v8.serialize keeps undefined, -0, Infinity and lone surrogates) and deflated. */
interface Sleeper {
  blob: Uint8Array;
  /** Given back already (reached again through another of its ids, journals or previews). */
  awake: boolean;
}

/** What a group is found by: its link ids, its journals and its output previews (hashes), read from its events. */
interface Handles {
  ids: Set<number>;
  files: Set<number>;
  previews: Set<number>;
}

export class SleepingGroups {
  // Only the blob is kept a group (about 0.5 KB deflated for a delegation with two sub-runs):
  // what it is found by is read again from its events when it wakes.
  private readonly byId = new Map<number, Sleeper>();
  /** Further groups under an id hash already taken: linked groups share no id, so only a hash collision puts one here. */
  private readonly collided = new Map<number, Sleeper[]>();
  private readonly byFile = new Map<number, Set<Sleeper>>();
  /** A preview shared by several groups ("ok") holds a set of them. */
  private readonly byPreview = new Map<number, Sleeper | Set<Sleeper>>();
  private count = 0;

  /** How many groups sleep. */
  get size(): number {
    return this.count;
  }

  /** Puts a group of linked delegations to sleep. */
  put(events: readonly JournalEvent[]): void {
    const s: Sleeper = { blob: new Uint8Array(deflateRawSync(serialize(events), { level: 1 })), awake: false };
    const { ids, files, previews } = handlesOf(events);
    for (const id of ids) {
      if (!this.byId.has(id)) this.byId.set(id, s);
      else this.collided.set(id, [...(this.collided.get(id) ?? []), s]);
    }
    for (const f of files) {
      const set = this.byFile.get(f);
      if (set) set.add(s);
      else this.byFile.set(f, new Set([s]));
    }
    for (const p of previews) {
      const held = this.byPreview.get(p);
      if (held === undefined) this.byPreview.set(p, s);
      else if (held instanceof Set) held.add(s);
      else this.byPreview.set(p, new Set([held, s]));
    }
    this.count++;
  }

  /** The events of the sleeping groups that `events` share an id with, now awake (the caller holds them again). */
  wakeLinked(events: readonly JournalEvent[]): JournalEvent[] {
    if (this.count === 0) return [];
    const woken: JournalEvent[] = [];
    for (const e of events)
      for (const id of linkIds(e)) {
        if (id === null) continue;
        const h = hash53(id);
        const s = this.byId.get(h);
        if (s) for (const w of this.wake(s)) woken.push(w);
        for (const c of this.collided.get(h) ?? []) for (const w of this.wake(c)) woken.push(w);
      }
    return woken;
  }

  /** Wakes the groups with events in a journal (read again from its start): their events, and their delegations' instanceKeys. */
  wakeFile(fileIndex: number): { events: JournalEvent[]; keys: string[] } {
    const events: JournalEvent[] = [];
    const keys: string[] = [];
    for (const s of [...(this.byFile.get(fileIndex) ?? [])]) {
      const back = this.wake(s);
      for (const d of groupDelegations(back)) keys.push(instanceKey(d));
      for (const e of back) events.push(e);
    }
    return { events, keys };
  }

  /** Output previews of sleeping groups matching `texts` (aggregate segments), read without waking them. */
  previewsIn(texts: readonly string[]): PreviewRef[] {
    if (this.byPreview.size === 0) return [];
    const matching = new Set<Sleeper>();
    const add = (h: number) => {
      const held = this.byPreview.get(h);
      if (held instanceof Set) for (const s of held) matching.add(s);
      else if (held) matching.add(held);
    };
    for (const text of texts) {
      add(hash53(text));
      windowHashes(text, MIN_SUBSTRING, add);
    }
    const found: PreviewRef[] = [];
    for (const s of matching) for (const ref of localPreviewsIn(groupDelegations(eventsOf(s)), texts)) found.push(ref); // not push(...): there can be 100,000s
    return found;
  }

  private wake(s: Sleeper): JournalEvent[] {
    if (s.awake) return [];
    s.awake = true;
    const events = eventsOf(s);
    const { ids, files, previews } = handlesOf(events);
    for (const id of ids) {
      if (this.byId.get(id) === s) this.byId.delete(id);
      const others = this.collided.get(id)?.filter((c) => c !== s);
      if (others === undefined) continue;
      if (others.length) this.collided.set(id, others);
      else this.collided.delete(id);
    }
    for (const f of files) {
      const set = this.byFile.get(f);
      set?.delete(s);
      if (set?.size === 0) this.byFile.delete(f);
    }
    for (const p of previews) {
      const held = this.byPreview.get(p);
      if (held === s) this.byPreview.delete(p);
      else if (held instanceof Set) {
        held.delete(s);
        if (held.size === 1) this.byPreview.set(p, [...held][0]);
      }
    }
    this.count--;
    return events;
  }
}

function handlesOf(events: readonly JournalEvent[]): Handles {
  const ids = new Set<number>();
  const files = new Set<number>();
  const previews = new Set<number>();
  for (const e of events) {
    files.add(e.fileIndex);
    for (const id of linkIds(e)) if (id !== null) ids.add(hash53(id));
    const keys = e.type === 'delegation_sub_run_completed' && typeof e.outputPreview === 'string' ? previewKeys(e.outputPreview) : null;
    if (!keys) continue;
    previews.add(keys.full);
    if (keys.prefix !== null) previews.add(keys.prefix);
  }
  return { ids, files, previews };
}

function eventsOf(s: Sleeper): JournalEvent[] {
  return deserialize(inflateRawSync(s.blob)) as JournalEvent[];
}
