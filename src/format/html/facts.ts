// What the page needs of every delegation besides its own section: its overview row, the links
// between sections, its nested span in its parent's timeline, and which bars are drawn. Small
// facts, so a page of a whole tree can be written section by section from a second read. Kept
// in columns (typed arrays, strings as code units), not as an object per delegation and a Map
// entry per run: the heap V8 grows to about three times what is alive in it.
import type { DelegationReport } from '../../report/types.js';
import { instantMs, ownLastEvent, treeLatest, type Seen } from '../lanes.js';
import { barId } from './ids.js';
import { grown, StringIndex, StringStore } from './string-store.js';
import { ownTimes } from './timeline.js';

/** A delegation's facts, as the page reads them (made on each call from the columns). */
export interface DelegationFacts extends Pick<DelegationReport, 'key' | 'id' | 'pattern' | 'parentDelegation' | 'parentRunId' | 'nested' | 'startedTs' | 'startedMs' | 'completedMs'> {
  /** Whether a delegation_completed was journaled (its time may not parse). */
  completedTs: string | null;
  status: Omit<DelegationReport['status'], 'aggregatedOutputPreview'>;
  /** Findings by severity. */
  counts: { error: number; warning: number; info: number };
  /** Error and warning, in the order its findings first have them (the overview's filter classes). */
  serious: readonly ('error' | 'warning')[];
  /** The earliest start of its attempts (where a nested span without a start begins). */
  firstStartMs: number | null;
  /** The latest event of its tree (ms): where open runs end. */
  treeLastMs: number | null;
  /** Whether it has a timeline (and so bars to link to). */
  drawn: boolean;
}

// Error and warning in order of first appearance, by code: none, error, warning, both (error
// first), both (warning first).
const SERIOUS: readonly (readonly ('error' | 'warning')[])[] = [[], ['error'], ['warning'], ['error', 'warning'], ['warning', 'error']];
const seriousCode = (d: DelegationReport): number => {
  let code = 0;
  for (const f of d.findings) {
    if (f.severity === 'info') continue;
    if (code === 0) code = f.severity === 'error' ? 1 : 2;
    else if ((code === 1 && f.severity === 'warning') || (code === 2 && f.severity === 'error')) return code + 2;
  }
  return code;
};

/** null as NaN in a number column (no journaled number or parsed time is NaN). */
const num = (v: number | null): number => (v === null ? Number.NaN : v);
const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

const FLAG_COMPLETED = 1;
const FLAG_OWN_TIMES = 2;
const FLAG_DRAWN = 4;
/** No string (null), and the end of a run's chain of attempts. */
const NONE = -1;

/**
 * The page-wide facts, gathered a delegation at a time in report order (add), then completed
 * (finish): each delegation's facts, the section index of each key, and every attempt's bar by run id.
 */
export class PageFacts {
  private n = 0;
  /** Keys in report order (ordinal = section index); a key's lookup gives its last section, as a Map would. */
  private readonly keys = new StringIndex();
  private lastOfKey = new Int32Array(1 << 10);
  /** Other strings: id (when not the key), pattern, status, start time, parent run and delegation, nested keys. */
  private readonly text = new StringStore();
  private strings = new Int32Array(6 << 10);
  private nestedAt = new Int32Array(1 << 10);
  private nestedKeys = new Int32Array(1 << 10);
  private nestedUsed = 0;
  /** startedMs, completedMs, firstStartMs, treeLastMs, totalSubRuns, succeeded, failed; own latest event (ms, sub-ns) until finish. */
  private numbers = new Float64Array(9 << 10);
  /** error, warning and info counts. */
  private counts = new Int32Array(3 << 10);
  private flags = new Uint8Array(1 << 10);
  private serious = new Uint8Array(1 << 10);
  /** Run ids, each with its attempts as a chain of (section, child, attempt) triples. */
  private readonly runs = new StringIndex();
  private firstAttempt = new Int32Array(1 << 10);
  private lastAttempt = new Int32Array(1 << 10);
  private attempts = new Int32Array(4 << 10); // section, child, attempt, next
  private attemptCount = 0;

  static of(delegations: readonly DelegationReport[]): PageFacts {
    const page = new PageFacts();
    for (const d of delegations) page.add(d);
    page.finish();
    return page;
  }

  get count(): number {
    return this.n;
  }

  private string(s: string | null): number {
    return s === null ? NONE : this.text.add(s);
  }

  add(d: DelegationReport): void {
    const i = this.n++;
    const k = this.keys.intern(d.key);
    if (k !== i) this.keys.add(d.key); // a key seen before: its ordinal stays the first, its section the last
    this.lastOfKey = grown(this.lastOfKey, this.keys.size);
    this.lastOfKey[k] = i;
    this.strings = grown(this.strings, 6 * this.n);
    const s = 6 * i;
    this.strings[s] = d.id === d.key ? NONE : this.string(d.id);
    this.strings[s + 1] = this.string(d.pattern);
    this.strings[s + 2] = this.string(d.status.aggregated);
    this.strings[s + 3] = this.string(d.startedTs);
    this.strings[s + 4] = this.string(d.parentRunId);
    this.strings[s + 5] = this.string(d.parentDelegation);
    this.nestedAt = grown(this.nestedAt, this.n + 1);
    this.nestedKeys = grown(this.nestedKeys, this.nestedUsed + d.nested.length);
    for (const key of d.nested) this.nestedKeys[this.nestedUsed++] = this.text.add(key);
    this.nestedAt[i + 1] = this.nestedUsed;
    let firstStartMs: number | null = null;
    for (const c of d.children) for (const a of c.attempts) if (a.startMs !== null && (firstStartMs === null || a.startMs < firstStartMs)) firstStartMs = a.startMs;
    const last = ownLastEvent(d);
    this.numbers = grown(this.numbers, 9 * this.n);
    this.numbers.set([num(d.startedMs), num(d.completedMs), num(firstStartMs), Number.NaN, num(d.status.totalSubRuns), num(d.status.succeeded), num(d.status.failed), last ? last.instant.ms : Number.NaN, last ? last.instant.subNs : 0], 9 * i);
    this.counts = grown(this.counts, 3 * this.n);
    for (const f of d.findings) this.counts[3 * i + (f.severity === 'error' ? 0 : f.severity === 'warning' ? 1 : 2)]++;
    this.flags = grown(this.flags, this.n);
    this.flags[i] = (d.completedTs !== null ? FLAG_COMPLETED : 0) | (ownTimes(d) ? FLAG_OWN_TIMES : 0);
    this.serious = grown(this.serious, this.n);
    this.serious[i] = seriousCode(d);
    d.children.forEach((c, j) =>
      c.attempts.forEach((a, at) => {
        const known = this.runs.size;
        const r = this.runs.intern(a.runId);
        const t = this.attemptCount++;
        this.attempts = grown(this.attempts, 4 * this.attemptCount);
        this.attempts.set([i, j, at, NONE], 4 * t);
        this.firstAttempt = grown(this.firstAttempt, this.runs.size);
        this.lastAttempt = grown(this.lastAttempt, this.runs.size);
        if (r >= known) this.firstAttempt[r] = t; // a new run: its chain starts here
        else this.attempts[4 * this.lastAttempt[r] + 3] = t;
        this.lastAttempt[r] = t;
      }),
    );
  }

  finish(): void {
    // The latest event of each delegation's tree, from the own latest events of the page's delegations.
    const nodes = new Map<string, { i: number; nested: string[] }>();
    for (let i = 0; i < this.n; i++) nodes.set(this.keyOf(i), { i, nested: this.nestedOf(i) });
    const own = ({ i }: { i: number }): Seen => {
      const ms = this.numbers[9 * i + 7];
      return Number.isNaN(ms) ? null : { ts: '', instant: { ms, subNs: this.numbers[9 * i + 8] } };
    };
    const latest = treeLatest(nodes, own);
    for (let i = 0; i < this.n; i++) {
      const seen = latest.get(nodes.get(this.keyOf(i))!) ?? null;
      const ms = seen ? instantMs(seen.instant) : Number.NaN;
      this.numbers[9 * i + 3] = ms;
      if (this.flags[i] & FLAG_OWN_TIMES || Number.isFinite(ms)) this.flags[i] |= FLAG_DRAWN;
    }
  }

  private keyOf(i: number): string {
    return this.keys.get(i);
  }

  private nestedOf(i: number): string[] {
    const out: string[] = [];
    for (let at = this.nestedAt[i]; at < this.nestedAt[i + 1]; at++) out.push(this.text.get(this.nestedKeys[at]));
    return out;
  }

  private textAt(i: number, field: number): string | null {
    const ref = this.strings[6 * i + field];
    return ref === NONE ? null : this.text.get(ref);
  }

  /** The section index of a key (its last delegation's), or undefined. */
  index(key: string): number | undefined {
    const k = this.keys.find(key);
    return k < 0 ? undefined : this.lastOfKey[k];
  }

  has(key: string): boolean {
    return this.keys.find(key) >= 0;
  }

  get(key: string): DelegationFacts | undefined {
    const i = this.index(key);
    return i === undefined ? undefined : this.at(i);
  }

  /** The facts of the delegation at section index i. */
  at(i: number): DelegationFacts {
    const key = this.keyOf(i);
    const x = 9 * i;
    const c = 3 * i;
    return {
      key,
      id: this.textAt(i, 0) ?? key,
      pattern: this.textAt(i, 1),
      parentRunId: this.textAt(i, 4),
      parentDelegation: this.textAt(i, 5),
      nested: this.nestedOf(i),
      startedTs: this.textAt(i, 3),
      completedTs: this.flags[i] & FLAG_COMPLETED ? '' : null,
      startedMs: orNull(this.numbers[x]),
      completedMs: orNull(this.numbers[x + 1]),
      firstStartMs: orNull(this.numbers[x + 2]),
      treeLastMs: orNull(this.numbers[x + 3]),
      status: { aggregated: this.textAt(i, 2), totalSubRuns: orNull(this.numbers[x + 4]), succeeded: orNull(this.numbers[x + 5]), failed: orNull(this.numbers[x + 6]) },
      counts: { error: this.counts[c], warning: this.counts[c + 1], info: this.counts[c + 2] },
      serious: SERIOUS[this.serious[i]],
      drawn: (this.flags[i] & FLAG_DRAWN) !== 0,
    };
  }

  /** Every drawn attempt's bar id of a run, across the whole page (findings may name any run); [] for none. */
  barsOf(runId: string): string[] {
    const out: string[] = [];
    const r = this.runs.find(runId);
    if (r < 0) return out;
    for (let t = this.firstAttempt[r]; t !== NONE; t = this.attempts[4 * t + 3]) {
      const i = this.attempts[4 * t];
      if (this.flags[i] & FLAG_DRAWN) out.push(barId(i, this.attempts[4 * t + 1], this.attempts[4 * t + 2]));
    }
    return out;
  }
}
