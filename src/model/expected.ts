import type { Delegation } from './delegation.js';

/** What a pattern promises about its children (journal-format.md §9). */
export interface Expectation {
  /** Agents in the order the engine starts them, with multiplicity; null when unknowable. */
  agents: string[] | null;
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
      if (!fork) return { agents: null, count: null, label: ids.length ? `unknown (fork agent ${ids.join(',')} has no ×N)` : 'unknown', fork: null };
      return { agents: Array(fork.n).fill(fork.agent), count: fork.n, label: String(fork.n), fork };
    }
    case 'adversarial_review': {
      const total = d.completed?.totalSubRuns;
      if (typeof total === 'number') return { agents: alternate(ids, total), count: total, label: String(total), fork: null };
      return { agents: null, count: null, label: '2 agents, rounds unknown', fork: null };
    }
    case 'fan_out':
    case 'pipeline':
    case 'sequential':
      // agent_count is on delegation_started only: without it the expectation is unknown, not 0.
      if (!d.started) return { agents: null, count: null, label: 'unknown (no delegation_started)', fork: null };
      return { agents: ids, count, label: String(count), fork: null };
    default:
      return { agents: ids.length ? ids : null, count: ids.length ? count : null, label: d.started ? String(count) : 'unknown (no delegation_started)', fork: null };
  }
}

function alternate(ids: string[], total: number): string[] | null {
  if (ids.length !== 2) return null;
  return Array.from({ length: total }, (_, i) => ids[i % 2]);
}

/** How many starts per agent the pattern allows (null = no fixed limit). */
export function allowedStartsPerAgent(d: Delegation, e: Expectation): Map<string, number> | null {
  if (d.pattern === 'adversarial_review' && e.agents === null) return null;
  if (!e.agents) return null;
  const counts = new Map<string, number>();
  for (const a of e.agents) counts.set(a, (counts.get(a) ?? 0) + 1);
  return counts;
}
