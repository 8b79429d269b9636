// `--format html` and `-o html=…`: the page is written from two reads of the report's delegations.
// The first keeps small facts of each (its overview row, the links to it, its nested span) and
// what the other formats of the run keep; the second renders each section when it is due and
// drops it once written, so memory follows the facts, not the page (docs/performance.md).
import { ReportAssembler, type AnalyzeOptions, type ReportSource } from '../analyze.js';
import type { Severity } from '../checks/types.js';
import type { PageFacts } from '../format/html/facts.js';
import type { BlockSource, pagePieces } from '../format/html.js';
import type { DelegationReport, TraceReport } from '../report/types.js';
import { exitCodeForFindings } from './io.js';

export interface HtmlRegistry {
  PageFacts: typeof PageFacts;
  pagePieces: typeof pagePieces;
}

export interface TwoReads {
  /** Head, tail and the blocks the run's other formats keep (none when html is the only one). */
  report: TraceReport;
  /** A finding reaches --fail-on. */
  failing: boolean;
  /** The page, from a new read of the source each time it is called. */
  html: () => Iterable<string>;
}

/**
 * The first read: each delegation checked, its page facts noted, its block kept (or its slim
 * form, `keep`) only when `keepBlocks`. `onDelegation(n, second)` hears both reads' progress.
 */
export function readForHtml(
  source: ReportSource,
  options: AnalyzeOptions,
  failOn: Severity | 'none',
  registry: HtmlRegistry,
  { keepBlocks, keep, onDelegation }: { keepBlocks: boolean; keep?: (block: DelegationReport) => DelegationReport; onDelegation?: (n: number, second: boolean) => void },
): TwoReads {
  // One assembler for both reads: the same clock for the checks that age (open delegations), so the same findings.
  const assembler = new ReportAssembler(source.scan, source, options, source);
  const facts = new registry.PageFacts();
  const kept: DelegationReport[] = [];
  let failing = false;
  let n = 0;
  for (const { delegation, all } of source.items()) {
    const block = assembler.delegationReport(delegation, all);
    if (!failing && exitCodeForFindings([block], failOn) !== 0) failing = true;
    facts.add(block);
    if (keepBlocks) kept.push(keep ? keep(block) : block);
    n++;
    onDelegation?.(n, false);
  }
  facts.finish();
  const report: TraceReport = { ...assembler.head(), delegations: kept, ...assembler.tail() };
  const html = () => secondRead(source, assembler, facts, report, registry, onDelegation);
  return { report, failing, html };
}

/**
 * The page, each section rendered from the second read's block of its delegation. Sections come
 * nested (a delegation's nested ones inside it), so a block that comes before its section is due
 * waits; each is dropped once rendered. A block the second read no longer has (its journal
 * changed in between) gets a section that says so, and the Limits line of the change.
 */
function* secondRead(
  source: ReportSource,
  assembler: ReportAssembler,
  facts: PageFacts,
  report: TraceReport,
  registry: HtmlRegistry,
  onDelegation?: (n: number, second: boolean) => void,
): Generator<string> {
  const items = source.items()[Symbol.iterator]();
  const waiting = new Map<string, DelegationReport>();
  let ended = false;
  let n = 0;
  const next = (): DelegationReport | undefined => {
    const r = items.next();
    if (r.done) {
      ended = true;
      return undefined;
    }
    const block = assembler.delegationReport(r.value.delegation, r.value.all);
    n++;
    onDelegation?.(n, true);
    return block;
  };
  const blocks: BlockSource = (key) => {
    const found = waiting.get(key);
    if (found) {
      waiting.delete(key); // each section is rendered once
      return found;
    }
    while (!ended) {
      const block = next();
      if (!block) break;
      if (block.key === key) return block;
      if (facts.has(block.key)) waiting.set(block.key, block);
    }
    return undefined;
  };
  const limits = () => {
    while (!ended) ended = items.next().done === true; // to its end: what it could not read is known then
    const late = (source.lateNotes?.() ?? []).filter((l) => !report.limits.includes(l));
    return late.length ? [...report.limits, ...late] : report.limits;
  };
  try {
    yield* registry.pagePieces(report, facts, blocks, limits);
  } finally {
    items.return?.(); // closes the journals when the writer stops early
  }
}
