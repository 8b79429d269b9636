import type { Report } from '../../checks/types.js';
import { compareInstants } from '../../journal/time.js';
import { SEPARATOR } from '../../journal/preview.js';
import type { Location } from '../../journal/types.js';
import type { Child } from '../../model/delegation.js';
import { countedAtJoin, loc, succeededAtJoin } from '../../model/evidence.js';
import type { ContractCheck } from './types.js';
import { childStart, dependsOn, settledBy } from './util.js';
import { shortList } from '../../checks/short-list.js';

/** The AllResults separator (journal-format §3.4). */
/** Consensus compares outputs after trimming trailing whitespace per line and the whole (Gen C). */
const normalize = (s: string) => s.split('\n').map((l) => l.trimEnd()).join('\n').trim();
const truncated = (s: string) => s.endsWith('…') && [...s].length > 500;
/** An aggregate that is one output as it was journaled (both may be truncated alike). */
const sameOutput = (output: string, aggregate: string) => normalize(output) === normalize(aggregate);

export const contractMergeMismatch: ContractCheck = {
  meta: {
    id: 'contract-merge-mismatch',
    category: 'contract',
    defaultSeverity: 'warning',
    description: "The pattern and aggregate contradict the contract's merge_plan.strategy.",
    symptom: 'Wrong aggregate',
    docs: {
      why: 'The strategy is not journaled, but its result is: AllResults joins outputs with "\\n---\\n", FirstSuccess keeps one, Consensus keeps the strict-majority output or nothing. An aggregate of the wrong shape means the engine merged differently from the plan; consensus without a majority means the plan\'s merge cannot produce an answer. It is a warning because previews are truncated to 500 characters.',
      example: 'contract: merge_plan.strategy first_wins\ndelegation_completed pattern fan_out aggregated_output_preview "A\\n---\\nB\\n---\\nC"',
      reportLine: '- [warning] contract-merge-mismatch: merge_plan.strategy is first_wins, but the aggregate joins 3 results (AllResults) (j.jsonl:9)',
      fix: 'Configure the delegation\'s aggregation strategy to match the plan (FirstSuccess for first_wins, AllResults for aggregate, Consensus for consensus), or change the plan; for consensus without a majority, add a tie-break to conflict_resolution.',
    },
  },
  run({ delegation: d }, b) {
    const out: Report[] = [];
    const strategy = b.plan.merge_plan.strategy;
    if (strategy === 'custom') return out;
    const children: Child[] = [...b.assignments.flatMap((a) => (a.child ? [a.child] : [])), ...b.unassigned];
    const join = d.completed;
    // What the merge had: the results settled by the join (a late result was not in it: late-result).
    const successes = children.filter((c) => succeededAtJoin(c.final, join, d));
    // A success counted through a completion timestamped just after the join (countedAtJoin) is one too.
    const settled = successes.map((c) => ({ child: c, done: countedAtJoin(c.final, join, d)! }));
    const outputs = settled.flatMap(({ child, done }) => {
      const p = done.outputPreview;
      return typeof p === 'string' && p.trim() ? [{ child, text: p, done }] : [];
    });
    const outputEvidence: Location[] = outputs.map((o) => loc(o.done));
    const preview = join?.aggregatedOutputPreview;
    const segments = typeof preview === 'string' ? preview.split(SEPARATOR).filter((s) => s.trim()) : [];
    // One result whose own text holds a `---` line (Markdown) is still one result.
    const isOneOutput = typeof preview === 'string' && outputs.some((o) => sameOutput(o.text, preview));
    const resultsJoined = isOneOutput ? 1 : segments.length;
    const aggregates = join && d.pattern === 'fan_out' && preview !== undefined; // only fan_out passes an aggregate
    const byPosition = (a: Location, b: Location) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line);
    const say = (message: string, evidence: Location[]) => out.push({ message, evidence: evidence.sort(byPosition), runs: successes.map((c) => c.final.runId) });

    if (aggregates && resultsJoined >= 2 && (strategy === 'first_wins' || strategy === 'consensus'))
      say(`merge_plan.strategy is ${strategy}, but the aggregate joins ${segments.length} results (AllResults)`, [loc(join)]);
    if (aggregates && strategy === 'aggregate' && typeof preview === 'string' && !truncated(preview) && resultsJoined === 1 && outputs.length >= 2)
      say(`merge_plan.strategy is aggregate, but the aggregate holds one result while ${outputs.length} sub-runs succeeded with output (FirstSuccess or Consensus)`, [loc(join), ...outputEvidence]);
    // FirstSuccess keeps the first success's output, which may be None (Gen A, journal-format §3.4).
    const firstSettled = settled.map((s) => s.done).sort((x, y) => (x.time && y.time ? compareInstants(x.time, y.time) : 0))[0];
    const firstIsBlank = strategy === 'first_wins' && !!firstSettled && !(typeof firstSettled.outputPreview === 'string' && firstSettled.outputPreview.trim());
    if (aggregates && preview === null && outputs.length >= 1 && strategy !== 'consensus' && !firstIsBlank)
      say(`merge_plan.strategy is ${strategy}, but the aggregate is empty although ${outputs.length} sub-run${outputs.length === 1 ? '' : 's'} succeeded with output`, [loc(join), ...outputEvidence]);

    if (strategy === 'consensus' && outputs.length >= 2) {
      const counts = new Map<string, number>();
      for (const o of outputs) counts.set(normalize(o.text), (counts.get(normalize(o.text)) ?? 0) + 1);
      const [top, topCount] = [...counts].reduce((a, x) => (x[1] > a[1] ? x : a));
      const caveat = outputs.some((o) => truncated(o.text)) ? '; previews are truncated, so equal prefixes may hide differences' : '';
      if (topCount * 2 <= outputs.length)
        say(`merge_plan.strategy is consensus, but the ${outputs.length} successful results have no strict majority (${counts.size} distinct outputs, the largest group has ${topCount})${caveat}`, [...(join ? [loc(join)] : []), ...outputEvidence]);
      else if (aggregates && typeof preview === 'string' && resultsJoined === 1 && !truncated(preview) && normalize(preview) !== top)
        say(`merge_plan.strategy is consensus, but the aggregate is not the majority output (${topCount} of ${outputs.length} results agree on another one)${caveat}`, [loc(join), ...outputEvidence]);
    }

    if (strategy === 'first_wins' && (d.pattern === 'sequential' || d.pattern === 'pipeline')) {
      // First wins means the first success ends the work; a later stage started after it ran for nothing.
      const firstWin = successes.map((c) => settledBy(c.final)).filter((e) => e?.time).sort((x, y) => compareInstants(x!.time!, y!.time!))[0];
      // A stage whose subtask needs the winner's output was owed by the plan itself, not run for nothing.
      const winner = firstWin && b.assignments.find((a) => a.child?.attempts.some((r) => r.runId === firstWin.subRunId));
      const owed = (c: Child) => !!winner && b.assignments.some((a) => a.child === c && dependsOn(b, a.subtask.id, winner.subtask.id));
      const late = firstWin ? children.filter((c) => { const s = childStart(c); return s?.time && compareInstants(s.time, firstWin.time!) > 0 && !owed(c); }) : [];
      if (firstWin && late.length)
        say(`merge_plan.strategy is first_wins, but ${late.length} more stage${late.length === 1 ? '' : 's'} (${shortList(late.map((c) => `${c.agentId ?? '?'} run ${c.attempts[0].runId}`))}) started after run ${firstWin.subRunId} had already succeeded`, [loc(firstWin), ...late.map((c) => loc(childStart(c)!))]);
    }
    return out;
  },
};
