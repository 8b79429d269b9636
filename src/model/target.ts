import { compareInstants } from '../journal/time.js';
import type { Delegation } from './delegation.js';
import { delegationTree } from './group.js';

export type TargetKind = 'delegation' | 'parent-run' | 'session' | 'prefix' | 'last' | 'all';

export type TargetResult =
  | { ok: true; kind: TargetKind; delegations: Delegation[] }
  | { ok: false; reason: 'ambiguous'; candidates: Delegation[] }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'empty' };

/** Start time, or the first event's, for ordering blocks and finding the newest delegation. */
export function delegationOrder(a: Delegation, b: Delegation): number {
  const ea = a.started ?? a.events[0];
  const eb = b.started ?? b.events[0];
  if (ea?.time && eb?.time) return compareInstants(ea.time, eb.time) || ea.fileIndex - eb.fileIndex || ea.line - eb.line;
  return (ea?.fileIndex ?? 0) - (eb?.fileIndex ?? 0) || (ea?.line ?? 0) - (eb?.line ?? 0);
}

/** The selected delegations plus their nested descendants, each once, in start order. */
function withNested(selected: Delegation[]): Delegation[] {
  const out = new Set<Delegation>();
  for (const d of selected) for (const x of delegationTree(d)) out.add(x);
  return [...out].sort(delegationOrder);
}

/**
 * Resolves a target in the precedence of CHECKS.md: exact delegation id (or key), exact parent
 * run id, exact session id, then a unique delegation-id prefix. `last` / empty: newest start.
 */
export function resolveTarget(query: string | undefined, delegations: Delegation[], sessionFiles: Map<string, string[]> = new Map()): TargetResult {
  if (query === undefined || query === '' || query === 'last') {
    const started = delegations.filter((d) => d.started);
    if (started.length === 0) return { ok: false, reason: 'empty' };
    const newest = started.reduce((a, b) => (delegationOrder(a, b) >= 0 ? a : b));
    return { ok: true, kind: 'last', delegations: withNested([newest]) };
  }
  const byId = delegations.filter((d) => d.id === query || d.key === query);
  if (byId.length) return { ok: true, kind: 'delegation', delegations: withNested(byId) };
  const byParent = delegations.filter((d) => d.parentRunId === query && d.started);
  if (byParent.length) return { ok: true, kind: 'parent-run', delegations: withNested(byParent) };
  const sessionFileSet = new Set(sessionFiles.get(query) ?? []);
  const bySession = delegations.filter((d) => d.sessions.includes(query) || d.files.some((f) => sessionFileSet.has(f)));
  if (bySession.length) return { ok: true, kind: 'session', delegations: withNested(bySession) };
  const byPrefix = delegations.filter((d) => d.id.startsWith(query));
  const ids = new Set(byPrefix.map((d) => d.id));
  if (ids.size === 1) return { ok: true, kind: 'prefix', delegations: withNested(byPrefix) };
  if (ids.size > 1) return { ok: false, reason: 'ambiguous', candidates: byPrefix.sort(delegationOrder) };
  return { ok: false, reason: 'unknown' };
}
