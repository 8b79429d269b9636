// What the page needs of every delegation besides its own section: its overview row, the links
// between sections, its nested span in its parent's timeline, and which bars are drawn. Small
// facts, so a page of a whole tree can be written section by section from a second read.
import type { DelegationReport } from '../../report/types.js';
import { instantMs, ownLastEvent, treeLatest, type Seen } from '../lanes.js';
import { barId } from './ids.js';
import { ownTimes } from './timeline.js';

export interface DelegationFacts extends Pick<DelegationReport, 'key' | 'id' | 'pattern' | 'parentDelegation' | 'parentRunId' | 'nested' | 'startedTs' | 'completedTs' | 'startedMs' | 'completedMs'> {
  status: Omit<DelegationReport['status'], 'aggregatedOutputPreview'>;
  /** Findings by severity. */
  counts: { error: number; warning: number; info: number };
  /** Error and warning, in the order its findings first have them (the overview's filter classes). */
  serious: readonly ('error' | 'warning')[];
  /** The earliest start of its attempts (where a nested span without a start begins). */
  firstStartMs: number | null;
  /** Its own latest event; read once the page is complete, then dropped. */
  ownLast: Seen;
  /** Some own time parses: it has a timeline whatever the latest event of its tree. */
  ownTimes: boolean;
  /** The latest event of its tree (ms): where open runs end. Known once the page is complete. */
  treeLastMs: number | null;
  /** Whether it has a timeline (and so bars to link to). Known once the page is complete. */
  drawn: boolean;
}

// Shared: a delegation's facts hold one of these, not an array of its own.
const NONE: readonly ('error' | 'warning')[] = [];
const ERROR = ['error'] as const;
const WARNING = ['warning'] as const;
const ERROR_WARNING = ['error', 'warning'] as const;
const WARNING_ERROR = ['warning', 'error'] as const;

function factsOf(d: DelegationReport): DelegationFacts {
  const counts = { error: 0, warning: 0, info: 0 };
  let serious = NONE;
  for (const f of d.findings) {
    counts[f.severity]++;
    if (f.severity === 'info' || serious.includes(f.severity)) continue;
    serious = serious === NONE ? (f.severity === 'error' ? ERROR : WARNING) : serious === ERROR ? ERROR_WARNING : WARNING_ERROR;
  }
  let firstStartMs: number | null = null;
  for (const c of d.children) for (const a of c.attempts) if (a.startMs !== null && (firstStartMs === null || a.startMs < firstStartMs)) firstStartMs = a.startMs;
  const { aggregated, totalSubRuns, succeeded, failed } = d.status;
  return {
    key: d.key,
    id: d.id,
    pattern: d.pattern,
    parentDelegation: d.parentDelegation,
    parentRunId: d.parentRunId,
    nested: d.nested,
    startedTs: d.startedTs,
    completedTs: d.completedTs,
    startedMs: d.startedMs,
    completedMs: d.completedMs,
    status: { aggregated, totalSubRuns, succeeded, failed },
    counts,
    serious,
    firstStartMs,
    ownLast: ownLastEvent(d),
    ownTimes: ownTimes(d),
    treeLastMs: null,
    drawn: false,
  };
}

/**
 * The page-wide facts, gathered a delegation at a time in report order (add), then completed
 * (finish): the section index of each key, each delegation's facts, and every attempt's bar by run id.
 */
export class PageFacts {
  /** In report order. */
  readonly list: DelegationFacts[] = [];
  readonly byKey = new Map<string, DelegationFacts>();
  /** Section index of every delegation key, for links between parent and nested delegations. */
  readonly sections = new Map<string, number>();
  /** run id → its attempts, as (section, child, attempt) triples, in page order. */
  private readonly runs = new Map<string, number[]>();

  static of(delegations: readonly DelegationReport[]): PageFacts {
    const page = new PageFacts();
    for (const d of delegations) page.add(d);
    page.finish();
    return page;
  }

  add(d: DelegationReport): void {
    const i = this.list.length;
    const f = factsOf(d);
    this.list.push(f);
    this.byKey.set(d.key, f);
    this.sections.set(d.key, i);
    d.children.forEach((c, j) =>
      c.attempts.forEach((a, k) => {
        const at = this.runs.get(a.runId);
        if (at) at.push(i, j, k);
        else this.runs.set(a.runId, [i, j, k]);
      }),
    );
  }

  finish(): void {
    const latest = treeLatest(this.byKey, (f) => f.ownLast);
    for (const f of this.list) {
      const seen = latest.get(this.byKey.get(f.key)!) ?? null;
      f.treeLastMs = seen ? instantMs(seen.instant) : null;
      f.drawn = f.ownTimes || (f.treeLastMs !== null && Number.isFinite(f.treeLastMs));
    }
    for (const f of this.list) f.ownLast = null;
  }

  /** Every drawn attempt's bar id of a run, across the whole page (findings may name any run); [] for none. */
  barsOf(runId: string): string[] {
    const at = this.runs.get(runId);
    const out: string[] = [];
    if (!at) return out;
    for (let n = 0; n < at.length; n += 3) if (this.list[at[n]].drawn) out.push(barId(at[n], at[n + 1], at[n + 2]));
    return out;
  }
}
