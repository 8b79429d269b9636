// What follow mode compares to decide whether a printed report has news: how much it is built
// from, and a hash of what it says wherever its journal lines are.
import type { Delegation } from '../model/delegation.js';
import { runsById } from '../model/cross-index.js';
import { jsonValueHash } from './json-value-hash.js';
import type { DelegationReport, TraceReport } from '../report/types.js';

/**
 * What d's report is built from, counted: its events, its runs' sync markers, other delegations'
 * events for its run ids, the delegations nested under it and the one it is nested under. A printed report is printed again when this grows: a marker or a nested
 * delegation that comes after the report changes it as much as an event of its own.
 */
export function reportInputs(d: Delegation, group: readonly Delegation[]): number {
  let n = d.events.length;
  const byRun = runsById(group);
  for (const run of d.runs.values()) {
    n += run.markers.length;
    // Another delegation's events for one of its run ids, and its start: its foreign-parent finding names it and its parent run.
    for (const ref of byRun.get(run.runId) ?? []) if (ref.delegation !== d) n += ref.run.starts.length + ref.run.completions.length + (ref.delegation.started ? 1 : 0);
  }
  // Its outer delegation (parentDelegation), which may arrive or be removed after its report.
  return n + (nestedCounts(group).get(d) ?? 0) + (d.parent ? 1 : 0);
}

/** Per group (the same array until it changes): how many delegations each one has nested under it. */
const nestedCountsOf = new WeakMap<readonly Delegation[], Map<Delegation, number>>();
function nestedCounts(group: readonly Delegation[]): Map<Delegation, number> {
  let counts = nestedCountsOf.get(group);
  if (!counts) {
    counts = new Map();
    for (const d of group) if (d.parent) counts.set(d.parent.delegation, (counts.get(d.parent.delegation) ?? 0) + 1);
    nestedCountsOf.set(group, counts);
  }
  return counts;
}

/** A report's journal locations (file, line, evidence), at any depth: they move when a journal is archived or renamed. */
const LOCATIONS: ReadonlySet<string> = new Set(['file', 'line', 'files', 'evidence']);

/**
 * A hash of what a report says, wherever its lines are: of its JSON without locations, hashed as
 * it is walked (JSON.stringify with a replacer, then hash53 over the text, took twice as long).
 */
export const reportDigest = (report: TraceReport): number => jsonValueHash(report.delegations.map(whatItSays), LOCATIONS);

/**
 * A report without how its journals were read (a file's Limits lines: an archive written in
 * steps reads as cut short until it is whole), without its `delegation id reused` line (an
 * earlier use gains it when its id is used again) and without what moves on its own in finding
 * messages (the line its session goes on to, in which journal, an age): none is news about the
 * delegation. Counts and ids stay: a tree that grew is news.
 */
function whatItSays(d: DelegationReport): DelegationReport {
  // Its files' lines and those of its sessions' other journals (lines repeated in an archive being written).
  const aboutFile = (l: string) => /^.*?\.jsonl(?:\.gz)?: /.test(l);
  // A use printed before its id was used again is not printed again for this line alone (a rewrite or an archive re-reads it).
  const reused = (l: string) => l.startsWith('delegation id reused');
  return { ...d, limits: d.limits.filter((l) => !aboutFile(l) && !reused(l)).map(withoutEventLocations), findings: d.findings.map((f) => ({ ...f, message: withoutMovingParts(f.message) })) };
}

/** An event's `file:line` in a Limits line (`The delegation_completed at s.jsonl:9 has …`): it moves when its journal is archived. */
const withoutEventLocations = (line: string): string => line.replace(/\S*\.jsonl(?:\.gz)?:\d+/g, '<journal>:#');

/**
 * `goes on to line 7`, `to line 7,`, `is 243s old`, `is 5s in the future`, and the journal a cause
 * names (`… .jsonl goes on`, `goes on in … .jsonl.gz`: src/model/evidence.ts openDelegationCause),
 * which changes when its session is archived or moved to the other layout.
 */
const withoutMovingParts = (message: string): string =>
  message
    .replace(/\S*\.jsonl(?:\.gz)?(?=[\s,):]|$)/g, '<journal>')
    .replace(/\bto line \d+/g, 'to line #')
    .replace(/\bis -?\d+(\.\d+)?s (old|in the future)\b/g, 'is #s $2');
