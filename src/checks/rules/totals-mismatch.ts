import { isSuccess } from '../../model/delegation.js';
import { hasSubRunEvents, loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const totalsMismatch: Check = {
  meta: {
    id: 'totals-mismatch',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'delegation_completed totals disagree with the folded child set.',
    symptom: 'Wrong aggregate',
    docs: {
      why: 'total_sub_runs, succeeded and failed are what the parent reads; if they disagree with the children the journal shows (retries folded), the parent decided on wrong numbers.',
      example: 'two children journaled, one completed and one failed\ndelegation_completed total_sub_runs 2 succeeded 2 failed 0',
      reportLine: '- [error] totals-mismatch: succeeded is 2 but 1 child succeeded (completed without error); failed is 0 but 1 child did not succeed (j.jsonl:9)',
      fix: 'Check DelegationResult::from_results and which AgentResults reached it; retried originals must not be counted, and setup failures must be counted in failed.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    const c = d.completed;
    if (!c || !hasSubRunEvents(d)) return out;
    const children = d.children.length;
    const ok = d.children.filter((ch) => isSuccess(ch.final)).length;
    const rest = children - ok;
    const problems: string[] = [];
    const extra = c.totalSubRuns !== null ? c.totalSubRuns - children : 0;
    if (c.succeeded !== null && c.succeeded !== ok) problems.push(`succeeded is ${c.succeeded} but ${ok} ${ok === 1 ? 'child' : 'children'} succeeded (completed without error)`);
    if (c.totalSubRuns !== null && extra < 0) problems.push(`total_sub_runs is ${c.totalSubRuns} but ${children} children were journaled (retries folded)`);
    const expectedFailed = rest + Math.max(0, extra);
    if (c.failed !== null && c.failed !== expectedFailed) problems.push(`failed is ${c.failed} but ${rest} journaled ${rest === 1 ? 'child' : 'children'} did not succeed${extra > 0 ? ` plus ${extra} without events` : ''}`);
    if (problems.length > 0) {
      out.push({ message: problems.join('; '), evidence: [loc(c)] });
    } else if (extra > 0) {
      out.push({ severity: 'info', message: `total_sub_runs ${c.totalSubRuns} = ${children} journaled children + ${extra} without events (setup or launch failures), counted in failed (${rest} + ${extra} = ${c.failed})`, evidence: [loc(c)] });
    }
    return out;
  },
};
