import { loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const foreignParent: Check = {
  meta: {
    id: 'foreign-parent',
    category: 'join',
    defaultSeverity: 'error',
    description: 'A sub-run belongs to another parent run, or one sub_run_id appears in two delegations.',
    symptom: 'Child cannot message parent',
    docs: {
      why: 'Every sub-run of a delegation must carry the delegation\'s parent_run_id. A foreign parent means a result from another run (yesterday\'s) was attached to this one.',
      example: 'delegation_started parent_run_id r42\ndelegation_sub_run_started sub_run_id run-us parent_run_id r41',
      reportLine: '- [error] foreign-parent: sub-run run-us has parent_run_id r41 but the delegation\'s parent run is r42 (j.jsonl:1, j.jsonl:3)',
      fix: 'Check how results are keyed: require the current run id on every artifact (MessageTarget::Parent resolution, record_sub_run).',
    },
  },
  run({ delegation: d, all }) {
    const out: Report[] = [];
    if (d.started && d.parentRunId) {
      for (const run of d.runs.values())
        for (const s of run.starts)
          if (s.parentRunId && s.parentRunId !== d.parentRunId)
            out.push({ message: `sub-run ${run.runId} has parent_run_id ${s.parentRunId} but the delegation's parent run is ${d.parentRunId}`, evidence: [loc(d.started), loc(s)], runs: [run.runId] });
    }
    for (const run of d.runs.values()) {
      const elsewhere = all.filter((o) => o !== d && o.runs.has(run.runId) && (o.runs.get(run.runId)!.starts.length > 0 || o.runs.get(run.runId)!.completions.length > 0));
      if (elsewhere.length === 0) continue;
      const first = [...run.starts, ...run.completions][0];
      const there = elsewhere.map((o) => { const r = o.runs.get(run.runId)!; return [...r.starts, ...r.completions][0]; });
      out.push({ message: `sub-run ${run.runId} also appears in delegation ${elsewhere.map((o) => o.key).join(', ')}`, evidence: [first, ...there].filter(Boolean).map(loc), runs: [run.runId] });
    }
    return out;
  },
};
