import type { AttemptReport, DelegationReport } from '../report/types.js';

/**
 * Journal text inside Mermaid source: keep letters, digits and a few harmless marks. `:` ends a
 * task name, `#` and `%` start comments, `;` and newlines end a statement and a backtick could
 * close the Markdown fence, so none of them may pass.
 */
export function mermaidText(s: string, max = 60): string {
  const kept = s.replace(/[^\p{L}\p{N} _.\-()/+=]/gu, ' ').replace(/\s+/g, ' ').trim();
  const cut = kept.length > max ? `${kept.slice(0, max - 1).trimEnd()}…` : kept;
  return cut || '?';
}

const SUCCESS = new Set(['completed', 'delegated']);

/** Mermaid task tags: failed runs are `crit`, settled successes `done`, open runs `active`. */
function tags(a: AttemptReport): string[] {
  if (a.open) return ['active'];
  // Settled with no status (or none a run has): a failure, as the engine counts it.
  return a.status !== null && SUCCESS.has(a.status) ? ['done'] : ['crit'];
}

/** Starts with a fixed word: Mermaid's lexer would read a leading `call`, `click`, `title`… as a keyword. */
function barLabel(agent: string, a: AttemptReport): string {
  const retry = a.retryOf ? ` retry of ${a.retryOf.slice(0, 8)}` : '';
  // Not open with no status: a completion that carried none, or a run never started.
  const state = a.open ? 'open' : a.status ?? (a.endTs !== null ? 'no status' : 'no completion');
  return `attempt ${a.attempt} ${mermaidText(`${agent}${retry} ${state}`, 80)}`;
}

/** Where an open (never settled) run's bar ends: the delegation's end, else its last known time. */
function openEnd(d: DelegationReport): number | null {
  if (d.completedMs !== null) return d.completedMs;
  const times = d.children.flatMap((c) => c.attempts.flatMap((a) => [a.startMs, a.endMs])).filter((t): t is number => t !== null);
  // A loop, not Math.max(...times): a delegation of 100,000s of attempts is too many arguments.
  return times.length ? times.reduce((a, b) => Math.max(a, b)) : null;
}

/**
 * A Mermaid `gantt` chart of a delegation's sub-runs: one section per agent, one bar per attempt
 * (retries are their own bars, labelled with the run they retry). Null when no attempt has a time.
 */
export function delegationGantt(d: DelegationReport): string | null {
  const sections = new Map<string, AttemptReport[]>();
  for (const child of d.children) {
    const agent = mermaidText(child.agentId ?? 'unknown agent');
    sections.set(agent, [...(sections.get(agent) ?? []), ...child.attempts]);
  }
  const fallbackEnd = openEnd(d);
  const lines: string[] = [];
  let n = 0;
  for (const [agent, attempts] of sections) {
    const bars: string[] = [];
    for (const a of attempts) {
      if (a.startMs === null) continue;
      const start = Math.round(a.startMs);
      const rawEnd = a.endMs ?? (a.open ? fallbackEnd : null) ?? a.startMs;
      // Mermaid hides zero-length bars; give every bar at least one millisecond.
      const end = Math.max(Math.round(rawEnd), start + 1);
      bars.push(`    ${barLabel(agent, a)} :${[...tags(a), `r${++n}`, start, end].join(', ')}`);
    }
    if (bars.length) lines.push(`    section ${agent}`, ...bars);
  }
  if (!lines.length) return null;
  return ['gantt', `    title ${mermaidText(`${d.pattern ?? 'delegation'} ${d.key}`, 80)}`, '    dateFormat x', '    axisFormat %H:%M:%S', ...lines].join('\n');
}
