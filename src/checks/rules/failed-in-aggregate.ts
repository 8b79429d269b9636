import { compareInstants } from '../../journal/time.js';
import type { SubRunCompletedEvent } from '../../journal/types.js';
import { isSuccess, type Delegation } from '../../model/delegation.js';
import { loc, terminalCompletions } from '../../model/evidence.js';
import { delegationTree } from '../../model/group.js';
import type { Check, Report } from '../types.js';

const SEPARATOR = '\n---\n';
const MIN_SUBSTRING = 40;

export const failedInAggregate: Check = {
  meta: {
    id: 'failed-in-aggregate',
    category: 'join',
    defaultSeverity: 'error',
    description: 'The aggregate counts or contains what did not succeed (a failed child, or another run\'s stale output).',
    symptom: 'Wrong aggregate',
    docs: {
      why: 'A join that counts a failed child, or publishes an artifact from a failed run or from another delegation (yesterday\'s result still in the store), delivers a wrong answer on time with no error anywhere.',
      example: 'us: delegation_sub_run_completed status failed\ndelegation_completed succeeded 2, aggregated_output_preview "EU price 102\\n---\\nUS price 97.5" (97.5 came from run r41)',
      reportLine: '- [error] failed-in-aggregate: the aggregate contains "US price 97.5", the output of sub-run run-us-r41 of delegation d-r41 (parent run r41), not of this delegation (j.jsonl:2, j.jsonl:9)',
      fix: 'Join only artifacts of completed tasks of this run: check the task state and the run id of every artifact before aggregating (aggregate_results in coordination.rs).',
    },
  },
  run({ delegation: d, all }) {
    const out: Report[] = [];
    const join = d.completed;
    if (!join) return out;
    // Counting: by the join's own time, how many children had succeeded?
    if (join.succeeded !== null && join.time) {
      const okAtJoin = d.children.filter((c) => {
        const done = terminalCompletions(c.final);
        const last = done[done.length - 1];
        return isSuccess(c.final) && last?.time && compareInstants(last.time, join.time!) <= 0;
      });
      if (d.children.length > 0 && join.succeeded > okAtJoin.length) {
        const others = d.children.filter((c) => !okAtJoin.includes(c)).map((c) => `${c.agentId ?? c.key} ${describe(c.final.completions, join.time!)}`);
        out.push({
          message: `succeeded=${join.succeeded} but only ${okAtJoin.length} ${okAtJoin.length === 1 ? 'child' : 'children'} had completed successfully by the join (${others.join('; ')})`,
          evidence: [loc(join), ...d.children.flatMap((c) => terminalCompletions(c.final).slice(-1).map(loc))],
          runs: d.children.filter((c) => !okAtJoin.includes(c)).map((c) => c.final.runId),
        });
      }
    }
    const agg = join.aggregatedOutputPreview;
    if (typeof agg !== 'string' || agg.trim() === '') return out;
    const segments = agg.split(SEPARATOR).map((s) => s.trim()).filter(Boolean);
    const own = new Set(delegationTree(d).flatMap((x) => [...x.runs.values()]));
    const goodOutputs = new Set<string>();
    for (const run of d.runs.values()) for (const c of run.completions) if (c.status === 'completed' && c.outputPreview) goodOutputs.add(c.outputPreview.trim());
    const reported = new Set<string>();
    const check = (preview: string, where: SubRunCompletedEvent, label: string, runId: string) => {
      const p = preview.trim();
      if (!p || goodOutputs.has(p) || reported.has(p)) return;
      const hit = segments.some((s) => s === p) || (p.length >= MIN_SUBSTRING && agg.includes(p));
      if (!hit) return;
      reported.add(p);
      out.push({ message: `the aggregate contains ${JSON.stringify(clip(p))}, ${label}`, evidence: [loc(where), loc(join)], runs: [runId] });
    };
    for (const run of d.runs.values()) {
      for (const c of run.completions) if (c.status !== 'completed' && c.outputPreview) check(c.outputPreview, c, `the output of sub-run ${run.runId} (agent ${run.agentId ?? '?'}), whose status is ${c.status}`, run.runId);
    }
    for (const other of all) {
      if (other === d || isNested(other, d)) continue;
      for (const run of other.runs.values()) {
        if (own.has(run)) continue;
        for (const c of run.completions)
          if (c.outputPreview) check(c.outputPreview, c, `the output of sub-run ${run.runId} (agent ${run.agentId ?? '?'}) of delegation ${other.id} (parent run ${other.parentRunId ?? '?'}), not of this delegation`, run.runId);
      }
    }
    return out;
  },
};

function isNested(candidate: Delegation, of: Delegation): boolean {
  for (let cur = candidate.parent?.delegation ?? null; cur; cur = cur.parent?.delegation ?? null) if (cur === of) return true;
  return false;
}

function describe(completions: SubRunCompletedEvent[], joinTime: { ms: number; subNs: number }): string {
  const last = completions[completions.length - 1];
  if (!last) return 'had not completed';
  if (last.time && compareInstants(last.time, joinTime) > 0) return `completed ${last.status} after the join`;
  return `${last.status}${last.error ? `: ${clip(last.error)}` : ''}`;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}
