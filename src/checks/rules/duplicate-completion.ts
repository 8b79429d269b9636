import { loc, terminalCompletions } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

export const duplicateCompletion: Check = {
  meta: {
    id: 'duplicate-completion',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'A sub-run or a delegation has two completions that disagree (Gen A gate re-completion is info).',
    symptom: 'Retry loop',
    docs: {
      why: 'Two terminal completions with different statuses make the outcome depend on which one a reader keeps. Gen A legitimately re-completes a gated run (completed, then verification_failed); anything else is a tracker bug.',
      example: '{"type":"delegation_sub_run_completed",…,"status":"failed","sub_run_id":"r-1"}\n{"type":"delegation_sub_run_completed",…,"status":"completed","sub_run_id":"r-1"}',
      reportLine: '- [error] duplicate-completion: sub-run r-1 has 2 completions with different statuses (failed, completed); the last one wins (j.jsonl:5, j.jsonl:7)',
      fix: 'Check set_sub_run_result_state: Gen C skips illegal or repeated transitions; a forced second terminal state means two writers raced.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    for (const run of d.runs.values()) {
      const done = terminalCompletions(run);
      const statuses = done.map((c) => c.status);
      if (new Set(statuses).size < 2) continue;
      const genA = statuses.length === 2 && statuses[0] === 'completed' && statuses[1] === 'verification_failed';
      out.push({
        severity: genA ? 'info' : 'error',
        message: genA
          ? `sub-run ${run.runId} completed, then was re-completed as verification_failed by the gate (Gen A pattern); the last one wins`
          : `sub-run ${run.runId} has ${done.length} completions with different statuses (${statuses.join(', ')}); the last one wins`,
        evidence: done.map(loc),
        runs: [run.runId],
      });
    }
    if (d.completions.length > 1) {
      // The parent got two answers when the counts, the status or the joined output differ.
      const sig = (c: (typeof d.completions)[number]) => JSON.stringify([c.totalSubRuns, c.succeeded, c.failed, c.aggregatedStatus, c.aggregatedOutputPreview, c.pattern]);
      const counts = (c: (typeof d.completions)[number]) => JSON.stringify([c.totalSubRuns, c.succeeded, c.failed, c.aggregatedStatus]);
      // The outputs are shown when they are what differs.
      const outputs = new Set(new Set(d.completions.map(counts)).size > 1 ? [] : d.completions.map((c) => c.aggregatedOutputPreview));
      // The pattern too, when the joins name different ones (else two joins would read the same).
      const patterns = new Set(d.completions.map((c) => c.pattern ?? null)).size > 1;
      const shown = (c: (typeof d.completions)[number]) =>
        `${patterns ? `${c.pattern ?? 'no pattern'}: ` : ''}total ${c.totalSubRuns ?? '?'}, succeeded ${c.succeeded ?? '?'}, failed ${c.failed ?? '?'}, ${c.aggregatedStatus ?? '?'}${outputs.size > 1 ? `, output ${typeof c.aggregatedOutputPreview === 'string' ? JSON.stringify(clip(c.aggregatedOutputPreview, 40)) : 'none'}` : ''}`;
      if (new Set(d.completions.map(sig)).size > 1)
        out.push({
          symptom: 'Wrong aggregate', // two joins that disagree, not a retry
          message: `delegation has ${d.completions.length} delegation_completed events that disagree (${d.completions.map(shown).join(' vs ')}); the last one is used`,
          evidence: d.completions.map(loc),
        });
    }
    return out;
  },
};
