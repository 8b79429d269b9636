// DOM ids come from positions in the report, never from journal text (which is untrusted).
import type { DelegationReport } from '../../report/types.js';

export const sectionId = (i: number): string => `d${i}`;
export const barId = (i: number, child: number, attempt: number): string => `d${i}-c${child}-a${attempt}`;
export const findingId = (i: number, n: number): string => `d${i}-f${n}`;

/**
 * Every drawn attempt's bar id by run id, across the whole page (findings may name any run).
 * `drawn` says whether a delegation has a timeline at all (none when no timestamp parses).
 */
export function barsByRun(delegations: DelegationReport[], drawn: (d: DelegationReport) => boolean = () => true): Map<string, string[]> {
  const out = new Map<string, string[]>();
  delegations.forEach((d, i) =>
    drawn(d) &&
    d.children.forEach((c, j) =>
      c.attempts.forEach((a, k) => {
        out.set(a.runId, [...(out.get(a.runId) ?? []), barId(i, j, k)]);
      }),
    ),
  );
  return out;
}

/** Section index of every delegation key, for links between parent and nested delegations. */
export function sectionIndex(delegations: DelegationReport[]): Map<string, number> {
  return new Map(delegations.map((d, i) => [d.key, i] as const));
}
