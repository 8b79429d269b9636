import type { JournalEvent } from '../../journal/types.js';
import { finalCompletion, isSuccess, type Child, type Delegation } from '../../model/delegation.js';
import { hasSubRunEvents, inJournalOrder, isTimeoutError, lastMarker, loc, startedChildren, startedPerAgent } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';
import { shortList } from '../short-list.js';

// Only these promise every expected child a start (CHECKS.md resolved detail 1); sequential stops
// early by design and adversarial_review sizes itself from total_sub_runs.
const PATTERNS = new Set(['fan_out', 'pipeline', 'fork']);

export const missingStart: Check = {
  meta: {
    id: 'missing-start',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'An expected child never journaled a sub-run start although the delegation completed.',
    symptom: 'No child runs',
    docs: {
      why: 'The delegation finished and reported its totals, but one of the children its pattern promises never entered Running. Unless the totals count it as a setup failure, an agent vanished without a trace. Each missing child is judged on its own: as many as the totals leave room for are setup failures (info). A child with a completion but no start was journaled: its start line was lost (a failed journal write drops an event silently), a warning about the journal rather than a vanished agent. Two stops by design are info too, with their evidence: a pipeline whose last started stage was cancelled (a cancel stops it before the next stage), and a fork whose shared deadline ran out part-way (a child failed with a shared-deadline timeout; the ones not yet launched never start; a per-agent timeout stops no launch). Sequential delegations are judged only for such lost start lines: their stops are sequential-stopped-early (info, with the probable reason), as journal-format.md §9 asks, even after a failed stage that should have fallen through.',
      example: 'delegation_started agent_ids ["eu","us","apac"]\ndelegation_sub_run_started eu\ndelegation_sub_run_started us\ndelegation_completed total_sub_runs 2',
      reportLine: '- [error] missing-start: agent apac: 1 expected child never started and the totals do not account for it (total_sub_runs 2 − 2 started = 0 < 1 missing; failed 0 − 0 journaled failures = 0 does not cover it) (j.jsonl:1, j.jsonl:6)',
      fix: 'Look at record_sub_run and transition_state(..., Running) for the agent, its allowlist and the recursion depth; a setup failure should at least be counted in total_sub_runs and failed.',
    },
  },
  run({ delegation: d, expectation: e }) {
    const out: Report[] = [];
    // Without a completion that is delegation-incomplete; without any sub-run event the tracker was unbound.
    // Sequential stops are sequential-stopped-early's; a stage that ran with its start line lost is a journal gap here too.
    const lostStartsOnly = d.pattern === 'sequential';
    if (!d.completed || !d.started || !hasSubRunEvents(d) || !(PATTERNS.has(d.pattern ?? '') || lostStartsOnly) || !e.agentCounts) return out;
    const started = startedChildren(d);
    const startedBy = startedPerAgent(d);
    const expectedBy = e.agentCounts;
    const { started: start, completed: join } = d;
    const { totalSubRuns: total, failed } = join;
    // A child with a completion but no start was journaled: its start line is what is missing
    // (events can be lost, journal-format.md §1.2). It is a result the totals count, as a started one is.
    const ranUnstarted = d.children.filter((c) => c.attempts[0].starts.length === 0 && c.attempts[0].completions.length > 0);
    const failedWithEvents = d.children.filter((c) => c.attempts.some((r) => r.starts.length > 0 || r.completions.length > 0) && !isSuccess(c.final)).length;
    // A cause the engine stops by design, when the journal shows one: what is left is info.
    // The stages the journal shows, in order: those started, and those whose start line was lost.
    const stop = pipelineStoppedByCancel(d, inJournalOrder(d, [...started, ...ranUnstarted])) ?? forkDeadline(d);
    // What the totals leave for children without events: results not started, failures not journaled.
    let unexplained = (total ?? 0) - started.length - ranUnstarted.length;
    const journaled = ranUnstarted.length ? `${started.length} started − ${ranUnstarted.length} without a start line` : `${started.length} started`;
    let failedLeft = (failed ?? 0) - failedWithEvents;
    let used = 0;
    for (const [agent, want] of expectedBy) {
      const short = want - (startedBy.get(agent) ?? 0);
      if (short <= 0) continue;
      const unstartedRuns = ranUnstarted.filter((c) => c.agentId === agent).slice(0, short);
      if (unstartedRuns.length > 0) {
        // Not children that never ran: lost lines, which the totals need not explain (a warning: the journal is incomplete).
        const one = unstartedRuns.length === 1;
        out.push({
          severity: 'warning',
          message: `agent ${agent}: ${one ? 'sub-run' : 'sub-runs'} ${shortList(unstartedRuns.map((c) => c.key))} ${one ? 'has a completion but no delegation_sub_run_started: the child was journaled, and its start line is' : 'have completions but no delegation_sub_run_started: the children were journaled, and their start lines are'} missing (a failed journal write drops an event silently)`,
          evidence: [loc(start), ...unstartedRuns.map((c) => loc(c.attempts[0].completions[0])), loc(join)],
          runs: unstartedRuns.map((c) => c.key),
        });
      }
      // The rest never ran at all.
      const missing = short - unstartedRuns.length;
      if (missing <= 0 || lostStartsOnly) continue;
      const what = (n: number) => `agent ${agent}: ${n} expected ${n === 1 ? 'child' : 'children'} never started`;
      const evidence = [loc(start), loc(join)];
      const unaccounted = (n: number, why: string) =>
        out.push(stop ? { severity: 'info', message: `${what(n)}: ${stop.why}`, evidence: [loc(start), loc(stop.evidence), loc(join)] } : { message: `${what(n)} and ${why}`, evidence });
      if (total === null || failed === null) {
        unaccounted(missing, 'the totals cannot account for it (total_sub_runs or failed is missing)');
        continue;
      }
      // Each missing child on its own (CHECKS.md resolved detail 1): as many as the totals leave room for are setup failures.
      const accounted = Math.max(0, Math.min(missing, unexplained, failedLeft));
      const earlier = used > 0 ? ` − ${used} explained above` : '';
      const room = `total_sub_runs ${total} − ${journaled}${earlier} = ${unexplained} ${unexplained >= missing ? '≥' : '<'} ${missing} missing`;
      const them = (n: number) => (n === 1 ? 'it' : 'them');
      const cover = `failed ${failed} − ${failedWithEvents} journaled ${failedWithEvents === 1 ? 'failure' : 'failures'}${earlier} = ${failedLeft} ${failedLeft >= missing ? 'covers' : 'does not cover'} ${them(missing)}`;
      unexplained -= accounted;
      failedLeft -= accounted;
      used += accounted;
      if (accounted === missing) {
        out.push({ severity: 'info', message: `${what(missing)}; the totals account for ${them(missing)} as a setup or launch failure without events (${room}; ${cover})`, evidence });
      } else if (accounted === 0) {
        unaccounted(missing, `the totals do not account for ${them(missing)} (${room}; ${cover})`);
      } else {
        const left = `total_sub_runs ${total} − ${journaled}${earlier} = ${unexplained + accounted} left; failed ${failed} − ${failedWithEvents} journaled ${failedWithEvents === 1 ? 'failure' : 'failures'}${earlier} = ${failedLeft + accounted} left`;
        out.push({ severity: 'info', message: `${what(missing)}; the totals account for ${accounted} of them as ${accounted === 1 ? 'a setup or launch failure' : 'setup or launch failures'} without events (${left})`, evidence });
        const rest = missing - accounted;
        unaccounted(rest, `the totals do not account for the other ${rest === 1 ? 'one' : rest} (nothing left in total_sub_runs and failed once ${accounted} ${accounted === 1 ? 'is' : 'are'} counted)`);
      }
    }
    return out;
  },
};

interface KnownStop {
  why: string;
  /** The line that shows the cause. */
  evidence: JournalEvent;
}

/**
 * A pipeline runs through the sequential path: a cancel stops it before its next stage, and the
 * stages after it never start (journal-format.md §5.2, §9). Only when the stages that started are
 * the first ones in order and the last of them was cancelled.
 */
function pipelineStoppedByCancel(d: Delegation, started: Child[]): KnownStop | null {
  if (d.pattern !== 'pipeline' || !d.started || started.length === 0) return null;
  const ids = d.started.agentIds;
  if (started.some((c, i) => c.agentId !== ids[i])) return null;
  const last = started[started.length - 1];
  const cancel = lastMarker(last.final, 'cancel_requested');
  const completion = finalCompletion(last.final);
  if (completion?.status !== 'cancelled' && !cancel) return null;
  return {
    why: `the pipeline stopped after stage ${started.length} of ${ids.length} (${last.agentId ?? '?'}) was cancelled; a cancel stops a pipeline before its next stage`,
    evidence: cancel ?? completion!,
  };
}

// Only Gen C's shared deadline stops launches; Gen A/B per-agent timeouts do not (journal-format §5.3).
const SHARED_DEADLINE = /\bdeadline\b/i;

/**
 * A fork's children share one deadline: when it runs out part-way, the children not yet launched
 * never start, and the totals count at most one synthetic failure (journal-format.md §9).
 */
function forkDeadline(d: Delegation): KnownStop | null {
  if (d.pattern !== 'fork') return null;
  for (const c of d.children) {
    const done = finalCompletion(c.final);
    if (done && done.status !== 'completed' && isTimeoutError(done.error) && SHARED_DEADLINE.test(done.error ?? ''))
      return { why: `the fork's shared deadline ran out part-way (run ${c.final.runId}: ${JSON.stringify(done.error)}), and children not launched by then never start`, evidence: done };
  }
  return null;
}
