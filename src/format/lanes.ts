// Shared by the visual formats (html, chrome-trace, otlp): agent lanes and the times to draw.
import { parseForkAgent } from '../model/expected.js';
import { compareInstants, instantToNanos, parseTimestamp } from '../journal/time.js';
import type { Instant } from '../journal/types.js';
import type { ChildReport, DelegationReport } from '../report/types.js';

/** One agent's lane: a row per child (retry chain) so duplicate agents never overlap. */
export interface Lane {
  agent: string;
  rows: ChildReport[];
  /** The agent was expected by `delegation_started` but no sub-run of it was journaled. */
  neverStarted: boolean;
}

/** Agents in `agent_ids` order (fork `coder×3` → `coder`), then any agent seen only in sub-runs. */
export function agentLanes(d: DelegationReport): Lane[] {
  // One map, in first-seen order: a delegation can have 100,000 children of as many agents.
  const rowsOf = new Map<string, ChildReport[]>();
  for (const a of d.agents) {
    const agent = parseForkAgent(a)?.agent ?? a;
    if (!rowsOf.has(agent)) rowsOf.set(agent, []);
  }
  for (const c of d.children) {
    const agent = c.agentId ?? '?';
    const rows = rowsOf.get(agent);
    if (rows) rows.push(c);
    else rowsOf.set(agent, [c]);
  }
  return [...rowsOf].map(([agent, rows]) => ({ agent, rows, neverStarted: rows.length === 0 }));
}

/** The delegations of the report keyed by `key`, to walk nested trees. */
export function byKey(delegations: DelegationReport[]): Map<string, DelegationReport> {
  return new Map(delegations.map((d) => [d.key, d] as const));
}

/** Top-level delegations: those whose parent delegation is not in this report. */
export function roots(delegations: DelegationReport[]): DelegationReport[] {
  const keys = byKey(delegations);
  return delegations.filter((d) => !d.parentDelegation || !keys.has(d.parentDelegation));
}

/** The delegation and the nested delegations under it that the report holds, depth first (a loop: journals can nest thousands deep). */
export function tree(d: DelegationReport, keys: Map<string, DelegationReport>, seen = new Set<string>()): DelegationReport[] {
  const out: DelegationReport[] = [];
  const stack = [d];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x.key)) continue;
    seen.add(x.key);
    out.push(x);
    const kids = x.nested.filter((k) => keys.has(k)).map((k) => keys.get(k)!);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}

export type Seen = { ts: string; instant: Instant } | null;

/** A delegation's own latest event (its timeline's, parsed). */
export function ownLastEvent(x: Pick<DelegationReport, 'timeline'>): Seen {
  let best: Seen = null;
  for (const t of x.timeline) {
    const instant = parseTimestamp(t.ts);
    if (instant && (!best || compareInstants(instant, best.instant) > 0)) best = { ts: t.ts, instant };
  }
  return best;
}

/** The latest journal timestamp of a delegation tree, exactly as written: where open runs end. */
export function lastEventSeen(d: DelegationReport, keys: Map<string, DelegationReport>): Seen {
  const table = treeLastTable(keys);
  if (table.has(d)) return table.get(d)!;
  let best: Seen = null; // a delegation the map does not hold: walk its tree
  for (const x of tree(d, keys)) best = later(best, ownLastEvent(x));
  return best;
}

const later = (a: Seen, b: Seen): Seen => (b && (!a || compareInstants(b.instant, a.instant) > 0) ? b : a);

// Every delegation's tree latest, computed once per report: asked for each delegation of a tree
// 5,000 deep, walking the tree each time took the html, otlp and chrome-trace formats 10–30 s.
const treeLastTables = new WeakMap<Map<string, DelegationReport>, Map<DelegationReport, Seen>>();

/** treeLatest of a report's delegations, once per report. */
function treeLastTable(keys: Map<string, DelegationReport>): Map<DelegationReport, Seen> {
  const cached = treeLastTables.get(keys);
  if (cached) return cached;
  const result = treeLatest(keys, ownLastEvent);
  treeLastTables.set(keys, result);
  return result;
}

/**
 * The latest event of the tree under each delegation of `keys` (`own`: its own latest event), in one pass (Tarjan's strongly
 * connected components, iteratively: journals can nest thousands deep, and a nesting loop makes
 * the delegations on it share one tree). Components come out after every one they reach, so
 * each takes the latest of its own events and of the components below it.
 */
export function treeLatest<N extends { nested: readonly string[] }>(keys: Map<string, N>, own: (n: N) => Seen): Map<N, Seen> {
  const result = new Map<N, Seen>();
  const index = new Map<N, number>();
  const low = new Map<N, number>();
  const onStack = new Set<N>();
  const stack: N[] = [];
  const kidsOf = new Map<N, N[]>();
  let counter = 0;
  for (const start of keys.values()) {
    if (index.has(start)) continue;
    const work: { node: N; next: N[]; at: number }[] = [];
    const open = (node: N) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      const kids = node.nested.map((k) => keys.get(k)).filter((k): k is N => k !== undefined);
      kidsOf.set(node, kids);
      work.push({ node, next: kids, at: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.next.length) {
        const k = frame.next[frame.at++];
        if (!index.has(k)) open(k);
        else if (onStack.has(k)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(k)!));
        continue;
      }
      work.pop();
      const { node } = frame;
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) !== index.get(node)) continue;
      // `node` roots a component: pop it, and take the latest of its members and what they reach.
      const members: N[] = [];
      let x: N;
      do {
        x = stack.pop()!;
        onStack.delete(x);
        members.push(x);
      } while (x !== node);
      let best: Seen = null;
      for (const m of members) {
        best = later(best, own(m));
        for (const k of kidsOf.get(m)!) if (result.has(k)) best = later(best, result.get(k)!);
      }
      for (const m of members) result.set(m, best);
    }
  }
  return result;
}

export const instantMs = (t: Instant): number => t.ms + t.subNs / 1e6;

/** Exact nanoseconds since the epoch for a journal timestamp (a double cannot hold them). */
export function tsNanos(ts: string | null): string | null {
  const t = ts === null ? null : parseTimestamp(ts);
  return t ? instantToNanos(t) : null;
}

/** Statuses drawn and exported as failures (OTLP status code 2). */
export const FAILED_STATUSES = new Set(['failed', 'verification_failed']);
