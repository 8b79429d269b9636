// The HTML around the timeline: header facts, findings, limits, the event list, the overview table.
import type { Finding } from '../../checks/types.js';
import type { DelegationReport, TraceReport } from '../../report/types.js';
import { headingName, severityCount } from '../types.js';
import { capText, clip, esc } from './escape.js';
import type { DelegationFacts } from './facts.js';
import { barId, findingId, sectionId } from './ids.js';
import { duration } from './scale.js';
import { statusClass } from './status.js';
import { INDENTED_LEVELS } from './styles.js';

/** The page shows this much of one error or output preview (the json report has all of it). */
const PAGE_TEXT_MAX = 100_000;

/** `2025-11-05T15:30:09.400658958+00:00` → `2025-11-05 15:30:09.400Z` for table cells (full value in the title). */
const shortTs = (ts: string): string => ts.replace(/^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d{1,3})?\d*(.*)$/, (_m, d, t, f, z) => `${d} ${t}${f ?? ''}${z === '+00:00' ? 'Z' : z}`);

const code = (s: string | null | undefined) => (s ? `<code>${esc(s)}</code>` : '<span class="none">?</span>');

export function statusPill(d: { status: Pick<DelegationReport['status'], 'aggregated'>; completedTs: string | null }): string {
  const label = d.status.aggregated ?? (d.completedTs !== null ? 'unknown' : 'not completed');
  return `<span class="pill ${statusClass(d.status.aggregated, d.completedTs === null)}">${esc(label)}</span>`;
}

function severityCounts(findings: Finding[]): string {
  const n = { error: 0, warning: 0, info: 0 };
  for (const f of findings) n[f.severity]++;
  const parts = (['error', 'warning', 'info'] as const).filter((s) => n[s] > 0).map((s) => `<span class="count sev-${s}">${severityCount(n[s], s)}</span>`);
  return parts.length ? parts.join(' ') : '<span class="count ok">none</span>';
}

/** Id, pattern, parent run, sessions, aggregated status and counts. */
export function delegationHeader(d: DelegationReport, i: number, parentLink: string): string {
  const attempts = d.children.reduce((s, c) => s + c.attempts.length, 0);
  const span = d.startedMs !== null && d.completedMs !== null ? ` <span class="muted">(${esc(duration(d.completedMs - d.startedMs))} after start)</span>` : '';
  const totals = d.status.totalSubRuns === null
    ? '<span class="none">no delegation_completed</span>'
    : `${esc(d.status.totalSubRuns)} total · <span class="ok-text">${esc(d.status.succeeded ?? '?')} succeeded</span> · <span class="${d.status.failed ? 'bad-text' : 'muted'}">${esc(d.status.failed ?? '?')} failed</span>`;
  const facts: [string, string][] = [
    ['Pattern', code(d.pattern)],
    ['Parent run', code(d.parentRunId) + parentLink],
    ['Sessions', d.sessions.length ? d.sessions.map((s) => code(s)).join(' ') : '<span class="none">?</span>'],
    ['Expected agents/tasks', esc(d.expected)],
    ['Agents', d.agents.length ? d.agents.map((a) => code(a)).join(' ') : '<span class="none">?</span>'],
    ['Started', d.startedTs ? code(d.startedTs) : '<span class="none">no delegation_started</span>'],
    ['Joined', d.completedTs ? code(d.completedTs) + span : '<span class="none">no delegation_completed</span>'],
    ['Sub-runs (journaled totals)', totals],
    ['Attempts drawn', `${attempts} in ${d.children.length} ${d.children.length === 1 ? 'chain' : 'chains'}`],
    ['Findings', severityCounts(d.findings)],
  ];
  const preview = d.status.aggregatedOutputPreview
    ? `<details class="preview"><summary>Aggregated output preview</summary><pre>${esc(capText(d.status.aggregatedOutputPreview, PAGE_TEXT_MAX))}</pre></details>`
    : '';
  return `<header class="dhead"><h2 id="${sectionId(i)}-h"><span class="kind">Delegation</span> <code class="did">${esc(headingName(d))}</code> ${statusPill(d)}</h2><dl class="facts">${facts.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`).join('')}</dl>${preview}</header>`;
}

/** Every drawn bar of a run id across the page ([] for none). */
export type BarsOf = (runId: string) => string[];

/** Findings with links to the bars of the runs they concern. */
export function findingsList(d: DelegationReport, i: number, bars: BarsOf): string {
  if (d.findings.length === 0) return `<h3>Findings</h3><p class="none-found">No findings: the journal shows nothing wrong with this delegation.</p>`;
  // A run id can have bars in several delegations (a reused sub_run_id, foreign-parent): link to
  // this delegation's bars when it has one, and only otherwise to another's.
  const own = `${sectionId(i)}-`;
  const barsOf = (r: string) => {
    const all = bars(r);
    const mine = all.filter((b) => b.startsWith(own));
    return mine.length ? mine : all;
  };
  const items = d.findings.map((f, n) => {
    const runs = f.runs.map((r) => {
      const ids = barsOf(r);
      return ids.length ? ids.map((b) => `<a class="run-link" href="#${b}" data-bar="${b}">${esc(clip(r, 40))}</a>`).join(' ') : `<code title="no bar: this run has no journaled time">${esc(clip(r, 40))}</code>`;
    });
    const where = f.evidence.map((e) => `${esc(e.file)}:${esc(e.line)}`).join(', ');
    const barIds = f.runs.flatMap(barsOf);
    return `<li id="${findingId(i, n)}" class="finding sev-${f.severity}" data-bars="${barIds.join(' ')}"><div class="fline"><span class="sev">${f.severity}</span> <strong class="fid">${esc(f.id)}</strong> ${esc(f.message)}</div>${runs.length ? `<div class="fruns">runs: ${runs.join(' ')}</div>` : ''}${where ? `<div class="fwhere">evidence: ${where}</div>` : ''}<div class="fhint">symptom: ${esc(f.symptom)}; check: ${esc(f.check)}</div></li>`;
  });
  return `<h3>Findings <span class="muted">(${d.findings.length})</span></h3><ol class="findings">${items.join('')}</ol>`;
}

export function limitsList(limits: string[], title = 'Limits'): string {
  if (limits.length === 0) return '';
  return `<h3>${esc(title)}</h3><ul class="limits">${limits.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`;
}

/** The skill's textual timeline, folded away: the same events the bars are drawn from. */
export function eventList(d: DelegationReport): string {
  const rows = d.timeline.map((t) => `<tr><td><code>${esc(t.ts || '?')}</code></td><td>${esc(t.text)}</td><td class="muted">${esc(t.file)}:${esc(t.line)}</td></tr>`);
  return `<details class="events"><summary>Journal events (${d.timeline.length})</summary><div class="table-scroll"><table><thead><tr><th>ts</th><th>event</th><th>where</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></details>`;
}

/**
 * Every attempt's error and output preview in full, folded away: the hover card clips them, and a
 * stack trace must be readable and copyable somewhere.
 */
export function outputsList(d: DelegationReport, i: number, drawn: boolean): string {
  const rows: string[] = [];
  d.children.forEach((c, j) =>
    c.attempts.forEach((a, k) => {
      if (!a.error && !a.outputPreview) return;
      const id = barId(i, j, k);
      const run = `<code>${esc(clip(a.runId, 40))}</code>`;
      // A link only to a bar that is drawn: no timeline when no timestamp of the delegation parses.
      const head = `${drawn ? `<a href="#${id}">${run}</a>` : run} ${esc(a.agentId ?? '?')} attempt ${a.attempt} · ${esc(a.status ?? 'no status')}`;
      const error = a.error ? `<div class="olabel">error</div><pre class="otext">${esc(capText(a.error, PAGE_TEXT_MAX))}</pre>` : '';
      const output = a.outputPreview ? `<div class="olabel">output preview</div><pre class="otext">${esc(capText(a.outputPreview, PAGE_TEXT_MAX))}</pre>` : '';
      rows.push(`<li>${head}${error}${output}</li>`);
    }),
  );
  if (rows.length === 0) return '';
  return `<details class="outputs"><summary>Errors and outputs (${rows.length})</summary><ul class="outputs">${rows.join('')}</ul></details>`;
}

/** For each row, the severities (error, warning) of the findings of the rows nested under it. */
function nestedSeverities(order: readonly { i: number; depth: number }[], row: (i: number) => DelegationFacts): Set<'error' | 'warning'>[] {
  const out = order.map(() => new Set<'error' | 'warning'>());
  const open: number[] = []; // the rows above the current one, by depth
  order.forEach(({ i, depth }, at) => {
    open.length = depth;
    for (const sev of row(i).serious) for (const up of open) out[up].add(sev);
    open[depth] = at;
  });
  return out;
}

/** One row per delegation (nested ones indented under their parent) for multi-delegation reports, a row at a time. */
export function* overviewTable(order: { i: number; depth: number }[], row: (i: number) => DelegationFacts): Generator<string> {
  // Sort keys for the page's script: it sorts groups (an outer delegation with its nested ones), so nesting survives.
  let group = -1;
  const holds = nestedSeverities(order, row);
  // The rows come in journal order; that is start order (what aria-sort claims) only when every delegation has a start.
  let startOrdered = true;
  let withErrors = 0;
  let withWarnings = 0;
  for (const { i } of order) {
    const d = row(i);
    if (d.startedMs === null) startOrdered = false;
    if (d.counts.error > 0) withErrors++;
    if (d.counts.error + d.counts.warning > 0) withWarnings++;
  }
  const filter = `<fieldset class="row-filter"><legend>Show</legend><label><input type="radio" name="rows" id="rows-all" checked> all (${order.length})</label> <label><input type="radio" name="rows" id="rows-warning"> with errors or warnings (${withWarnings})</label> <label><input type="radio" name="rows" id="rows-error"> with errors (${withErrors})</label></fieldset>`;
  yield `<section class="overview"><h2>Delegations <span class="muted">(${order.length})</span></h2>${filter}<div class="table-scroll"><table class="sortable"><thead><tr><th data-sort="delegation">delegation</th><th data-sort="pattern">pattern</th><th data-sort="status">status</th><th class="num" data-sort="totals" data-numeric data-first="descending" title="sorts by failed, then by total">succeeded/failed/total</th><th class="num" data-sort="findings" data-numeric data-first="descending">findings</th><th data-sort="started" data-numeric${startOrdered ? ' aria-sort="ascending"' : ''}>started</th><th class="num" data-sort="dur" data-numeric data-first="descending">to join</th></tr></thead><tbody>`;
  for (let at = 0; at < order.length; at++) {
    const { i, depth } = order[at];
    const d = row(i);
    if (depth === 0) group++;
    const { counts } = d;
    // A letter with each count (E, W, I) and the words in a title: colour is not the only carrier.
    const fcell = (['error', 'warning', 'info'] as const).map((s) => (counts[s] ? `<span class="count sev-${s}" title="${severityCount(counts[s], s)}">${counts[s]}${s[0].toUpperCase()}</span>` : '')).join(' ') || '<span class="muted">–</span>';
    const totals = d.status.totalSubRuns === null ? '<span class="muted">–</span>' : `${esc(d.status.succeeded ?? '?')}/${esc(d.status.failed ?? '?')}/${esc(d.status.totalSubRuns)}`;
    const durMs = d.startedMs !== null && d.completedMs !== null ? d.completedMs - d.startedMs : null;
    const dur = durMs !== null ? esc(duration(durMs)) : '<span class="muted">–</span>';
    // Indented as the sections are (INDENTED_LEVELS at most); a deeper row says its level.
    const indent = depth > 0 ? `<span class="indent" style="padding-left:${Math.min(depth, INDENTED_LEVELS) * 1.2}em">↳${depth > INDENTED_LEVELS ? `<span class="muted" title="nesting level ${depth}">${depth}</span>` : ''} </span>` : '';
    // Rows by worst finding, for the filter above the table (CSS only: it works without scripts).
    const worst = counts.error ? 'error' : counts.warning ? 'warning' : counts.info ? 'info' : 'none';
    const keys = {
      delegation: d.key,
      pattern: d.pattern ?? '',
      status: d.status.aggregated ?? (d.completedTs === null ? 'open' : ''),
      // Failed first (what a reader of this column looks for), then the total; an unknown failed count as none.
      totals: d.status.totalSubRuns === null ? '' : (d.status.failed ?? 0) * 1e6 + d.status.totalSubRuns,
      findings: counts.error * 1e12 + counts.warning * 1e6 + counts.info, // errors first, then warnings, then info
      started: d.startedMs ?? '',
      dur: durMs ?? '',
    };
    const data = Object.entries(keys).map(([k, v]) => ` data-k-${k}="${esc(String(v))}"`).join('');
    // A row the filter would hide but whose nested rows it shows stays, muted, so they keep their parent.
    const context = [...holds[at]].map((sev) => ` holds-${sev}`).join('');
    yield `<tr class="worst-${worst}${context}" data-group="${group}"${data}><td>${indent}<a href="#${sectionId(i)}" title="${esc(headingName(d))}"><code>${esc(clip(d.id, 44))}${esc(d.key.slice(d.id.length))}</code></a></td><td>${esc(d.pattern ?? '?')}</td><td>${statusPill(d)}</td><td class="num">${totals}</td><td class="num">${fcell}</td><td class="nowrap">${d.startedTs ? `<code title="${esc(d.startedTs)}">${esc(shortTs(d.startedTs))}</code>` : '<span class="muted">–</span>'}</td><td class="num">${dur}</td></tr>`;
  }
  yield '</tbody></table></div></section>';
}

export function pageHeader(report: Pick<TraceReport, 'summary' | 'stats' | 'target' | 'tool'>): string {
  const s = report.summary;
  const st = report.stats;
  const summary = `${s.delegations} ${s.delegations === 1 ? 'delegation' : 'delegations'} · ${s.error} ${s.error === 1 ? 'error' : 'errors'} · ${s.warning} ${s.warning === 1 ? 'warning' : 'warnings'} · ${s.info} info`;
  return `<header class="page"><h1>Delegation trace</h1><p class="sub">${esc(summary)} — target <code>${esc(report.target.query)}</code> (${esc(report.target.kind)}) — ${esc(st.files)} ${st.files === 1 ? 'file' : 'files'}, ${esc(st.events)} events read by ${esc(report.tool.name)} ${esc(report.tool.version)}</p></header>`;
}
