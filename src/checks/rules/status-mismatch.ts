import { isPausedStatus } from '../../model/delegation.js';
import { hasSubRunEvents, loc, pauseThatHeld, settledAtJoin } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const statusMismatch: Check = {
  meta: {
    id: 'status-mismatch',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'aggregated_status contradicts the succeeded / failed counts.',
    symptom: 'Wrong aggregate',
    docs: {
      why: 'The aggregated status is what dashboards and parents branch on. completed with failures, failed with successes or partial without both hides the real outcome. unfinished needs a paused or waiting child: when every started sub-run completed, none is in evidence, and that is a warning.',
      example: '{"type":"delegation_completed",…,"metadata":{"aggregated_status":"completed","failed":1,"succeeded":1,…}}',
      reportLine: '- [error] status-mismatch: aggregated_status completed but failed=1 (j.jsonl:9)',
      fix: 'Check DelegationResult::from_results: completed needs every result successful, partial needs at least one of each, unfinished needs a waiting or paused result.',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    const c = d.completed;
    if (!c || c.succeeded === null || c.failed === null) return out;
    const s = c.succeeded;
    const f = c.failed;
    const ev = [loc(c)];
    switch (c.aggregatedStatus) {
      case 'completed':
        if (f > 0) out.push({ message: `aggregated_status completed but failed=${f}`, evidence: ev });
        break;
      case 'failed':
        if (s > 0) out.push({ message: `aggregated_status failed but succeeded=${s}`, evidence: ev });
        break;
      case 'partial':
        if (f === 0 || s === 0) out.push({ message: `aggregated_status partial needs successes and failures, but succeeded=${s} failed=${f}`, evidence: ev });
        break;
      case 'unfinished': {
        // A pause that a later settling completion undid (resumed, then settled; no resume marker needed) is no paused child at the join.
        const paused = [...d.runs.values()].some((r) => pauseThatHeld(r) !== null || isPausedStatus(r.completions.at(-1)?.status ?? null) || (r.starts.length > 0 && !settledAtJoin(r, c))); // still running at the join = waiting
        if (!paused && hasSubRunEvents(d)) out.push({ severity: 'warning', message: 'aggregated_status unfinished but no paused or waiting child is in evidence (every started sub-run completed)', evidence: ev });
        break;
      }
    }
    return out;
  },
};
