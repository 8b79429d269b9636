import type { Delegation, SubRun } from '../../model/delegation.js';
import { hasSubRunEvents, loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';
import { LISTED_MAX, shortList } from '../short-list.js';

/** The attempt numbers and the expected ones (from `first` up); a list too long to show whole names the first out of place. */
function numbering(numbers: (number | null)[], first: number, bad: number, badRun: string): string {
  const shown = `${shortList(numbers.map((n) => String(n ?? '?')))}, expected ${shortList(numbers.map((_, i) => String(i + first)))}`;
  return numbers.length <= LISTED_MAX ? shown : `${shown}; the first out of place: run ${badRun} is numbered ${numbers[bad]}, expected ${bad + first}`;
}

/**
 * Attempts before the chain's first journaled run: none for an original; for a retry whose
 * original has no event here (its lines were lost), the attempts its delegation_retry numbers
 * before it (at least the original).
 */
function unjournaledLead(d: Delegation, first: SubRun): number {
  const original = first.retryOf === null ? undefined : d.runs.get(first.retryOf);
  if (first.retryOf === null || (original && (original.starts.length > 0 || original.completions.length > 0))) return 0;
  const n = first.retryEvent?.attempt;
  return typeof n === 'number' && Number.isInteger(n) && n >= 2 ? n - 1 : 1;
}

export const retryAttemptGap: Check = {
  meta: {
    id: 'retry-attempt-gap',
    category: 'trace',
    defaultSeverity: 'warning',
    description: 'Attempts of a retry chain are not numbered 2, 3, … or the chain is longer than the gate allows.',
    symptom: 'Retry loop',
    docs: {
      why: 'The verification gate numbers retries 2, 3, … and its max_retries caps total attempts (default 2, i.e. one retry). A gap or an over-long chain means lost events or a gate that does not stop. A chain whose original left no line (retry-unlinked reports it) is numbered from its first retry\'s attempt, and the lost attempts before it still count toward the total.',
      example: 'delegation_retry r-1 → r-2 attempt 2\ndelegation_retry r-2 → r-3 attempt 3',
      reportLine: '- [warning] retry-attempt-gap: child of agent coder ran 3 attempts (r-1 → r-2 → r-3); the gate allows 2 total attempts (--max-attempts) (j.jsonl:4, j.jsonl:8)',
      fix: 'Check VerificationGate::max_retries and the loop condition in apply_gate (attempt >= max_retries), and DelegationRetry.reason for why every attempt failed.',
    },
  },
  run({ delegation: d, options }) {
    const out: Report[] = [];
    // No sub-run event: the tracker was unbound, and retry checks are skipped (CHECKS.md resolved detail 1; a Limits line says so).
    if (!hasSubRunEvents(d)) return out;
    for (const child of d.children) {
      // A chain whose original left no line starts at a retry: its number anchors the ones after it,
      // and the lost attempts count toward the total even when that retry is the only one journaled.
      const lead = unjournaledLead(d, child.attempts[0]);
      if (lead + child.attempts.length < 2) continue;
      const firstChecked = lead + 2;
      const events = child.attempts.slice(1).map((r) => r.retryEvent);
      const numbers = events.map((e) => e?.attempt ?? null);
      const bad = numbers.findIndex((n, i) => n !== null && n !== i + firstChecked);
      const lost = lead > 0 ? [`${child.attempts[0].retryOf}${lead > 1 ? ` and ${lead - 1} before it` : ''} (no event here)`] : [];
      const chain = shortList([...lost, ...child.attempts.map((r) => r.runId)], ' → ');
      const total = lead + child.attempts.length;
      // Each retry rests on its delegation_retry, or on its start when only retry_of links it.
      const evidence = child.attempts.slice(lead > 0 ? 0 : 1).flatMap((r) => (r.retryEvent ? [loc(r.retryEvent)] : r.starts.slice(0, 1).map(loc)));
      if (bad !== -1)
        out.push({ message: `attempts of the ${child.agentId ?? '?'} chain are numbered ${numbering(numbers, firstChecked, bad, child.attempts[bad + 1].runId)} (${chain})`, evidence, runs: child.attempts.map((r) => r.runId) });
      if (total > options.maxAttempts)
        out.push({ message: `child of agent ${child.agentId ?? '?'} ran ${total} attempts (${chain}); the gate allows ${options.maxAttempts} total attempts (--max-attempts)`, evidence, runs: child.attempts.map((r) => r.runId) });
    }
    return out;
  },
};
