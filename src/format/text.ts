import type { Finding } from '../checks/types.js';
import type { DelegationReport, TraceReport } from '../report/types.js';
import { paint, safeTerminalText as safe } from './terminal.js';
import { type FormatContext, type Formatter, headingName } from './types.js';

const SEVERITY_COLOUR = { error: 'red', warning: 'yellow', info: 'cyan' } as const;

/** `- [severity] <id>: <message> (<file>:<line>, …)`, as the report format prescribes. */
export function findingLine(f: Finding, color = false): string {
  const where = f.evidence.length ? ` (${f.evidence.map((e) => `${safe(e.file)}:${e.line}`).join(', ')})` : '';
  return `- ${paint(color, SEVERITY_COLOUR[f.severity], `[${f.severity}]`)} ${f.id}: ${safe(f.message)}${where}`;
}

/** The failure-classification hint under each finding: the symptom and what to inspect. */
export function classificationLine(f: Finding, color = false): string {
  return paint(color, 'dim', `  symptom: ${f.symptom}; check: ${f.check}`);
}

/** One block in the seed skill's layout, line for line. */
export function delegationBlock(d: DelegationReport, ctx: FormatContext): string {
  const lines = [
    `${paint(ctx.color, 'bold', 'Delegation Trace:')} ${safe(headingName(d))}`,
    '',
    `Pattern: ${safe(d.pattern ?? '?')}`,
    `Parent run: ${safe(d.parentRunId ?? '?')}`,
    `Expected agents/tasks: ${safe(d.expected)}`,
    '',
    'Timeline:',
    ...d.timeline.map((t) => `- ${safe(t.ts || '?')} ${safe(t.text)}`),
    '',
    'Findings:',
    ...(d.findings.length ? d.findings.flatMap((f) => [findingLine(f, ctx.color), classificationLine(f, ctx.color)]) : ['- none']),
    '',
    'Limits:',
    ...d.limits.map((l) => `- ${safe(l)}`),
  ];
  return lines.join('\n');
}

export const formatText: Formatter = (report: TraceReport, ctx) => {
  const blocks = report.delegations.map((d) => delegationBlock(d, ctx));
  if (blocks.length === 0) blocks.push('No delegation found.'); // --all over a tree without one
  if (report.limits.length) blocks.push(['Scan limits:', ...report.limits.map((l) => `- ${safe(l)}`)].join('\n'));
  return `${blocks.join('\n\n')}\n`;
};
