import type { Delegation } from './delegation.js';

/** What a pattern promises about its children (journal-format.md §9). */
export interface Expectation {
  /**
   * How many children the pattern starts for each agent; null when unknowable. Counted, not
   * listed: a fork's ×N and adversarial_review's total_sub_runs come from the journal, and a
   * `coder×99999999999` must not become an array of that length.
   */
  agentCounts: ReadonlyMap<string, number> | null;
  /** How many children; null when the journal does not say (adversarial_review in flight). */
  count: number | null;
  /** The `Expected agents/tasks:` line of the report. */
  label: string;
  /** fork only: the real agent id and N parsed from `"<agent>×N"`. */
  fork: { agent: string; n: number } | null;
}

/** `"coder×3"` → { agent: 'coder', n: 3 } (U+00D7, as the engine writes it). */
export function parseForkAgent(entry: string): { agent: string; n: number } | null {
  const m = /^(.*)[×]\s*(\d+)$/u.exec(entry);
  if (!m || !m[1]) return null;
  return { agent: m[1], n: Number(m[2]) };
}

export function expectationFor(d: Delegation): Expectation {
  const ids = d.started?.agentIds ?? [];
  const count = d.started?.agentCount ?? ids.length;
  switch (d.pattern) {
    case 'fork': {
      const fork = ids.length === 1 ? parseForkAgent(ids[0]) : null;
      if (!fork) return { agentCounts: null, count: null, label: ids.length ? `unknown (fork agent ${ids.join(',')} has no ×N)` : 'unknown', fork: null };
      return { agentCounts: new Map([[fork.agent, fork.n]]), count: fork.n, label: String(fork.n), fork };
    }
    case 'adversarial_review': {
      const total = d.completed?.totalSubRuns;
      if (typeof total === 'number') return { agentCounts: alternate(ids, total), count: total, label: String(total), fork: null };
      return { agentCounts: null, count: null, label: '2 agents, rounds unknown', fork: null };
    }
    case 'fan_out':
    case 'pipeline':
    case 'sequential':
      // agent_count is on delegation_started only: without it the expectation is unknown, not 0.
      if (!d.started) return { agentCounts: null, count: null, label: 'unknown (no delegation_started)', fork: null };
      return { agentCounts: countsOf(ids), count, label: String(count), fork: null };
    default:
      return { agentCounts: ids.length ? countsOf(ids) : null, count: ids.length ? count : null, label: d.started ? String(count) : 'unknown (no delegation_started)', fork: null };
  }
}

/** Each agent id with its multiplicity in the list. */
function countsOf(ids: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of ids) counts.set(a, (counts.get(a) ?? 0) + 1);
  return counts;
}

/** Producer and reviewer alternate, producer first: of `total` children it starts the odd-numbered ones. */
function alternate(ids: string[], total: number): Map<string, number> | null {
  if (ids.length !== 2) return null;
  const n = total >= 0 ? Math.floor(total) : 0; // a negative or fractional total starts none, or its whole part
  const producer = Math.ceil(n / 2);
  // The same agent twice (a self-review) starts them all.
  return ids[0] === ids[1] ? new Map([[ids[0], n]]) : new Map([[ids[0], producer], [ids[1], n - producer]]);
}

/** How many starts per agent the pattern allows (null = no fixed limit). */
export function allowedStartsPerAgent(_d: Delegation, e: Expectation): ReadonlyMap<string, number> | null {
  return e.agentCounts;
}
