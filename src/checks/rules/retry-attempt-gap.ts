import { loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';
import { LISTED_MAX, shortList } from '../short-list.js';

/** The attempt numbers and the expected ones; a list too long to show whole names the first out of place. */
function numbering(numbers: (number | null)[], bad: number, badRun: string): string {
  const shown = `${shortList(numbers.map((n) => String(n ?? '?')))}, expected ${shortList(numbers.map((_, i) => String(i + 2)))}`;
  return numbers.length <= LISTED_MAX ? shown : `${shown}; the first out of place: run ${badRun} is numbered ${numbers[bad]}, expected ${bad + 2}`;
}

export const retryAttemptGap: Check = {
  meta: {
    id: 'retry-attempt-gap',
    category: 'trace',
    defaultSeverity: 'warning',
    description: 'Attempts of a retry chain are not numbered 2, 3, … or the chain is longer than the gate allows.',
    symptom: 'Retry loop',
    docs: {
      why: 'The verification gate numbers retries 2, 3, … and its max_retries caps total attempts (default 2, i.e. one retry). A gap or an over-long chain means lost events or a gate that does not stop.',
      example: 'delegation_retry r-1 → r-2 attempt 2\ndelegation_retry r-2 → r-3 attempt 3',
      reportLine: '- [warning] retry-attempt-gap: child of agent coder ran 3 attempts (r-1 → r-2 → r-3); the gate allows 2 total attempts (--max-attempts) (j.jsonl:4, j.jsonl:8)',
      fix: 'Check VerificationGate::max_retries and the loop condition in apply_gate (attempt >= max_retries), and DelegationRetry.reason for why every attempt failed.',
    },
  },
  run({ delegation: d, options }) {
    const out: Report[] = [];
    for (const child of d.children) {
      if (child.attempts.length < 2) continue;
      const events = child.attempts.slice(1).map((r) => r.retryEvent);
      const numbers = events.map((e) => e?.attempt ?? null);
      const bad = numbers.findIndex((n, i) => n !== null && n !== i + 2);
      const chain = shortList(child.attempts.map((r) => r.runId), ' → ');
      // Each retry rests on its delegation_retry, or on its start when only retry_of links it.
      const evidence = child.attempts.slice(1).flatMap((r) => (r.retryEvent ? [loc(r.retryEvent)] : r.starts.slice(0, 1).map(loc)));
      if (bad !== -1)
        out.push({ message: `attempts of the ${child.agentId ?? '?'} chain are numbered ${numbering(numbers, bad, child.attempts[bad + 1].runId)} (${chain})`, evidence, runs: child.attempts.map((r) => r.runId) });
      if (child.attempts.length > options.maxAttempts)
        out.push({ message: `child of agent ${child.agentId ?? '?'} ran ${child.attempts.length} attempts (${chain}); the gate allows ${options.maxAttempts} total attempts (--max-attempts)`, evidence, runs: child.attempts.map((r) => r.runId) });
    }
    return out;
  },
};
