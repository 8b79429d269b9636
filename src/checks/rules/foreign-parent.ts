import type { DelegationEvent } from '../../journal/types.js';
import type { Delegation, SubRun } from '../../model/delegation.js';
import { memoPerScan, runsById, type RunRef } from '../../model/cross-index.js';
import { loc } from '../../model/evidence.js';
import { placeOf } from '../../model/target.js';
import { compareInstants } from '../../journal/time.js';
import type { Check, Report } from '../types.js';

export const foreignParent: Check = {
  meta: {
    id: 'foreign-parent',
    category: 'join',
    defaultSeverity: 'error',
    description: 'A sub-run belongs to another parent run, or one sub_run_id appears in two delegations.',
    symptom: 'Child cannot message parent',
    docs: {
      why:
        "Every sub-run of a delegation carries the delegation's parent_run_id. A different one means a child of another run (yesterday's) was attached to this delegation, so its result reaches, or is joined by, the wrong parent; a sub_run_id in two delegations means one result can be joined twice (a finding names the first 10 other delegations, then counts the rest: \"and N more\"). A nested delegation is not a mismatch: its parent_run_id is an outer sub-run id, and its own sub-runs carry that id, so they are checked against the inner delegation. A delegation id reused with another parent run is two delegations (sub-runs are attached by parent_run_id).",
      example: [
        '{"type":"delegation_started","ts":"2026-03-10T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":2,"agent_ids":["eu","us"],"delegation_id":"d-1","parent_run_id":"r42","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"eu","delegation_id":"d-1","depth":1,"parent_run_id":"r42","retry_of":null,"status":"running","sub_run_id":"run-eu"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.060000000+00:00","session_id":"s-1","metadata":{"agent_id":"us","delegation_id":"d-1","depth":1,"parent_run_id":"r41","retry_of":null,"status":"running","sub_run_id":"run-us"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:08.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"eu","delegation_id":"d-1","error":null,"output_preview":"EU price 102","status":"completed","sub_run_id":"run-eu"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:09.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"us","delegation_id":"d-1","error":null,"output_preview":"US price 97.5","status":"completed","sub_run_id":"run-us"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:00:09.100000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":"EU price 102\\n---\\nUS price 97.5","aggregated_status":"completed","delegation_id":"d-1","failed":0,"pattern":"fan_out","succeeded":2,"total_sub_runs":2}}',
      ].join('\n'),
      reportLine:
        "- [error] foreign-parent: sub-run run-us (agent us) has parent_run_id r41, but delegation d-1 belongs to parent run r42: a child of another run was attached to this delegation (example.jsonl:1, example.jsonl:3)",
      fix: 'Key every result by the current run id and reject the others: check where the sub-run was registered (record_sub_run) and how its parent is resolved (MessageTarget::Parent); never reuse sub_run_ids across delegations.',
    },
  },
  run({ delegation: d, all }) {
    return [...foreignStarts(d), ...sharedRunIds(d, all)];
  },
};

/** One finding per sub-run whose start names another parent run (the first such start). */
function foreignStarts(d: Delegation): Report[] {
  if (!d.started || !d.parentRunId) return [];
  const out: Report[] = [];
  for (const run of d.runs.values()) {
    const s = run.starts.find((x) => x.parentRunId && x.parentRunId !== d.parentRunId);
    if (!s) continue;
    out.push({
      message: `sub-run ${run.runId} (agent ${run.agentId ?? '?'}) has parent_run_id ${s.parentRunId}, but delegation ${d.key} belongs to parent run ${d.parentRunId}: a child of another run was attached to this delegation`,
      evidence: [loc(d.started), loc(s)],
      runs: [run.runId],
    });
  }
  return out;
}

/** How many other delegations a shared-run finding names; the rest are counted ("and N more"). */
export const SHARED_RUN_LISTED = 10;

/** A sub_run_id with start or completion events in another delegation as well. */
function sharedRunIds(d: Delegation, all: readonly Delegation[]): Report[] {
  const out: Report[] = [];
  const index = runsById(all);
  const first = firstEvents(all);
  for (const run of d.runs.values()) {
    const refs = index.get(run.runId);
    // d holds the run at most once: a single ref is d's own (or another's when d has no event for it).
    if (!refs || refs.length < 2) continue;
    const mine = first(run);
    if (!mine) continue;
    // The first SHARED_RUN_LISTED other delegations in scan order, and how many there are in all:
    // one run id shared by thousands of delegations must not list each in every one's finding.
    const listed: RunRef[] = [];
    let others = 0;
    for (const ref of refs) {
      if (ref.delegation === d) continue;
      others++;
      if (listed.length < SHARED_RUN_LISTED) listed.push(ref);
    }
    if (others === 0) continue;
    const more = others - listed.length;
    const names = listed.map((ref) => `${ref.delegation.key} (parent run ${ref.delegation.parentRunId ?? '?'})`).join(', ');
    out.push({
      message: `sub-run ${run.runId} also appears in delegation ${names}${more > 0 ? ` and ${more} more` : ''}: one run's result can be joined by two delegations`,
      evidence: [mine, ...listed.map((ref) => first(ref.run)!)].map(loc),
      runs: [run.runId],
    });
  }
  return out;
}

/** Each run's first start or completion in file order, computed once per run and scan. */
const firstEvents = memoPerScan(() => {
  const cache = new Map<SubRun, DelegationEvent | null>();
  return (run: SubRun): DelegationEvent | null => {
    let e = cache.get(run);
    if (e === undefined) {
      e = firstEvent(run);
      cache.set(run, e);
    }
    return e;
  };
});

/** The earliest in time, then file order (a tie keeps the start): the same event whichever layout or order the files were read in. */
function firstEvent(run: SubRun): DelegationEvent | null {
  let best: DelegationEvent | null = null;
  for (const list of [run.starts, run.completions]) for (const e of list) if (!best || earlier(e, best)) best = e;
  return best;
}

/** Whether a comes before b: by time where both have a place, else by file and line (file order alone changes when a journal moves to the other layout). */
function earlier(a: DelegationEvent, b: DelegationEvent): boolean {
  const pa = placeOf(a);
  const pb = placeOf(b);
  const byTime = pa && pb ? compareInstants(pa, pb) : 0;
  if (byTime !== 0) return byTime < 0;
  return a.fileIndex < b.fileIndex || (a.fileIndex === b.fileIndex && a.line < b.line);
}
