import { SEVERITY_RANK, type Finding, type Severity } from '../checks/types.js';
import type { DelegationReport, TraceReport } from '../report/types.js';
import { delegationGantt } from './gantt.js';
import { safeTerminalText } from './terminal.js';
import { type FormatContext, type Formatter, headingName, severityCount } from './types.js';
import { shownLocations } from './locations.js';

/**
 * Journal text as inert Markdown: control characters shown escaped, HTML defused, the punctuation
 * that makes links, emphasis, code, strikethrough or table cells backslash-escaped, and a zero-width space after
 * `@` and `#` so a model's output cannot mention people or link issues in a PR comment.
 */
export function markdownText(s: string): string {
  return safeTerminalText(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    .replace(/[@#]/g, (c) => `${c}&#8203;`)
    // GFM links bare URLs (`https://…`, `www.…`) with no markup: a zero-width space breaks the pattern.
    .replace(/:\/\//g, ':&#8203;//')
    .replace(/\b(www)\./gi, '$1&#8203;.');
}

/** Check ids come from the registry or a contract file: keep them to id characters in a code span. */
const idCode = (id: string) => `\`${id.replace(/[^A-Za-z0-9_.-]/g, '?')}\``;

const ICON: Record<Severity, string> = { error: '🔴', warning: '🟡', info: '🔵' };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function failing(findings: Finding[], failOn: FormatContext['failOn']): Finding[] {
  if (failOn === 'none') return [];
  return findings.filter((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn]);
}

function resultLine(report: TraceReport, ctx: FormatContext): string {
  const { error, warning, info, delegations } = report.summary;
  const counts = `${plural(error, 'error')}, ${plural(warning, 'warning')}, ${info} info in ${plural(delegations, 'delegation')}`;
  const failed = report.delegations.some((d) => failing(d.findings, ctx.failOn).length > 0);
  const verdict = ctx.failOn === 'none' ? 'no failure threshold (`--fail-on none`)' : failed ? `❌ fails at \`--fail-on ${ctx.failOn}\`` : `✅ passes at \`--fail-on ${ctx.failOn}\``;
  return `**Result:** ${counts}; ${verdict}.`;
}

function findingsCell(findings: Finding[]): string {
  if (!findings.length) return 'none';
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return (['error', 'warning', 'info'] as const).filter((s) => count(s) > 0).map((s) => `${ICON[s]} ${severityCount(count(s), s)}`).join(', ');
}

function subRunsCell(d: DelegationReport): string {
  const ok = d.children.filter((c) => c.finalStatus === 'completed' || c.finalStatus === 'delegated').length;
  const retries = d.children.reduce((n, c) => n + c.attempts.length - 1, 0);
  return `${d.children.length} (${ok} ok${retries ? `, ${retries} ${retries === 1 ? 'retry' : 'retries'}` : ''})`;
}

function summaryTable(report: TraceReport): string[] {
  const rows = report.delegations.map((d) => `| ${markdownText(headingName(d))} | ${markdownText(d.pattern ?? '?')} | ${markdownText(d.status.aggregated ?? (d.completedTs !== null ? '?' : 'incomplete'))} | ${subRunsCell(d)} | ${findingsCell(d.findings)} |`);
  return ['| Delegation | Pattern | Status | Sub-runs | Findings |', '| --- | --- | --- | --- | --- |', ...rows];
}

/** A findings cell's evidence, capped (shownLocations): one finding must not fill the document. */
function location(f: Finding): string {
  return shownLocations(f.evidence, markdownText) || '—';
}

function findingsTable(d: DelegationReport): string[] {
  if (!d.findings.length) return ['No findings.'];
  return [
    '| Severity | Check | Message | Evidence |',
    '| --- | --- | --- | --- |',
    ...d.findings.map((f) => `| ${ICON[f.severity]} ${f.severity} | ${idCode(f.id)} | ${markdownText(f.message)}<br>*${markdownText(`symptom: ${f.symptom}; check: ${f.check}`)}* | ${location(f)} |`),
  ];
}

/** GitHub's Mermaid refuses a diagram longer than this (its maxTextSize): the chart is left out, with a line that says so. */
const MERMAID_MAX_CHARS = 50_000;

/** `timelineBytes`: a section too large for the document keeps the timeline lines that fit, and says how many it left out. */
function delegationSection(d: DelegationReport, timelineBytes = Number.POSITIVE_INFINITY): string[] {
  const gantt = delegationGantt(d);
  const timeline: string[] = [];
  let used = 0;
  for (const t of d.timeline) {
    const l = `- ${markdownText(t.ts || '?')} ${markdownText(t.text)}`;
    used += Buffer.byteLength(l) + 1;
    if (used > timelineBytes) {
      timeline.push(`- *${d.timeline.length - timeline.length} more timeline lines left out to stay under GitHub's 1 MiB limit for a job summary: the JSON or HTML output has them all.*`);
      break;
    }
    timeline.push(l);
  }
  return [
    `### Delegation ${markdownText(headingName(d))}`,
    '',
    `Pattern: ${markdownText(d.pattern ?? '?')} · Parent run: ${markdownText(d.parentRunId ?? '?')} · Expected agents/tasks: ${markdownText(d.expected)}`,
    '',
    ...(!gantt
      ? ['*No sub-run was journaled with a time, so there is no chart.*', '']
      : gantt.length > MERMAID_MAX_CHARS
        ? [`*The chart would take ${gantt.length.toLocaleString('en-US')} characters, more than the ${MERMAID_MAX_CHARS.toLocaleString('en-US')} Mermaid draws on GitHub: the HTML output draws it.*`, '']
        : ['```mermaid', gantt, '```', '']),
    '**Findings**',
    '',
    ...findingsTable(d),
    '',
    '<details><summary>Timeline</summary>',
    '',
    ...timeline,
    '',
    '</details>',
    '',
    '**Limits**',
    '',
    ...d.limits.map((l) => `- ${markdownText(l)}`),
  ];
}

/**
 * GitHub refuses a job summary over 1 MiB (the step's upload fails): the document stays under
 * this many bytes, leaving out whole delegation sections (the least severe first) and, past half
 * of it, summary rows, with a line that says how many and where the rest is.
 */
export const MARKDOWN_MAX_BYTES = 1_000_000;

const bytesOf = (lines: readonly string[]) => lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);

/** Which of `items` fit in `budget`, taken by rank (higher first), then in order. */
function fitting(items: readonly { bytes: number; rank: number }[], budget: number): Set<number> {
  const kept = new Set<number>();
  let used = 0;
  for (const i of byRank(items)) {
    if (used + items[i].bytes > budget) continue;
    kept.add(i);
    used += items[i].bytes;
  }
  return kept;
}

/** Indexes of `items` by rank, higher first, report order within a rank. */
const byRank = (items: readonly { rank: number }[]) => [...items.keys()].sort((a, b) => items[b].rank - items[a].rank || a - b);

/** What is kept first when the document is too large: a delegation that fails --fail-on, then by its worst finding. */
function rankOf(d: DelegationReport, failOn: FormatContext['failOn']): number {
  const worst = d.findings.reduce((n, f) => Math.max(n, SEVERITY_RANK[f.severity] + 1), 0);
  return (failing(d.findings, failOn).length > 0 ? 10 : 0) + worst;
}

/**
 * Each delegation's section, and which of them fit in `budget` bytes (by rank). A section larger
 * than what is left (a delegation of 100,000s of events) keeps the timeline lines that fit.
 */
function fittedSections(delegations: readonly DelegationReport[], ranks: readonly number[], budget: number): { sections: string[][]; keptSections: Set<number> } {
  const sections = delegations.map((d) => [...delegationSection(d), '']);
  const sizes = sections.map((sec, i) => ({ bytes: bytesOf(sec), rank: ranks[i] }));
  const keptSections = sizes.reduce((n, x) => n + x.bytes, 0) <= budget ? new Set(sections.keys()) : fitting(sizes, budget);
  let left = budget - [...keptSections].reduce((n, i) => n + sizes[i].bytes, 0);
  for (const i of byRank(sizes)) {
    if (keptSections.has(i) || left < 16 * 1024) continue;
    const fixed = bytesOf(delegationSection(delegations[i], 0));
    if (fixed + 1024 > left) continue;
    sections[i] = [...delegationSection(delegations[i], left - fixed - 1024), ''];
    keptSections.add(i);
    left -= bytesOf(sections[i]);
  }
  return { sections, keptSections };
}

/** The report as GitHub-flavoured Markdown for a PR comment or `$GITHUB_STEP_SUMMARY`. */
export const formatMarkdown: Formatter = (report, ctx) => {
  const head = ['## trace-delegation report', '', resultLine(report, ctx), ''];
  const limits = report.limits.length ? ['### Scan limits', '', ...report.limits.map((l) => `- ${markdownText(l)}`), ''] : [];
  const ranks = report.delegations.map((d) => rankOf(d, ctx.failOn));
  const table = report.delegations.length ? summaryTable(report) : [];
  let budget = MARKDOWN_MAX_BYTES - bytesOf(head) - bytesOf(limits) - 1024; // room for the notes
  const tableHead = table.slice(0, 2);
  const rows = table.slice(2);
  const keptRows = bytesOf(rows) <= budget / 2 ? new Set(rows.keys()) : fitting(rows.map((r, i) => ({ bytes: Buffer.byteLength(r) + 1, rank: ranks[i] })), budget / 2 - bytesOf(tableHead));
  const tableOut = rows.length ? [...tableHead, ...rows.filter((_, i) => keptRows.has(i)), ''] : [];
  budget -= bytesOf(tableOut);
  const { sections, keptSections } = fittedSections(report.delegations, ranks, budget);
  // Loops, not push(...section): a spread passes each line as an argument, and a delegation of
  // 100,000 children has more lines than the call stack takes.
  const lines = [...head];
  for (const l of tableOut) lines.push(l);
  const leftRows = rows.length - keptRows.size;
  const leftSections = sections.length - keptSections.size;
  if (leftRows > 0 || leftSections > 0) {
    const what = [leftRows > 0 ? `${plural(leftRows, 'row')} of the table` : '', leftSections > 0 ? `${plural(leftSections, 'delegation section')}` : ''].filter(Boolean).join(' and ');
    lines.push(`*${what} left out (the least severe first) to stay under GitHub's 1 MiB limit for a job summary: the JSON or HTML output has every delegation.*`, '');
  }
  sections.forEach((sec, i) => {
    if (keptSections.has(i)) for (const l of sec) lines.push(l);
  });
  for (const l of limits) lines.push(l);
  return `${lines.join('\n').trimEnd()}\n`;
};
