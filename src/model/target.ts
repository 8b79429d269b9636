import type { ReportTargetKind } from '../report/types.js';
import { sessionIdOfPath } from '../journal/discover.js';
import { compareInstants } from '../journal/time.js';
import type { Instant, JournalEvent } from '../journal/types.js';
import type { Delegation } from './delegation.js';
import { delegationTree } from './group.js';

export type TargetKind = Exclude<ReportTargetKind, 'follow'>;

export type TargetResult =
  | { ok: true; kind: TargetKind; delegations: Delegation[]; /** For a prefix: the one id it resolved to. */ prefixOf?: string }
  | { ok: false; reason: 'ambiguous'; candidates: Delegation[] }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'empty' };

/** Start time, or the first event's, for ordering blocks and finding the newest delegation. */
export function delegationOrder(a: Delegation, b: Delegation): number {
  const ea = a.started ?? a.events[0];
  const eb = b.started ?? b.events[0];
  // One key for all (a total order): time, then file and line; an untimed event takes the time
  // of the event before it in its file (no time before it at all: first).
  const ta = ea ? placeOf(ea) : null;
  const tb = eb ? placeOf(eb) : null;
  const byTime = ta && tb ? compareInstants(ta, tb) : ta ? 1 : tb ? -1 : 0;
  return byTime || (ea?.fileIndex ?? 0) - (eb?.fileIndex ?? 0) || (ea?.line ?? 0) - (eb?.line ?? 0);
}

/** Where an event orders in time: its own `ts`, or for an untimed one the time it follows in its file. */
export function placeOf(e: JournalEvent): Instant | null {
  return e.time ?? e.after ?? null;
}

/** The selected delegations plus their nested descendants, each once, in start order. */
function withNested(selected: Delegation[]): Delegation[] {
  const out = new Set<Delegation>();
  for (const d of selected) for (const x of delegationTree(d)) out.add(x);
  return [...out].sort(delegationOrder);
}

/** No target, or `last`: the newest delegation start. */
export function isLastTarget(query: string | undefined): query is undefined | '' | 'last' {
  return query === undefined || query === '' || query === 'last';
}

/**
 * The parent runs a delegation belongs to: its start's; with no start journaled (rotated away,
 * torn), the ones its sub-run starts name, so the parent run id still finds it.
 */
function parentRunsOf(d: Delegation): (string | null)[] {
  if (d.started) return [d.parentRunId];
  return d.events.flatMap((e) => (e.type === 'delegation_sub_run_started' ? [e.parentRunId] : []));
}

/** The target rules, each alone (resolveTarget applies them in precedence order). */
function targetRules(query: string, sessionFiles: Map<string, string[]>) {
  const sessionFileSet = new Set(sessionFiles.get(query) ?? []);
  return {
    id: (d: Delegation) => d.id === query || d.key === query,
    parentRun: (d: Delegation) => parentRunsOf(d).includes(query),
    session: (d: Delegation) => d.sessions.includes(query) || d.files.some((f) => sessionFileSet.has(f)),
    prefix: (d: Delegation) => d.id.startsWith(query),
  };
}

/**
 * Whether any target rule selects `d`: resolveTarget over only such delegations gives what it
 * gives over all of them (each rule looks at its own matches), so a streamed scan keeps these.
 */
export function targetCandidate(query: string, sessionFiles: Map<string, string[]>): (d: Delegation) => boolean {
  const rules = targetRules(query, sessionFiles);
  return (d) => rules.id(d) || rules.parentRun(d) || rules.session(d) || rules.prefix(d);
}

/** Journal display paths by the session id in their names (`<sid>.jsonl[.gz]`). */
export function filesBySession(files: readonly string[]): Map<string, string[]> {
  const bySession = new Map<string, string[]>();
  for (const f of files) {
    const sid = sessionIdOfPath(f);
    const list = bySession.get(sid);
    if (list) list.push(f);
    else bySession.set(sid, [f]);
  }
  return bySession;
}

/**
 * Resolves a target in the precedence of CHECKS.md: exact delegation id (or key), exact parent
 * run id, exact session id, then a unique delegation-id prefix. `last` / empty: newest start.
 */
export function resolveTarget(query: string | undefined, delegations: Delegation[], sessionFiles: Map<string, string[]> = new Map()): TargetResult {
  if (isLastTarget(query)) {
    const started = delegations.filter((d) => d.started);
    if (started.length === 0) return { ok: false, reason: 'empty' };
    const newest = started.reduce((a, b) => (delegationOrder(a, b) >= 0 ? a : b));
    return { ok: true, kind: 'last', delegations: withNested([newest]) };
  }
  const rules = targetRules(query, sessionFiles);
  const byId = delegations.filter(rules.id);
  if (byId.length) return { ok: true, kind: 'delegation', delegations: withNested(byId) };
  const byParent = delegations.filter(rules.parentRun);
  if (byParent.length) return { ok: true, kind: 'parent-run', delegations: withNested(byParent) };
  const bySession = delegations.filter(rules.session);
  if (bySession.length) return { ok: true, kind: 'session', delegations: withNested(bySession) };
  const byPrefix = delegations.filter(rules.prefix);
  const ids = new Set(byPrefix.map((d) => d.id));
  if (ids.size === 1) return { ok: true, kind: 'prefix', delegations: withNested(byPrefix), prefixOf: byPrefix[0].id };
  if (ids.size > 1) return { ok: false, reason: 'ambiguous', candidates: byPrefix.sort(delegationOrder) };
  return { ok: false, reason: 'unknown' };
}
