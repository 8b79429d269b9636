import { compareInstants, diffMs } from '../../journal/time.js';
import type { Instant } from '../../journal/types.js';
import { isSuccess, type Child, type SubRun } from '../../model/delegation.js';
import { terminalCompletions } from '../../model/evidence.js';
import type { Assignment, ContractBinding } from '../binding.js';

export const q = (s: string) => JSON.stringify(s);

/** `subtask "enrich-data" (agent enricher, run r-2)` */
export function who(a: Assignment, run?: SubRun): string {
  const r = run ?? a.child?.attempts[0];
  return `subtask ${q(a.subtask.id)} (agent ${a.subtask.agent}${r ? `, run ${r.runId}` : ''})`;
}

export function startOf(run: SubRun) {
  return run.starts[0] ?? null;
}

/** The terminal completion that settled a run (the last one journaled), or null. */
export function settledBy(run: SubRun) {
  const done = terminalCompletions(run);
  return done.length ? done[done.length - 1] : null;
}

/**
 * When a run stopped running: its first terminal completion. A later one re-completes it (Gen A's
 * gate re-completes a finished run as verification_failed after the whole batch, journal-format §4).
 */
export function stoppedBy(run: SubRun) {
  return terminalCompletions(run)[0] ?? null;
}

/** The child's first start: when its subtask began. */
export function childStart(c: Child) {
  return startOf(c.attempts[0]);
}

/** A settled attempt that did not succeed (failed, cancelled, verification_failed, or completed with an error). */
export function failedAttempt(run: SubRun): boolean {
  return settledBy(run) !== null && !isSuccess(run);
}

/**
 * How long a run ran from its first start to `done`, without the spans it spent paused: from a
 * pause marker to the resume marker or the second start that follows it (journal-format §5.1).
 * A run paused and never resumed stopped running at the pause.
 */
export function runningMs(run: SubRun, begin: Instant, end: Instant): { ms: number; pausedMs: number } {
  const total = diffMs(end, begin);
  const within = (t: Instant | null): t is Instant => !!t && compareInstants(t, begin) >= 0 && compareInstants(t, end) <= 0;
  const changes: { at: Instant; running: boolean }[] = [];
  for (const m of run.markers) if ((m.action === 'pause' || m.action === 'resume') && within(m.time)) changes.push({ at: m.time, running: m.action === 'resume' });
  if (!changes.some((c) => !c.running)) return { ms: total, pausedMs: 0 };
  for (const s of run.starts) if (within(s.time) && s.time !== begin) changes.push({ at: s.time, running: true });
  changes.sort((a, b) => compareInstants(a.at, b.at));
  let paused = 0;
  let pausedAt: Instant | null = null;
  for (const c of changes) {
    if (!c.running && !pausedAt) pausedAt = c.at;
    else if (c.running && pausedAt) {
      paused += diffMs(c.at, pausedAt);
      pausedAt = null;
    }
  }
  if (pausedAt) paused += diffMs(end, pausedAt);
  return { ms: total - paused, pausedMs: paused };
}

/** Whether subtask `id` needs subtask `on`, directly or through other dependencies. */
export function dependsOn(b: ContractBinding, id: string, on: string, seen = new Set<string>()): boolean {
  if (seen.has(id)) return false; // a cycle is the plan validator's concern
  seen.add(id);
  return (b.byId.get(id)?.subtask.dependencies ?? []).some((dep) => dep === on || dependsOn(b, dep, on, seen));
}

export function ms(t: Instant): number {
  return t.ms + t.subNs / 1e6;
}

/** `372000` → `6m12s`; `300900` → `5m0.9s`; under a minute, seconds (`1.5s`, `30.0004s`). */
export function humanDuration(msValue: number): string {
  // Down to the nanosecond (journal precision), trailing zeros dropped: a breach by a fraction of a second must not print as the limit itself.
  const seconds = (v: number) => `${v.toFixed(9).replace(/\.?0+$/, '')}s`;
  if (msValue < 60_000) return seconds(msValue / 1000);
  const total = msValue / 1000;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total - h * 3600 - m * 60;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s >= 0.0000000005 ? seconds(s) : ''}`;
}
