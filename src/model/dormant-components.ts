// Follow mode's replay, kept as an event index instead of events. Held in memory, the replay of
// a large tree stayed there for as long as follow ran (477 MB for 4 GiB of journals). Here only
// the index records stay (about 72 bytes an event) and the groups of linked delegations that can
// still change on their own (an open delegation goes stale) are awake, their events in memory. A
// new event that shares an id with a dormant group wakes it: its lines are read again from their
// journals, as the streamed `--all` reads them, and grouped with the new event.
import type { JournalFile } from '../journal/discover.js';
import { linkIds, type ComponentTable, type EventIndex, type IndexView } from '../journal/event-index.js';
import { hash53, type NumberTable } from '../journal/id-hash.js';
import type { JournalEvent } from '../journal/types.js';
import { ComponentMaterializer, mergeComponents, type ComponentItem } from './component-stream.js';
import type { PreviewRef } from './cross-index.js';

export class DormantComponents {
  private readonly materializer: ComponentMaterializer;
  private readonly componentOfId: NumberTable;
  private readonly view: IndexView;
  private readonly components: ComponentTable;
  /** Components whose events are in memory (woken): the index no longer speaks for them. */
  private readonly awake = new Set<number>();
  /** Journals read again from their start since (rewritten): their indexed lines are stale. */
  private readonly rewritten = new Set<number>();
  /** Components that can hold the target's matches (a named target), in order. */
  readonly linked: readonly number[];

  /** Ends `index` (its components are built). `linkedTo` / `inFiles`: as EventIndex.components. */
  constructor(index: EventIndex, files: readonly Pick<JournalFile, 'path' | 'display'>[], linkedTo: readonly number[] = [], inFiles?: ReadonlySet<number>) {
    const view = index.view();
    const { components, full, prefix, linked, componentOfId } = index.components(linkedTo, inFiles, { idTable: true });
    this.materializer = new ComponentMaterializer({ view, components, full, prefix }, files, this.rewritten);
    this.view = view;
    this.components = components;
    this.componentOfId = componentOfId!;
    this.linked = linked;
  }

  /** Every delegation of the replay in report order, as the streamed `--all` gives them. */
  *replay(): Generator<ComponentItem> {
    try {
      yield* mergeComponents(this.materializer);
    } finally {
      this.materializer.close(); // no journal held open while following
    }
  }

  /**
   * Component c's events, from now on held by the caller (none when it is awake already). Throws
   * when its lines cannot all be read (out of descriptors, a journal unreadable for now): it then
   * stays dormant, and is tried again at its next event.
   */
  wake(c: number): JournalEvent[] {
    if (this.awake.has(c)) return [];
    this.materializer.forgetFailedOpens(); // what failed before (the replay, another group) is not this group's
    const events = this.materializer.eventsOf(c);
    // Gone (before its tail saw it go: then its lines are skipped) or unreadable for now.
    const failed = this.materializer.failedOpen;
    if (failed !== null) {
      this.materializer.forgetFailedOpens(); // tried again next time, not given up for the session
      throw new Error(failed);
    }
    this.awake.add(c);
    return events;
  }

  /**
   * The events of the dormant components that `events` share an id with, now awake. A component
   * that cannot be woken stays dormant; the others are still returned, and `failure` says why.
   */
  wakeLinked(events: readonly JournalEvent[]): { woken: JournalEvent[]; failure: unknown } {
    const woken: JournalEvent[] = [];
    let failure: unknown = null;
    for (const e of events)
      for (const id of linkIds(e)) {
        if (id === null) continue;
        const c = this.componentOfId.get(hash53(id)); // a hash collision only wakes one more
        if (c === undefined || this.awake.has(c)) continue;
        try {
          for (const w of this.wake(c)) woken.push(w);
        } catch (err) {
          failure ??= err;
        }
      }
    this.materializer.close();
    this.materializer.forgetFailedOpens();
    return { woken, failure };
  }

  /** Output previews matching `texts` in dormant components (awake ones are the caller's to search). */
  previews(texts: readonly string[]): PreviewRef[] {
    try {
      return this.materializer.previewsOutside(texts, (c) => this.awake.has(c));
    } finally {
      this.materializer.close();
      this.materializer.forgetFailedOpens();
    }
  }

  /** The dormant components with indexed lines in a journal (one pass over the index: journals are rarely removed or rewritten). */
  dormantIn(fileIndex: number): number[] {
    const out: number[] = [];
    for (let c = 0; c < this.components.count; c++) {
      if (this.awake.has(c)) continue;
      for (const r of this.components.recordsOf(c))
        if (this.view.fileIndex.get(r) === fileIndex) {
          out.push(c);
          break;
        }
    }
    return out;
  }

  /** A journal is read again from its start: its indexed lines are left out from now on. */
  forgetFile(fileIndex: number): void {
    this.rewritten.add(fileIndex);
    this.materializer.forgetCached();
  }

  /** Lines that could not be read back as the event the scan saw. */
  get changedLines(): number {
    return this.materializer.changedLines;
  }
}
