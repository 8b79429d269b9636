import type { Instant } from '../../journal/types.js';
import { isSuccess, type Child, type SubRun } from '../../model/delegation.js';
import { terminalCompletions } from '../../model/evidence.js';
import type { Assignment } from '../binding.js';

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

/** The child's first start: when its subtask began. */
export function childStart(c: Child) {
  return startOf(c.attempts[0]);
}

/** A settled attempt that did not succeed (failed, cancelled, verification_failed, or completed with an error). */
export function failedAttempt(run: SubRun): boolean {
  return settledBy(run) !== null && !isSuccess(run);
}

export function ms(t: Instant): number {
  return t.ms + t.subNs / 1e6;
}

/** `372000` → `6m12s`; `300900` → `5m0.9s`; under a minute, seconds (`1.5s`, `30.0004s`). */
export function humanDuration(msValue: number): string {
  // Down to the microsecond, trailing zeros dropped: a breach by a fraction of a second must not print as the limit itself.
  const seconds = (v: number) => `${v.toFixed(6).replace(/\.?0+$/, '')}s`;
  if (msValue < 60_000) return seconds(msValue / 1000);
  const total = msValue / 1000;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total - h * 3600 - m * 60;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s >= 0.0000005 ? seconds(s) : ''}`;
}
