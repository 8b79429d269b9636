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
  const order: string[] = [];
  const add = (a: string) => {
    if (!order.includes(a)) order.push(a);
  };
  for (const a of d.agents) add(parseForkAgent(a)?.agent ?? a);
  for (const c of d.children) add(c.agentId ?? '?');
  return order.map((agent) => {
    const rows = d.children.filter((c) => (c.agentId ?? '?') === agent);
    return { agent, rows, neverStarted: rows.length === 0 };
  });
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

type Seen = { ts: string; instant: Instant } | null;
// Each delegation's own latest event, parsed once: every ancestor's tree asks for it again.
const ownLastCache = new WeakMap<DelegationReport, Seen>();

function ownLastEvent(x: DelegationReport): Seen {
  if (ownLastCache.has(x)) return ownLastCache.get(x)!;
  let best: Seen = null;
  for (const t of x.timeline) {
    const instant = parseTimestamp(t.ts);
    if (instant && (!best || compareInstants(instant, best.instant) > 0)) best = { ts: t.ts, instant };
  }
  ownLastCache.set(x, best);
  return best;
}

/** The latest journal timestamp of a delegation tree, exactly as written: where open runs end. */
export function lastEventSeen(d: DelegationReport, keys: Map<string, DelegationReport>): { ts: string; instant: Instant } | null {
  let best: Seen = null;
  for (const x of tree(d, keys)) {
    const own = ownLastEvent(x);
    if (own && (!best || compareInstants(own.instant, best.instant) > 0)) best = own;
  }
  return best;
}

export const instantMs = (t: Instant): number => t.ms + t.subNs / 1e6;

/** Exact nanoseconds since the epoch for a journal timestamp (a double cannot hold them). */
export function tsNanos(ts: string | null): string | null {
  const t = ts === null ? null : parseTimestamp(ts);
  return t ? instantToNanos(t) : null;
}

/** Statuses drawn and exported as failures (OTLP status code 2). */
export const FAILED_STATUSES = new Set(['failed', 'verification_failed']);
