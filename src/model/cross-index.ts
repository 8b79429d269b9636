import { longEnoughForSubstring, MIN_SUBSTRING, withoutTruncationMark } from '../journal/preview.js';
import type { SubRunCompletedEvent } from '../journal/types.js';
import type { Delegation, SubRun } from './delegation.js';

/** Every per-scan cache (memoPerScan's, the foreign preview lookups), for forgetScan. */
const caches: WeakMap<readonly Delegation[], unknown>[] = [];

/**
 * Drops what the caches hold for `all` now. A WeakMap would drop it at the next full collection
 * only, and until then the young objects it references are promoted to the old generation: the
 * streamed `--all` calls this after each group of delegations, so its heap stays small.
 */
export function forgetScan(all: readonly Delegation[]): void {
  for (const cache of caches) cache.delete(all);
}

/**
 * Lookups across every delegation of a scan, built once per delegation list: checks that compare a
 * delegation with all the others (foreign runs, reused previews, repeated agents) stay linear on
 * journal trees with thousands of delegations instead of comparing every pair.
 */
export function memoPerScan<T>(build: (all: readonly Delegation[]) => T): (all: readonly Delegation[]) => T {
  const cache = new WeakMap<readonly Delegation[], T>();
  caches.push(cache);
  return (all) => {
    let v = cache.get(all);
    if (v === undefined) {
      v = build(all);
      cache.set(all, v);
    }
    return v;
  };
}

export interface RunRef {
  delegation: Delegation;
  run: SubRun;
}

export interface PreviewRef extends RunRef {
  completion: SubRunCompletedEvent;
  /** The trimmed preview, without the journal's truncation mark. */
  text: string;
}


/** sub_run_id → every delegation that journaled a start or completion for it. */
export const runsById = memoPerScan((all) => {
  const map = new Map<string, RunRef[]>();
  for (const delegation of all)
    for (const run of delegation.runs.values()) {
      if (run.starts.length === 0 && run.completions.length === 0) continue;
      const list = map.get(run.runId) ?? [];
      list.push({ delegation, run });
      map.set(run.runId, list);
    }
  return map;
});

/** parent_run_id → the delegations it started. */
export const delegationsByParentRun = memoPerScan((all) => {
  const map = new Map<string, Delegation[]>();
  for (const d of all) {
    if (d.parentRunId === null) continue;
    const list = map.get(d.parentRunId) ?? [];
    list.push(d);
    map.set(d.parentRunId, list);
  }
  return map;
});

/** Completion previews by whole trimmed text and (when long) by their first 40 characters. */
export interface PreviewTables {
  byText: Map<string, PreviewRef[]>;
  byPrefix: Map<string, PreviewRef[]>;
}

/** Each completion preview of `delegations`, with the keys it is found under in PreviewTables. */
function eachPreview(delegations: Iterable<Delegation>, visit: (ref: PreviewRef, prefix: string | null) => void): void {
  for (const delegation of delegations)
    for (const run of delegation.runs.values())
      for (const completion of run.completions) {
        const trimmed = completion.outputPreview?.trim();
        if (!trimmed) continue;
        const core = withoutTruncationMark(trimmed);
        visit({ delegation, run, completion, text: trimmed }, longEnoughForSubstring(core) ? core.slice(0, MIN_SUBSTRING) : null);
      }
}

function addRef(map: Map<string, PreviewRef[]>, key: string, ref: PreviewRef): void {
  const list = map.get(key);
  if (list) list.push(ref);
  else map.set(key, [ref]);
}

/** Adds the previews of `delegations` to `tables`. */
function addPreviews(tables: PreviewTables, delegations: Iterable<Delegation>): PreviewTables {
  eachPreview(delegations, (ref, prefix) => {
    addRef(tables.byText, ref.text, ref);
    if (prefix !== null) addRef(tables.byPrefix, prefix, ref);
  });
  return tables;
}

/** Every completion's output preview of a delegation list. */
export const previewIndex = memoPerScan((all): PreviewTables => addPreviews({ byText: new Map(), byPrefix: new Map() }, all));

/**
 * The previews of a changing set of delegations (follow mode): groups of delegations come and go
 * as their events arrive, and only those are added or removed, not the whole set rebuilt.
 */
export class PreviewRegistry {
  private readonly tables: PreviewTables = { byText: new Map(), byPrefix: new Map() };

  add(delegations: Iterable<Delegation>): void {
    addPreviews(this.tables, delegations);
  }

  remove(delegations: readonly Delegation[]): void {
    if (delegations.length === 0) return;
    const gone = new Set(delegations);
    const drop = (map: Map<string, PreviewRef[]>, key: string) => {
      const list = map.get(key);
      if (!list) return;
      const kept = list.filter((r) => !gone.has(r.delegation));
      if (kept.length) map.set(key, kept);
      else map.delete(key);
    };
    eachPreview(delegations, (ref, prefix) => {
      drop(this.tables.byText, ref.text);
      if (prefix !== null) drop(this.tables.byPrefix, prefix);
    });
  }

  /** As localPreviewsIn, over every delegation registered but `except`. */
  lookup(texts: readonly string[], except: ReadonlySet<Delegation>): PreviewRef[] {
    return lookupPreviews(this.tables, texts).filter((ref) => !except.has(ref.delegation));
  }
}

/**
 * Completions of delegations outside `all` whose preview is in `texts`. The streamed `--all`
 * checks one group of linked delegations at a time and registers here how to search the others.
 */
export type ForeignPreviews = (texts: readonly string[]) => PreviewRef[];
const foreignPreviews = new WeakMap<readonly Delegation[], ForeignPreviews>();
caches.push(foreignPreviews);

export function registerForeignPreviews(all: readonly Delegation[], lookup: ForeignPreviews): void {
  foreignPreviews.set(all, lookup);
}

/**
 * Completions whose preview is one of `texts` (aggregate segments), or (40+ characters) occurs in
 * one: one map lookup per text and per position in it.
 */
export function previewsIn(all: readonly Delegation[], texts: Iterable<string>): PreviewRef[] {
  const list = [...texts];
  const local = localPreviewsIn(all, list);
  const foreign = foreignPreviews.get(all);
  return foreign ? [...local, ...foreign(list)] : local;
}

/** previewsIn over `all` only. */
export function localPreviewsIn(all: readonly Delegation[], texts: Iterable<string>): PreviewRef[] {
  return lookupPreviews(previewIndex(all), texts);
}

function lookupPreviews({ byText, byPrefix }: PreviewTables, texts: Iterable<string>): PreviewRef[] {
  const found = new Set<PreviewRef>();
  for (const text of texts) {
    for (const ref of byText.get(text) ?? []) found.add(ref);
    for (let i = 0; i + MIN_SUBSTRING <= text.length; i++) {
      const refs = byPrefix.get(text.slice(i, i + MIN_SUBSTRING));
      if (!refs) continue;
      for (const ref of refs) if (text.startsWith(withoutTruncationMark(ref.text), i)) found.add(ref);
    }
  }
  return [...found];
}
