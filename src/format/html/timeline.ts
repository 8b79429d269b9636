// The swimlane: one lane per agent, one bar per sub-run attempt, start and join as vertical lines.
import { parseTimestamp } from '../../journal/time.js';
import type { AttemptReport, ChildReport, DelegationReport } from '../../report/types.js';
import { agentLanes, instantMs, ownLastEvent, type Lane } from '../lanes.js';
import type { DelegationFacts } from './facts.js';
import { capText, clip, clipWidth, esc, textUnits, visible } from './escape.js';
import { barId, findingId, sectionId } from './ids.js';
import { duration, linearScale, offset, ticks, type Scale } from './scale.js';
import { statusClass, worstSeverity } from './status.js';

/** What the hover card shows for one bar: a heading and label/value rows (all plain text). */
export interface Tip {
  title: string;
  status: string;
  rows: [string, string][];
}

/** The page's delegations by key (nested spans are drawn from them) and their section indexes. */
export interface TimelineContext {
  get(key: string): DelegationFacts | undefined;
  index(key: string): number | undefined;
}

const W = 1160;
/** The lane-name column (HTML, kept in view when the figure scrolls sideways) covers x < LABEL_COL. */
const LABEL_COL = 158;
const PLOT_X0 = 166;
const PLOT_X1 = W - 190;
const AXIS_H = 40;
const ROW_H = 34;
const BAR_Y = 9;
const BAR_H = 15;
const LANE_PAD = 6;
/** Average character widths of the SVG's 12 px text (DejaVu Sans, the widest common system font), plain, bold and monospace. */
const CHAR_W = 6.8;
const BOLD_W = 7.6;
const MONO_W = 7.3;
/** The SVG's text is at least 12 px: drawn no narrower than this, it renders at least 11 px (the page's small text); narrower figures scroll. */
export const TIMELINE_MIN_WIDTH = Math.ceil((W * 11) / 12);

interface Frame {
  d: DelegationReport;
  i: number;
  scale: Scale;
  origin: number;
  joinMs: number | null;
  lastMs: number | null;
  ctx: TimelineContext;
  tips: Record<string, Tip>;
  /** Drawn last, over the start and join lines: finding badges. */
  overlay: string[];
  /** run id → the positions of the findings naming it, in order (findingsFor). */
  findingsByRun: Map<string, number[]>;
  /** Each child's position in d.children. */
  childIndex: Map<ChildReport, number>;
}

const tsMs = (ts: string): number | null => {
  const t = parseTimestamp(ts);
  return t ? instantMs(t) : null;
};

function domain(d: DelegationReport, lastMs: number | null): [number, number] | null {
  const times: number[] = [];
  const push = (v: number | null | undefined) => {
    if (typeof v === 'number' && Number.isFinite(v)) times.push(v);
  };
  push(d.startedMs);
  push(d.completedMs);
  push(lastMs);
  for (const c of d.children)
    for (const a of c.attempts) {
      push(a.startMs);
      push(a.endMs);
      for (const m of a.markers) push(tsMs(m.ts));
    }
  if (times.length === 0) return null;
  // Folds, not Math.min(...times): 100,000s of attempts are too many arguments for a call.
  const lo = times.reduce((a, b) => Math.min(a, b));
  const hi = times.reduce((a, b) => Math.max(a, b));
  const pad = Math.max((hi - lo) * 0.02, 1);
  return [lo - pad, hi + pad];
}

/** Whether some own timestamp of the delegation parses: it gets a timeline (and bars to link to), whatever its tree's latest event. */
export const ownTimes = (d: DelegationReport): boolean => domain(d, null) !== null;

/** The timeline for one delegation (lane names and the SVG) plus the hover cards of its bars, keyed by bar id. */
export function renderTimeline(d: DelegationReport, i: number, ctx: TimelineContext): { figure: string; tips: Record<string, Tip> } {
  const tips: Record<string, Tip> = {};
  // A block the page has no facts of (its journal changed between two reads): its own events only.
  const own = ctx.get(d.key);
  const lastMs = own ? own.treeLastMs : ownLastMs(d);
  const dom = domain(d, lastMs);
  const lanes = agentLanes(d);
  if (!dom) return { figure: `<p class="empty">No journaled timestamp parses, so no timeline can be drawn.</p>`, tips };
  const scale = linearScale(dom[0], dom[1], PLOT_X0, PLOT_X1);
  const f: Frame = { d, i, scale, origin: d.startedMs ?? dom[0], joinMs: d.completedMs, lastMs, ctx, tips, overlay: [], findingsByRun: findingsByRun(d), childIndex: new Map(d.children.map((c, j) => [c, j] as const)) };
  const heights = lanes.map((l) => Math.max(rowCount(l), 1) * ROW_H + LANE_PAD);
  const height = AXIS_H + heights.reduce((a, b) => a + b, 0) + 8;
  const parts: string[] = [defs(i), axis(f, height)];
  let y = AXIS_H;
  lanes.forEach((lane, n) => {
    parts.push(renderLane(f, lane, n, y, heights[n]));
    y += heights[n];
  });
  parts.push(guides(f, height), ...f.overlay);
  const label = `Timeline of delegation ${d.id}: ${lanes.length} ${lanes.length === 1 ? 'lane' : 'lanes'}, ${d.children.reduce((s, c) => s + c.attempts.length, 0)} sub-run attempts`;
  const svg = `<svg class="swimlane" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${esc(label)}" data-delegation="${sectionId(i)}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
  return { figure: `<div class="tl">${laneNames(lanes, heights, height)}${svg}</div>`, tips };
}

const pct = (part: number, whole: number): string => `${+((part / whole) * 100).toFixed(4)}%`;

/**
 * Lane names in an HTML column over the SVG's left edge, placed in percentages of its size so they
 * follow its scale. It is sticky: a timeline scrolled sideways keeps its bars named.
 */
function laneNames(lanes: Lane[], heights: number[], height: number): string {
  const out = [`<div class="lane-names" style="width:${pct(LABEL_COL, W)}"><div class="lane-head" style="height:${pct(AXIS_H, height)}">agent</div>`];
  let top = AXIS_H;
  lanes.forEach((lane, n) => {
    const count = lane.rows.length > 1 ? `<span class="lane-count">×${lane.rows.length}</span>` : '';
    out.push(
      `<div class="lane-name${n % 2 ? ' odd' : ''}" data-agent="${esc(lane.agent)}" style="top:${pct(top, height)};height:${pct(heights[n], height)}"><span class="lane-label${lane.neverStarted ? ' missing' : ''}" title="${esc(lane.agent)}" style="top:${pct(BAR_Y, heights[n])};height:${pct(BAR_H, heights[n])}"><span class="lane-agent">${esc(clipWidth(visible(lane.agent), 17))}</span>${count}</span></div>`,
    );
    top += heights[n];
  });
  out.push('</div>');
  return out.join('');
}

function defs(i: number): string {
  const id = sectionId(i);
  return `<defs><pattern id="${id}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" class="hatch"/></pattern><linearGradient id="${id}-fade" x1="0" x2="1"><stop offset="0.55" class="fade-stop" stop-opacity="0"/><stop offset="1" class="fade-stop" stop-opacity="0.85"/></linearGradient><marker id="${id}-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L8 4 L0 8 z" class="arrowhead"/></marker></defs>`;
}

function axis(f: Frame, height: number): string {
  const out = [`<g class="axis">`];
  for (const t of ticks(f.origin, f.scale.t0, f.scale.t1)) {
    const x = f.scale.x(f.origin + t).toFixed(1);
    out.push(`<line class="grid" x1="${x}" x2="${x}" y1="${AXIS_H - 6}" y2="${height - 6}"/><text class="tick" x="${x}" y="${AXIS_H - 11}" text-anchor="middle">${esc(offset(t))}</text>`);
  }
  out.push(`</g>`);
  return out.join('');
}

/** Delegation start and join (delegation_completed) lines, drawn over the lanes. */
function guides(f: Frame, height: number): string {
  const out: string[] = [];
  const line = (ms: number, cls: string, text: string, anchor: 'start' | 'end') => {
    const x = f.scale.x(ms);
    const tx = anchor === 'start' ? x + 4 : x - 4;
    out.push(`<g class="${cls}" data-x="${x.toFixed(2)}"><line x1="${x.toFixed(2)}" x2="${x.toFixed(2)}" y1="${AXIS_H - 4}" y2="${height - 4}"/><text x="${tx.toFixed(1)}" y="12" text-anchor="${anchor}">${esc(text)}</text></g>`);
  };
  // A join this close to the start would print its label over "start": the line stays, the legend names it.
  const crowded = f.d.startedMs !== null && f.joinMs !== null && Math.abs(f.scale.x(f.joinMs) - f.scale.x(f.d.startedMs)) < 48;
  if (f.d.startedMs !== null) line(f.d.startedMs, 'start-line', crowded ? '' : 'start', 'start');
  if (f.joinMs !== null) line(f.joinMs, 'join-line', `join ${offset(f.joinMs - f.origin)}`, f.scale.x(f.joinMs) > PLOT_X1 - 80 ? 'end' : 'start');
  else out.push(`<text class="no-join" x="${PLOT_X1}" y="12" text-anchor="end">no join: delegation_completed was not journaled</text>`);
  return out.join('');
}

/** Rows a lane needs: one per attempt, so a retry never hides the status of the attempt it replaces. */
const rowCount = (lane: Lane): number => lane.rows.reduce((n, child) => n + Math.max(child.attempts.length, 1), 0);

function renderLane(f: Frame, lane: Lane, n: number, top: number, h: number): string {
  const out = [`<g class="lane${n % 2 ? ' odd' : ''}" data-agent="${esc(lane.agent)}">`];
  out.push(`<rect class="lane-bg" x="0" y="${top}" width="${W}" height="${h}"/>`);
  if (lane.neverStarted) out.push(`<text class="note" x="${PLOT_X0 + 6}" y="${top + BAR_Y + BAR_H - 3}">never started (no sub-run journaled for this agent)</text>`);
  let row = 0;
  for (const child of lane.rows) {
    out.push(renderChild(f, child, top + row * ROW_H));
    row += Math.max(child.attempts.length, 1);
  }
  out.push('</g>');
  return out.join('');
}

/** A child's attempts, each on its own row under the one it retries, linked by an arrow. */
function renderChild(f: Frame, child: ChildReport, top: number): string {
  const j = f.childIndex.get(child) ?? -1;
  const out: string[] = [];
  const ends: (number | null)[] = [];
  child.attempts.forEach((a, k) => {
    const rowTop = top + k * ROW_H;
    const drawn = renderAttempt(f, a, barId(f.i, j, k), rowTop);
    out.push(drawn.svg);
    if (k > 0) out.push(retryLink(f, ends[k - 1], drawn.x0, rowTop, a.attempt));
    ends.push(drawn.x1);
  });
  return out.join('');
}

/** An arrow from the end of the previous attempt (the row above) down to the start of its retry. */
function retryLink(f: Frame, fromX: number | null, toX: number | null, top: number, attempt: number): string {
  if (fromX === null || toX === null) return '';
  const y0 = top - ROW_H + BAR_Y + BAR_H; // the bottom of the attempt it retries
  const y1 = top + BAR_Y + BAR_H / 2;
  const toLeft = toX - 3;
  const label = `retry ${attempt}`;
  // Just above the arrow, left of the retry's bar; above the bar's start when the plot has no room there.
  const lx = toLeft - 4 - textUnits(label) * CHAR_W >= PLOT_X0 ? `<text x="${(toLeft - 4).toFixed(1)}" y="${(y1 - 3).toFixed(1)}" text-anchor="end">${label}</text>` : `<text x="${toX.toFixed(1)}" y="${(top + BAR_Y - 2).toFixed(1)}">${label}</text>`;
  // A retry that started before the attempt above ended (its completion was journaled after the
  // batch): a short drop onto the retry's start, not a line back across its bar.
  const d = toX >= fromX ? `M${fromX.toFixed(1)} ${y0} C${fromX.toFixed(1)} ${y1} ${fromX.toFixed(1)} ${y1} ${toLeft.toFixed(1)} ${y1}` : `M${(toX + 6).toFixed(1)} ${y0} L${(toX + 6).toFixed(1)} ${top + BAR_Y - 1}`;
  return `<g class="retry-link"><path d="${d}" marker-end="url(#${sectionId(f.i)}-arrow)"/>${lx}</g>`;
}

/**
 * Which findings name each run, indexed once per delegation: looking through every finding for
 * each bar took runs × findings (100,000 children with a finding each).
 */
function findingsByRun(d: DelegationReport): Map<string, number[]> {
  const byRun = new Map<string, number[]>();
  d.findings.forEach((x, n) => {
    for (const runId of x.runs) {
      const list = byRun.get(runId);
      if (!list) byRun.set(runId, [n]);
      else if (list[list.length - 1] !== n) list.push(n); // a run named twice by one finding counts once
    }
  });
  return byRun;
}

function findingsFor(f: Frame, runId: string): { ids: string[]; severities: string[]; names: string[] } {
  const ids: string[] = [];
  const severities: string[] = [];
  const names: string[] = [];
  for (const n of f.findingsByRun.get(runId) ?? []) {
    const x = f.d.findings[n];
    ids.push(findingId(f.i, n));
    severities.push(x.severity);
    names.push(`${x.severity} ${x.id}`);
  }
  return { ids, severities, names };
}

function renderAttempt(f: Frame, a: AttemptReport, id: string, top: number): { svg: string; x0: number | null; x1: number | null } {
  const { scale } = f;
  const y = top + BAR_Y;
  const open = a.open && a.startMs !== null;
  const endMs = open ? f.lastMs ?? a.startMs : a.endMs;
  const late = f.joinMs !== null && a.endMs !== null && !open && a.endMs > f.joinMs;
  const cls = statusClass(a.status, open);
  const fnd = findingsFor(f, a.runId);
  f.tips[id] = tip(f, a, open, late, fnd.names);
  const attrs = `id="${id}" class="bar ${cls}${open ? ' open' : ''}${late ? ' late' : ''}" tabindex="0" data-tip="${id}" data-run="${esc(a.runId)}" data-agent="${esc(a.agentId ?? '?')}" data-status="${esc(a.status ?? (open ? 'open' : 'unknown'))}"`;
  const title = `<title>${esc(tipText(f.tips[id]))}</title>`;
  // No time to place it at: say so in its row rather than leave the lane looking as if it never ran.
  if (a.startMs === null && a.endMs === null) {
    const note = `${clip(visible(a.runId), 40)} · ${visible(a.status ?? 'no status')} · no journaled time parses`;
    return { svg: `<g ${attrs}>${title}${fitted('note shape-note', PLOT_X0 + 6, y + BAR_H - 4, 'start', note, (W - 4 - PLOT_X0 - 6) / CHAR_W)}</g>`, x0: null, x1: null };
  }
  if (a.startMs === null) {
    // A completion without a start: a diamond where it completed.
    const x = scale.x(a.endMs!);
    const s = BAR_H / 2;
    const body = `<path class="shape" d="M${x.toFixed(1)} ${y} l${s} ${s} l${-s} ${s} l${-s} ${-s} z" data-x0="${x.toFixed(2)}" data-x1="${x.toFixed(2)}"/>`;
    f.overlay.push(badge(fnd, x + s, y));
    return { svg: `<g ${attrs}>${title}${body}${endLabel(x + s, x - s, 0, y, `${a.status ?? '?'} · no start journaled`, false).svg}</g>`, x0: x, x1: x };
  }
  const x0 = scale.x(a.startMs);
  const x1 = Math.max(scale.x(endMs ?? a.startMs), x0 + 3);
  const w = x1 - x0;
  const parts = [title, `<rect class="shape" x="${x0.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${BAR_H}" rx="3" data-x0="${x0.toFixed(2)}" data-x1="${x1.toFixed(2)}"/>`];
  if (open) parts.push(`<rect class="fade" x="${x0.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${BAR_H}" fill="url(#${sectionId(f.i)}-fade)"/><path class="open-edge" d="M${x1.toFixed(1)} ${y - 2} l5 ${BAR_H / 2 + 2} l-5 ${BAR_H / 2 + 2}"/>`);
  if (late) {
    const xj = scale.x(f.joinMs!);
    parts.push(`<rect class="late-part" x="${xj.toFixed(2)}" y="${y}" width="${(x1 - xj).toFixed(2)}" height="${BAR_H}" fill="url(#${sectionId(f.i)}-hatch)"/>`);
  }
  for (const m of a.markers) {
    const ms = tsMs(m.ts);
    if (ms === null) continue;
    const mx = scale.x(ms).toFixed(1);
    parts.push(`<g class="marker"><title>${esc(`${m.action} at ${m.ts}`)}</title><line x1="${mx}" x2="${mx}" y1="${y - 3}" y2="${y + BAR_H + 3}"/></g>`);
  }
  parts.push(nestedSpans(f, a, top));
  const what = open ? 'open · no completion' : `${a.status ?? '?'} · ${duration((a.endMs ?? a.startMs) - a.startMs)}${late ? ` · late ${offset(a.endMs! - f.joinMs!)}` : ''}`;
  const label = endLabel(x1 + (open ? 7 : 0), x0, w, y, what, late);
  const room = w - 10 - (label.inside ? label.width + 12 : 0);
  if (room > 40) parts.push(`<text class="bar-text" x="${(x0 + 5).toFixed(1)}" y="${y + BAR_H - 4}">${esc(clip(a.runId, Math.floor(room / MONO_W)))}</text>`);
  parts.push(label.svg);
  f.overlay.push(badge(fnd, x1, y));
  return { svg: `<g ${attrs}>${parts.join('')}</g>`, x0, x1 };
}

/** A text of at most about `chars` average characters: cut with an ellipsis, the whole of it in its `<title>`. */
function fitted(cls: string, x: number, y: number, anchor: 'start' | 'end', text: string, chars: number): string {
  const shown = clipWidth(text, Math.max(2, chars));
  return `<text class="${cls}" x="${x.toFixed(1)}" y="${y}" text-anchor="${anchor}">${shown === text ? '' : `<title>${esc(text)}</title>`}${esc(shown)}</text>`;
}

/**
 * Status words right of the bar; inside it (bold) or left of it when they would run off the edge.
 * Fitting none of these whole (a long status), they go where most fits, cut with an ellipsis.
 */
function endLabel(xRight: number, xLeft: number, barWidth: number, y: number, text: string, bold: boolean): { svg: string; inside: boolean; width: number } {
  const units = textUnits(text);
  const cw = bold ? BOLD_W : CHAR_W;
  const by = y + BAR_H - 4;
  const right = { chars: (W - 4 - (xRight + 6)) / cw, svg: (n: number) => fitted('end-label', xRight + 6, by, 'start', text, n), inside: false, cw };
  const inside = { chars: (barWidth - 14) / BOLD_W, svg: (n: number) => fitted('end-label inside', xLeft + barWidth - 6, by, 'end', text, n), inside: true, cw: BOLD_W };
  const left = { chars: (xLeft - 6 - PLOT_X0) / cw, svg: (n: number) => fitted('end-label', xLeft - 6, by, 'end', text, n), inside: false, cw };
  const place = [right, inside, left].find((p) => units <= p.chars) ?? [right, inside, left].reduce((a, b) => (b.chars > a.chars ? b : a));
  const n = Math.min(units, place.chars);
  return { svg: place.svg(n), inside: place.inside, width: Math.min(units, Math.max(2, n)) * place.cw };
}

/** A "!" on the bar's corner linking to its findings (worst severity colours it). */
function badge(fnd: { ids: string[]; severities: string[]; names: string[] }, x: number, y: number): string {
  const sev = worstSeverity(fnd.severities);
  if (!sev) return '';
  return `<a class="badge sev-${sev}" href="#${fnd.ids[0]}" data-findings="${fnd.ids.join(' ')}"><title>${esc(fnd.names.join('\n'))}</title><circle cx="${x.toFixed(1)}" cy="${y}" r="7"/><text x="${x.toFixed(1)}" y="${y + 4}" text-anchor="middle">!</text></a>`;
}

/** Nested delegations started by this run: slim spans under the bar, linked to their section. */
function nestedSpans(f: Frame, a: AttemptReport, top: number): string {
  const out: string[] = [];
  for (const key of a.nested) {
    const n = f.ctx.get(key);
    const s = f.ctx.index(key);
    if (!n || s === undefined) continue;
    const start = n.startedMs ?? n.firstStartMs;
    if (start === null) continue;
    const end = n.completedMs ?? n.treeLastMs ?? start;
    const x0 = f.scale.x(start);
    const x1 = Math.max(f.scale.x(end), x0 + 3);
    const cls = statusClass(n.status.aggregated, n.completedMs === null);
    out.push(`<a class="nested-span ${cls}" href="#${sectionId(s)}"><title>${esc(`nested delegation ${n.id} (${n.pattern ?? '?'}) ${n.status.aggregated ?? 'not completed'}`)}</title><rect x="${x0.toFixed(2)}" y="${top + BAR_Y + BAR_H + 2}" width="${(x1 - x0).toFixed(2)}" height="5" rx="2"/></a>`);
  }
  return out.join('');
}

function ownLastMs(d: DelegationReport): number | null {
  const last = ownLastEvent(d);
  return last ? instantMs(last.instant) : null;
}

/** Offset from the delegation start; a journaled ts that does not parse has no time (null ms). */
const at = (ms: number | null, origin: number): string => (ms === null ? 'timestamp does not parse' : offset(ms - origin));

/** The hover card (and the bar's SVG title) shows this much of an error or output; the list below has more. */
const CARD_TEXT_MAX = 2000;

function tip(f: Frame, a: AttemptReport, open: boolean, late: boolean, findings: string[]): Tip {
  const rows: [string, string][] = [
    ['agent', a.agentId ?? '?'],
    ['attempt', String(a.attempt)],
    ['status', open ? `${a.status ?? 'running'} (no completion journaled)` : a.status ?? '?'],
    ['start', a.startTs ? `${a.startTs} (${at(a.startMs, f.origin)})` : 'not journaled'],
    ['end', open ? `open; last event seen ${f.lastMs !== null ? offset(f.lastMs - f.origin) : '?'}` : a.endTs ? `${a.endTs} (${at(a.endMs, f.origin)})` : 'not journaled'],
  ];
  if (a.startMs !== null && a.endMs !== null && !open) rows.push(['duration', duration(a.endMs - a.startMs)]);
  if (late) rows.push(['late', `${offset(a.endMs! - f.joinMs!)} after the join`]);
  if (a.retryOf) rows.push(['retry of', a.retryOf]);
  if (a.retryReason) rows.push(['retry reason', a.retryReason]);
  if (a.depth !== null) rows.push(['depth', String(a.depth)]);
  if (a.error) rows.push(['error', capText(a.error, CARD_TEXT_MAX)]);
  if (a.outputPreview) rows.push(['output', capText(a.outputPreview, CARD_TEXT_MAX)]);
  for (const m of a.markers) rows.push(['marker', `${m.action} at ${m.ts}`]);
  if (a.nested.length) rows.push(['nested', a.nested.join(', ')]);
  if (findings.length) rows.push(['findings', findings.join(', ')]);
  // Bidi overrides and control characters are spelled out here too: the card shows text as-is.
  return { title: visible(`run ${a.runId}`), status: visible(a.status ?? (open ? 'open' : 'unknown')), rows: rows.map(([k, v]) => [k, visible(v)]) };
}

/** The same card as plain text, for the SVG `<title>` (works without scripts). */
export function tipText(t: Tip): string {
  return [t.title, ...t.rows.map(([k, v]) => `${k}: ${v}`)].join('\n');
}
