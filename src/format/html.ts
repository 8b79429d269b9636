// `--format html`: one self-contained page (no network) with a swimlane timeline per delegation.
import type { DelegationReport, TraceReport } from '../report/types.js';
import { CLIENT_SCRIPT, CLIENT_SCRIPT_HASH } from './html/client.js';
import { esc } from './html/escape.js';
import { PageFacts, type DelegationFacts } from './html/facts.js';
import { sectionId } from './html/ids.js';
import { delegationHeader, eventList, findingsList, limitsList, outputsList, overviewTable, pageHeader, statusPill } from './html/sections.js';
import { LEGEND } from './html/status.js';
import { INDENTED_LEVELS, STYLES } from './html/styles.js';
import { renderTimeline } from './html/timeline.js';
import { TipLog } from './html/tips.js';
import { byKey } from './lanes.js';
import { headingName, joinedPieces, type Formatter, type PieceFormatter } from './types.js';

// Only the hashed inline script may run; no fetches, frames, fonts or remote images.
const CSP = `default-src 'none'; script-src '${CLIENT_SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;

interface Page {
  facts: PageFacts;
  tips: TipLog;
  /** By section index: the delegation's section is written (or under way). */
  done: Uint8Array;
}

/** Whether the section of a key is written (or under way). */
const isDone = (p: Page, key: string): boolean => p.done[p.facts.index(key)!] === 1;

/** A delegation's block, by key, when its section is due; undefined when it can no longer be had. */
export type BlockSource = (key: string) => DelegationReport | undefined;

const legend = (): string =>
  `<ul class="legend">${LEGEND.map(([cls, text]) => `<li><span class="sw ${cls}"></span>${esc(text)}</li>`).join('')}<li><span class="sw line start"></span>delegation start</li><li><span class="sw line"></span>join (delegation_completed)</li><li><span class="sw late"></span>after the join (late)</li><li>↷ retry</li><li><span class="count sev-error">!</span> has findings</li></ul>`;

function parentLink(p: Page, d: DelegationReport): string {
  if (!d.parentDelegation || !d.parentRunId) return '';
  const bar = p.facts.barsOf(d.parentRunId)[0];
  const s = p.facts.index(d.parentDelegation);
  const run = bar ? ` <a href="#${bar}">sub-run bar</a>` : '';
  const del = s !== undefined ? ` in <a href="#${sectionId(s)}">delegation ${esc(headingName(p.facts.at(s)))}</a>` : '';
  return `<span class="muted parent-link"> — nested:${run}${del}</span>`;
}

/** Past the levels the page indents (styles: INDENTED_LEVELS), the summary says how deep it is. */
const nestingDepth = (depth: number): string => (depth > INDENTED_LEVELS ? ` <span class="muted">(nesting level ${depth})</span>` : '');

/** A delegation's own part of its section (not closed: its nested sections go inside); its bars' cards go to the tips. */
function ownSection(p: Page, d: DelegationReport): string {
  const i = p.facts.index(d.key)!;
  const { figure, tips } = renderTimeline(d, i, p.facts);
  p.tips.add(tips);
  const drawn = p.facts.at(i).drawn;
  return `<section class="delegation" id="${sectionId(i)}" aria-labelledby="${sectionId(i)}-h">${delegationHeader(d, i, parentLink(p, d))}${legend()}<figure class="timeline">${figure}</figure>${findingsList(d, i, (r) => p.facts.barsOf(r))}${limitsList(d.limits)}${outputsList(d, i, drawn)}${eventList(d)}`;
}

/** A section whose block could not be had again (its journal changed between two reads of the tree). */
function missingSection(f: DelegationFacts, i: number): string {
  return `<section class="delegation" id="${sectionId(i)}" aria-labelledby="${sectionId(i)}-h"><header class="dhead"><h2 id="${sectionId(i)}-h"><span class="kind">Delegation</span> <code class="did">${esc(headingName(f))}</code> ${statusPill(f)}</h2></header><p class="empty">Its journal lines changed on disk while the page was written (see Scan limits): run again to see this delegation.</p>`;
}

/**
 * A top-level delegation's section with its nested delegations inside, in pieces. Which sections
 * nest where follows from the facts alone; nesting can be thousands deep, so it is walked in
 * loops. Sections are rendered in the order they are visited (depth first, as the page reads),
 * each once; a section a journal's odd nesting shows twice is kept until its last use.
 */
function* treePieces(p: Page, top: DelegationFacts, blocks: BlockSource): Generator<string> {
  // Visited as a stack: a delegation is done when visited, and takes the nested ones not done yet.
  const order: { f: DelegationFacts; kids: DelegationFacts[] }[] = [];
  const depthOf = new Map<string, number>([[top.key, 0]]);
  const stack = [top];
  while (stack.length > 0) {
    const f = stack.pop()!;
    p.done[p.facts.index(f.key)!] = 1;
    const kids = f.nested.filter((k) => p.facts.has(k) && !isDone(p, k)).map((k) => p.facts.get(k)!);
    order.push({ f, kids });
    for (const k of kids) depthOf.set(k.key, depthOf.get(f.key)! + 1);
    for (let n = kids.length - 1; n >= 0; n--) stack.push(kids[n]);
  }
  // A nested delegation's section is the next visit of it after its parent's (a journal can name one twice).
  const refs: number[][] = new Array(order.length);
  const next = new Map<string, number>();
  for (let n = order.length - 1; n >= 0; n--) {
    refs[n] = order[n].kids.map((k) => next.get(k.key)!);
    next.set(order[n].f.key, n);
  }
  // How often each visit's section is written, to drop it after its last use.
  const uses = new Array<number>(order.length).fill(0);
  uses[0] = 1;
  for (let n = 0; n < order.length; n++) for (const m of refs[n]) if (m !== undefined) uses[m] += uses[n];
  const first = new Map<string, number>();
  order.forEach(({ f }, n) => {
    if (!first.has(f.key)) first.set(f.key, n);
  });
  const left = new Map<string, number>();
  for (let n = 0; n < order.length; n++) left.set(order[n].f.key, (left.get(order[n].f.key) ?? 0) + uses[n]);
  // Rendered in visiting order (the bar cards keep it), and kept only when wanted again.
  const kept = new Map<string, string>();
  let rendered = 0;
  const render = (n: number): string => {
    const f = order[n].f;
    const block = blocks(f.key);
    return block ? ownSection(p, block) : missingSection(f, p.facts.index(f.key)!);
  };
  // A visit before the one wanted, first of its delegation: rendered now, kept when wanted later.
  const renderAhead = (n: number): void => {
    const k = order[n].f.key;
    if (first.get(k) !== n) return;
    const s = render(n);
    if (left.get(k)! > 0) kept.set(k, s);
  };
  const own = (n: number): string => {
    const key = order[n].f.key;
    let s = kept.get(key);
    if (s === undefined) {
      for (; rendered < first.get(key)!; rendered++) renderAhead(rendered);
      s = render(first.get(key)!);
      if (rendered === first.get(key)) rendered++;
      kept.set(key, s);
    }
    const l = left.get(key)! - 1;
    left.set(key, l);
    if (l === 0) kept.delete(key);
    return s;
  };
  const walk: { n: number; at: number }[] = [{ n: 0, at: 0 }];
  yield own(0);
  while (walk.length > 0) {
    const w = walk[walk.length - 1];
    const kids = order[w.n].kids;
    if (w.at === kids.length) {
      walk.pop();
      yield walk.length > 0 ? '</section></details>' : '</section>';
      continue;
    }
    const k = kids[w.at];
    const m = refs[w.n][w.at++];
    yield `<details class="nested" open><summary>Nested delegation <code>${esc(headingName(k))}</code>${nestingDepth(depthOf.get(k.key)!)} started by run <code>${esc(k.parentRunId ?? '?')}</code></summary>`;
    if (m === undefined) {
      yield '</details>';
      continue;
    }
    yield own(m);
    walk.push({ n: m, at: 0 });
  }
  // Visits no section of the page shows still add their bars' cards, as the whole page did.
  for (; rendered < order.length; rendered++) renderAhead(rendered);
}

/** Roots first, each followed by its nested delegations (for the overview table): section indexes and depths; a loop, as above. */
function overviewOrder(p: Page, list: number[]): { i: number; depth: number }[] {
  const out: { i: number; depth: number }[] = [];
  const seen = new Uint8Array(p.facts.count);
  const stack = list.map((i) => ({ i, depth: 0 })).reverse();
  while (stack.length > 0) {
    const { i: at, depth } = stack.pop()!;
    const d = p.facts.at(at);
    const i = p.facts.index(d.key)!;
    if (seen[i]) continue;
    seen[i] = 1;
    out.push({ i, depth });
    const kids = d.nested.filter((k) => p.facts.has(k)).map((k) => p.facts.index(k)!);
    for (let n = kids.length - 1; n >= 0; n--) stack.push({ i: kids[n], depth: depth + 1 });
  }
  return out;
}

/** What the page says of the report besides its delegations. */
export type PageHead = Pick<TraceReport, 'tool' | 'target' | 'summary' | 'stats'>;

/**
 * The page in pieces, in order, from the page-wide facts of every delegation and each one's
 * block when its section is due (`blocks`); `limits` is asked for after the last section.
 * Never the page as one string.
 */
export function* pagePieces(head: PageHead, facts: PageFacts, blocks: BlockSource, limits: () => string[]): Generator<string> {
  const p: Page = { facts, tips: new TipLog(), done: new Uint8Array(facts.count) };
  const count = facts.count;
  const all = Array.from({ length: count }, (_, i) => i);
  // Top-level delegations: those whose parent delegation is not on the page.
  const top = all.filter((i) => {
    const parent = facts.at(i).parentDelegation;
    return !parent || !facts.has(parent);
  });
  const showTable = head.target.kind === 'all' || count > 1;
  const empty = count === 0 ? '<p class="empty">No delegations found.</p>' : '';
  const title = count === 1 ? `Delegation ${facts.at(0).id}` : `${count} delegations`;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${esc(`${head.tool.name} ${head.tool.version}`)}">
<title>${esc(`${title} · delegation trace`)}</title>
<style>${STYLES}</style>
</head>
<body>
<main>
${pageHeader(head)}
`;
  if (showTable && count) yield* overviewTable(overviewOrder(p, [...top, ...all]), (i) => facts.at(i));
  yield `${empty}
`;
  // The roots, then anything not reached from one (a nesting cycle), each with its nested ones.
  let first = true;
  for (const i of [...top, ...all]) {
    const f = facts.at(i);
    if (isDone(p, f.key)) continue;
    if (!first) yield '\n';
    yield* treePieces(p, f, blocks);
    first = false;
  }
  yield `
${limitsList(limits(), 'Scan limits')}
<footer>Self-contained report: it loads nothing from the network. Hover or focus a bar for its run id, times, error and output preview.</footer>
</main>
<div id="td-tip" role="tooltip" hidden></div>
<script type="application/json" id="td-tips">`;
  yield* p.tips.json();
  yield `</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

/** The page of a report held in memory. */
export const htmlPieces: PieceFormatter = (report) => {
  const blocks = byKey(report.delegations);
  return pagePieces(report, PageFacts.of(report.delegations), (key) => blocks.get(key), () => report.limits);
};

export const formatHtml: Formatter = joinedPieces(htmlPieces);
