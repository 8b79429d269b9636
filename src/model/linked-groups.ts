// Events kept in groups linked by the ids they share (a delegation, its sub-runs, its retries,
// its parent run, a marker's run: linkIds, as the event index links them), so that new events
// regroup only the groups they join. Follow mode regrouped every event of the tree at each
// change: on 1 GiB of journals with a writer adding delegations, that was about a core's worth
// of CPU while following. Grouping one linked group gives the delegations grouping every event
// gives (the streamed `--all` rests on the same fact; test/model/linked-groups.test.ts).
import { linkIds } from '../journal/event-index.js';
import type { JournalEvent } from '../journal/types.js';
import { PreviewRegistry, type ForeignPreviews } from './cross-index.js';
import type { Delegation } from './delegation.js';
import { groupDelegations } from './group.js';
import { delegationOrder } from './target.js';

interface Group {
  events: JournalEvent[];
  ids: string[];
  /** The group's delegations as last grouped (stale while the group is in `changed`). */
  delegations: Delegation[];
  /** When its last event was added (Date.now()): a group quiet long enough may be put to sleep. */
  touchedAt: number;
}

/** A group taken out (follow mode puts it to sleep): its events and its delegations as grouped. */
export interface TakenGroup {
  events: JournalEvent[];
  delegations: Delegation[];
}

export class LinkedGroups {
  private readonly groupOf = new Map<string, Group>();
  private readonly groups = new Set<Group>();
  private readonly changed = new Set<Group>();
  private sorted: Delegation[] = [];
  /** Each current delegation's group (its `all`: the same array until the group changes, so per-group caches last). */
  private readonly groupOfDelegation = new WeakMap<Delegation, Delegation[]>();
  /** Every current delegation's output previews, for the checks that search other groups' outputs. */
  private previews = new PreviewRegistry();

  /** Groups were taken out since delegations() last listed them. */
  private taken = false;

  /** Whether events came (or groups were taken out) since delegations() last grouped them. */
  get stale(): boolean {
    return this.changed.size > 0 || this.taken;
  }

  add(events: readonly JournalEvent[]): void {
    for (const e of events) this.addOne(e);
  }

  /** Drops the events of a file (truncated or replaced: it is read again from the start). */
  removeFile(fileIndex: number): void {
    const kept: JournalEvent[] = [];
    for (const g of this.groups) for (const e of g.events) if (e.fileIndex !== fileIndex) kept.push(e);
    this.groupOf.clear();
    this.groups.clear();
    this.changed.clear();
    this.sorted = [];
    this.previews = new PreviewRegistry();
    this.taken = true; // with nothing kept, no group is `changed`: the listing is stale all the same
    this.add(kept);
  }

  /** Every delegation, in delegationOrder; only the groups that changed are grouped again. */
  delegations(): Delegation[] {
    if (!this.stale) return this.sorted;
    this.taken = false;
    for (const g of this.changed) {
      this.previews.remove(g.delegations);
      g.delegations = groupDelegations(g.events);
      for (const d of g.delegations) this.groupOfDelegation.set(d, g.delegations);
      this.previews.add(g.delegations);
    }
    this.changed.clear();
    const all: Delegation[] = [];
    for (const g of this.groups) for (const d of g.delegations) all.push(d);
    this.sorted = all.sort(delegationOrder);
    return this.sorted;
  }

  /**
   * The delegations a check of `d` compares it with: its linked group. Every delegation sharing an
   * id with it is there; only output previews are searched beyond it (foreignPreviews).
   */
  linkedTo(d: Delegation): Delegation[] {
    return this.groupOfDelegation.get(d) ?? [d];
  }

  /** Searches the output previews of every group but `group` (registerForeignPreviews). */
  foreignPreviews(group: readonly Delegation[]): ForeignPreviews {
    const own = new Set(group);
    return (texts) => this.previews.lookup(texts, own);
  }

  /**
   * Takes out the groups, grouped and unchanged since, that have had no event since `before`
   * (Date.now() time) and that `sleepy` accepts (given their delegations): they are no longer
   * linked to, listed or searched. Follow mode keeps them elsewhere and adds their events back
   * when a new event links to them.
   */
  takeQuiet(before: number, sleepy: (delegations: readonly Delegation[]) => boolean): TakenGroup[] {
    const taken: TakenGroup[] = [];
    for (const g of this.groups) {
      if (g.touchedAt > before || this.changed.has(g) || !sleepy(g.delegations)) continue;
      this.groups.delete(g);
      for (const id of g.ids) this.groupOf.delete(id);
      this.previews.remove(g.delegations);
      taken.push({ events: g.events, delegations: g.delegations });
    }
    if (taken.length) this.taken = true;
    return taken;
  }

  /** How many groups are held. */
  get size(): number {
    return this.groups.size;
  }

  private addOne(e: JournalEvent): void {
    if (e.type === 'session_end') return; // no check reads it (the event index leaves it out too)
    const ids = linkIds(e);
    let into: Group | null = null;
    for (const id of ids) {
      if (id === null) continue;
      const g = this.groupOf.get(id);
      if (!g) continue;
      into = into === null || into === g ? g : this.merge(into, g);
    }
    if (!into) {
      into = { events: [], ids: [], delegations: [], touchedAt: 0 };
      this.groups.add(into);
    }
    into.events.push(e);
    into.touchedAt = Date.now();
    for (const id of ids) {
      if (id === null || this.groupOf.get(id) === into) continue;
      this.groupOf.set(id, into);
      into.ids.push(id);
    }
    this.changed.add(into);
  }

  /** The larger group takes the smaller one's events and ids. */
  private merge(a: Group, b: Group): Group {
    const [keep, gone] = a.events.length >= b.events.length ? [a, b] : [b, a];
    for (const e of gone.events) keep.events.push(e);
    for (const id of gone.ids) {
      this.groupOf.set(id, keep);
      keep.ids.push(id);
    }
    this.groups.delete(gone);
    this.changed.delete(gone);
    this.previews.remove(gone.delegations); // regrouped with `keep`'s
    gone.delegations = [];
    keep.touchedAt = Math.max(keep.touchedAt, gone.touchedAt);
    this.changed.add(keep);
    return keep;
  }
}
