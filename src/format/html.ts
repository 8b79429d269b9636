// `--format html`: one self-contained page (no network) with a swimlane timeline per delegation.
import type { DelegationReport, TraceReport } from '../report/types.js';
import { CLIENT_SCRIPT, CLIENT_SCRIPT_HASH } from './html/client.js';
import { esc, jsonForScript } from './html/escape.js';
import { barsByRun, sectionId, sectionIndex } from './html/ids.js';
import { delegationHeader, eventList, findingsList, limitsList, outputsList, overviewTable, pageHeader } from './html/sections.js';
import { LEGEND } from './html/status.js';
import { INDENTED_LEVELS, STYLES } from './html/styles.js';
import { hasTimeline, renderTimeline, type Tip } from './html/timeline.js';
import { byKey, roots } from './lanes.js';
import { headingName, joinedPieces, type Formatter, type PieceFormatter } from './types.js';

// Only the hashed inline script may run; no fetches, frames, fonts or remote images.
const CSP = `default-src 'none'; script-src '${CLIENT_SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;

interface Page {
  report: TraceReport;
  keys: Map<string, DelegationReport>;
  sections: Map<string, number>;
  bars: Map<string, string[]>;
  tips: Record<string, Tip>;
  done: Set<string>;
}

const legend = (): string =>
  `<ul class="legend">${LEGEND.map(([cls, text]) => `<li><span class="sw ${cls}"></span>${esc(text)}</li>`).join('')}<li><span class="sw line start"></span>delegation start</li><li><span class="sw line"></span>join (delegation_completed)</li><li><span class="sw late"></span>after the join (late)</li><li>↷ retry</li><li><span class="count sev-error">!</span> has findings</li></ul>`;

function parentLink(p: Page, d: DelegationReport): string {
  if (!d.parentDelegation || !d.parentRunId) return '';
  const bar = p.bars.get(d.parentRunId)?.[0];
  const s = p.sections.get(d.parentDelegation);
  const run = bar ? ` <a href="#${bar}">sub-run bar</a>` : '';
  const del = s !== undefined ? ` in <a href="#${sectionId(s)}">delegation ${esc(headingName(p.keys.get(d.parentDelegation)!))}</a>` : '';
  return `<span class="muted parent-link"> — nested:${run}${del}</span>`;
}

/** Past the levels the page indents (styles: INDENTED_LEVELS), the summary says how deep it is. */
const nestingDepth = (depth: number): string => (depth > INDENTED_LEVELS ? ` <span class="muted">(nesting level ${depth})</span>` : '');

/**
 * A delegation's section with its nested delegations inside. Nesting can be thousands deep, so
 * sections are visited in a loop (depth first, as the page reads) and assembled bottom-up.
 */
function renderDelegation(p: Page, top: DelegationReport): string {
  const order: { d: DelegationReport; own: string; kids: DelegationReport[] }[] = [];
  const depthOf = new Map<string, number>([[top.key, 0]]);
  const stack = [top];
  while (stack.length > 0) {
    const d = stack.pop()!;
    p.done.add(d.key);
    const i = p.sections.get(d.key)!;
    const { figure, tips } = renderTimeline(d, i, { keys: p.keys, sections: p.sections });
    Object.assign(p.tips, tips);
    const kids = d.nested.filter((k) => p.keys.has(k) && !p.done.has(k)).map((k) => p.keys.get(k)!);
    const own = `<section class="delegation" id="${sectionId(i)}" aria-labelledby="${sectionId(i)}-h">${delegationHeader(d, i, parentLink(p, d))}${legend()}<figure class="timeline">${figure}</figure>${findingsList(d, i, p.bars)}${limitsList(d.limits)}${outputsList(d, i, p.bars)}${eventList(d)}`;
    order.push({ d, own, kids });
    for (const k of kids) depthOf.set(k.key, depthOf.get(d.key)! + 1);
    for (let n = kids.length - 1; n >= 0; n--) stack.push(kids[n]);
  }
  const bodies = new Map<string, string>();
  for (let n = order.length - 1; n >= 0; n--) {
    const { d, own, kids } = order[n];
    const nested = kids.map(
      (k) => `<details class="nested" open><summary>Nested delegation <code>${esc(headingName(k))}</code>${nestingDepth(depthOf.get(k.key)!)} started by run <code>${esc(k.parentRunId ?? '?')}</code></summary>${bodies.get(k.key) ?? ''}</details>`,
    );
    bodies.set(d.key, `${own}${nested.join('')}</section>`);
  }
  return bodies.get(top.key)!;
}

/** Roots first, each followed by its nested delegations (for the overview table); a loop, as above. */
function overviewOrder(p: Page, list: DelegationReport[]): { d: DelegationReport; i: number; depth: number }[] {
  const out: { d: DelegationReport; i: number; depth: number }[] = [];
  const seen = new Set<string>();
  const stack = list.map((d) => ({ d, depth: 0 })).reverse();
  while (stack.length > 0) {
    const { d, depth } = stack.pop()!;
    if (seen.has(d.key)) continue;
    seen.add(d.key);
    out.push({ d, i: p.sections.get(d.key)!, depth });
    const kids = d.nested.filter((k) => p.keys.has(k)).map((k) => p.keys.get(k)!);
    for (let n = kids.length - 1; n >= 0; n--) stack.push({ d: kids[n], depth: depth + 1 });
  }
  return out;
}

/** The tips object as JSON.stringify writes it, one bar's entry at a time (its ids are never integer-like, so insertion order holds). */
function* tipsJson(tips: Record<string, Tip>): Generator<string> {
  let first = true;
  for (const id in tips) {
    yield `${first ? '{' : ','}${jsonForScript(id)}:${jsonForScript(tips[id])}`;
    first = false;
  }
  yield first ? '{}' : '}';
}

/** The page in pieces, in order: a section per top-level delegation, never the page as one string. */
export const htmlPieces: PieceFormatter = function* (report) {
  const keys = byKey(report.delegations);
  const sections = sectionIndex(report.delegations);
  const p: Page = {
    report,
    keys,
    sections,
    bars: barsByRun(report.delegations, (d) => hasTimeline(d, { keys, sections })),
    tips: {},
    done: new Set(),
  };
  const top = roots(report.delegations);
  const showTable = report.target.kind === 'all' || report.delegations.length > 1;
  const table = showTable && report.delegations.length ? overviewTable(overviewOrder(p, [...top, ...report.delegations])) : '';
  const empty = report.delegations.length === 0 ? '<p class="empty">No delegations found.</p>' : '';
  const title = report.delegations.length === 1 ? `Delegation ${report.delegations[0].id}` : `${report.delegations.length} delegations`;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${esc(`${report.tool.name} ${report.tool.version}`)}">
<title>${esc(`${title} · delegation trace`)}</title>
<style>${STYLES}</style>
</head>
<body>
<main>
${pageHeader(report)}
${table}${empty}
`;
  // The roots, then anything not reached from one (a nesting cycle), each with its nested ones.
  let first = true;
  for (const d of [...top, ...report.delegations]) {
    if (p.done.has(d.key)) continue;
    yield `${first ? '' : '\n'}${renderDelegation(p, d)}`;
    first = false;
  }
  yield `
${limitsList(report.limits, 'Scan limits')}
<footer>Self-contained report: it loads nothing from the network. Hover or focus a bar for its run id, times, error and output preview.</footer>
</main>
<div id="td-tip" role="tooltip" hidden></div>
<script type="application/json" id="td-tips">`;
  yield* tipsJson(p.tips);
  yield `</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
};

export const formatHtml: Formatter = joinedPieces(htmlPieces);
