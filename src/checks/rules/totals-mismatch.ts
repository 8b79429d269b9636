import type { DelegationCompletedEvent, Location } from '../../journal/types.js';
import { countedAtJoin, hasSubRunEvents, joinedOutput, journaledChildren, loc, retriesUnknownRun, settledAtJoin, startedChildren, succeededAtJoin, terminalCompletions } from '../../model/evidence.js';
import type { Delegation, SubRun } from '../../model/delegation.js';
import type { Check, Report } from '../types.js';
import { shortList } from '../short-list.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Children that are retries whose retry_of names no run here (retry-unlinked reports them): they could not be folded, which skews the count. */
function unlinkedRetries(d: Delegation): string {
  const unlinked = d.children.filter((ch) => retriesUnknownRun(d, ch)).map((ch) => `${ch.key} (retry_of ${ch.attempts[0].retryOf})`);
  if (unlinked.length === 0) return '';
  const one = unlinked.length === 1;
  return `; ${one ? 'a retry that could not be folded counts as its own child' : 'retries that could not be folded count as children of their own'}: ${shortList(unlinked)} (see retry-unlinked)`;
}

/** The line that shows how a run stood at the join: the completion the join counted it by, else its last one, else its start. */
function runLine(run: SubRun, join: DelegationCompletedEvent): Location[] {
  const at = settledAtJoin(run, join) ?? terminalCompletions(run).at(-1) ?? run.completions.at(-1) ?? run.starts[0];
  return at ? [loc(at)] : [];
}

export const totalsMismatch: Check = {
  meta: {
    id: 'totals-mismatch',
    category: 'trace',
    defaultSeverity: 'error',
    description: 'delegation_completed totals disagree with the folded child set.',
    symptom: 'Wrong aggregate',
    docs: {
      why: 'total_sub_runs, succeeded and failed are what the parent reads; if they disagree with the children the journal shows (retries folded), the parent decided on wrong numbers. Results with no events are legitimate for expected children that never started (setup failures) and, in a fork, for one synthetic launch_failure result: those are info, with the arithmetic.',
      example: 'two children journaled, one completed and one failed\ndelegation_completed total_sub_runs 2 succeeded 2 failed 0',
      reportLine: '- [error] totals-mismatch: succeeded is 2 but 1 child succeeded (completed without error); failed is 0 but 1 result did not succeed (j.jsonl:9, j.jsonl:8)',
      fix: 'Check DelegationResult::from_results and which AgentResults reached it; retried originals must not be counted, and setup failures must be counted in failed.',
    },
  },
  run({ delegation: d, expectation: e }) {
    const out: Report[] = [];
    const c = d.completed;
    if (!c || !hasSubRunEvents(d)) return out;
    const children = d.children.length;
    // Totals are taken at the join: a child that settled after it was still running (counted in failed).
    const succeeded = d.children.filter((ch) => succeededAtJoin(ch.final, c, d));
    // A success journaled within JOIN_INVERSION_MS after the join, its output not in the
    // aggregate, may or may not have been counted (late-result says so): the totals may take either.
    const unsure = succeeded.filter((ch) => !settledAtJoin(ch.final, c) && !joinedOutput(countedAtJoin(ch.final, c, d)!, c, d));
    const ok = c.succeeded !== null ? Math.min(succeeded.length, Math.max(succeeded.length - unsure.length, c.succeeded)) : succeeded.length;
    const rest = children - ok;
    const extra = c.totalSubRuns !== null ? c.totalSubRuns - children : 0;
    // Results without events can only be expected children that never started (setup or launch
    // failures), and for a fork one more: the synthetic launch_failure result (journal-format §8.9).
    // A child whose start line was lost ran (its completion says so): it is no setup failure.
    const journaled = journaledChildren(d).length;
    const lostStarts = journaled - startedChildren(d).length;
    const unstarted = e.count !== null ? Math.max(0, e.count - journaled) : Infinity;
    const launchFailure = d.pattern === 'fork' ? 1 : 0;
    const problems: string[] = [];
    // The lines the counts rest on besides the join: children the totals miscounted, retried originals they counted.
    const rests: Location[] = [];
    if (c.totalSubRuns !== null && extra < 0) problems.push(`total_sub_runs is ${c.totalSubRuns} but ${plural(children, 'child was', 'children were')} journaled (retries folded)${unlinkedRetries(d)}`);
    if (extra > unstarted + launchFailure) {
      const retried = d.children.filter((ch) => ch.attempts.length > 1).flatMap((ch) => ch.attempts.slice(0, -1).map((r) => r.runId));
      const started = unstarted === 0 ? (lostStarts > 0 ? `every expected child ran (${plural(lostStarts, 'start line is', 'start lines are')} missing, not the children)` : 'every expected child started') : `only ${plural(unstarted, 'expected child', 'expected children')} never started`;
      const why = launchFailure ? `${started} (a fork adds at most one launch_failure result)` : started;
      const hint = retried.length > 0 ? `; retried ${retried.length === 1 ? 'original' : 'originals'} ${shortList(retried)} must not be counted` : '';
      for (const ch of d.children) for (const r of ch.attempts.slice(0, -1)) rests.push(...runLine(r, c));
      problems.push(`total_sub_runs is ${c.totalSubRuns} but ${plural(children, 'child was', 'children were')} journaled (retries folded) and ${why}, so ${extra} extra ${extra === 1 ? 'result is' : 'results are'} unexplained${hint}`);
    }
    // The children taken as successes: all that succeeded by the join, less the unsure ones when ok leaves them out.
    const unsureSet = new Set(unsure);
    const okSet = new Set(ok === succeeded.length ? succeeded : succeeded.filter((ch) => !unsureSet.has(ch)));
    if (c.succeeded !== null && c.succeeded !== ok) {
      problems.push(`succeeded is ${c.succeeded} but ${plural(ok, 'child', 'children')} succeeded (completed without error)`);
      // Counted a success that was not one (the others' lines), or left out one that was (the successes' lines).
      const miscounted = d.children.filter((ch) => okSet.has(ch) !== (c.succeeded! > ok));
      for (const ch of miscounted) rests.push(...runLine(ch.final, c));
    }
    const expectedFailed = rest + Math.max(0, extra);
    if (c.failed !== null && c.failed !== expectedFailed) {
      problems.push(`failed is ${c.failed} but ${plural(expectedFailed, 'result', 'results')} did not succeed${extra > 0 ? ` (${plural(rest, 'journaled child', 'journaled children')} + ${extra} without events)` : ''}`);
      for (const ch of d.children) if (!okSet.has(ch)) rests.push(...runLine(ch.final, c));
    }
    if (problems.length > 0) {
      const evidence: Location[] = [];
      const seen = new Set<string>();
      for (const l of [loc(c), ...rests]) {
        const at = `${l.file}:${l.line}`;
        if (!seen.has(at)) evidence.push(l);
        seen.add(at);
      }
      out.push({ message: problems.join('; '), evidence });
    } else if (extra > 0) {
      out.push({ severity: 'info', message: `total_sub_runs ${c.totalSubRuns} = ${plural(children, 'journaled child', 'journaled children')} + ${extra} without events (setup or launch failures), counted in failed (${rest} + ${extra} = ${c.failed})`, evidence: [loc(c)] });
    }
    return out;
  },
};
