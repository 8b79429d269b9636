import { SEVERITY_RANK, type Finding } from '../checks/types.js';
import { stableMessage } from './stable-message.js';
import type { DelegationReport } from '../report/types.js';
import type { FormatContext, Formatter } from './types.js';

// Characters XML 1.0 forbids anywhere (most C0 controls, lone surrogates, U+FFFE/U+FFFF).
const ILLEGAL_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text content: illegal characters removed, markup escaped, CR kept (parsers turn a raw CR LF into LF). */
export function xmlText(s: string): string {
  return s.replace(ILLEGAL_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Attribute values: also quotes, and whitespace as references so parsers do not normalize it away. */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

const attrs = (pairs: Record<string, string | number>) =>
  Object.entries(pairs)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');

function atOrAbove(f: Finding, failOn: FormatContext['failOn']): boolean {
  return failOn !== 'none' && SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn];
}

/** Test names stay short and the same from run to run (no ages); the full message is in the failure. */
const caseName = (f: Finding) => {
  const name = `${f.id}: ${stableMessage(f.message)}`;
  return name.length > 160 ? `${name.slice(0, 159)}…` : name;
};

const where = (f: Finding) => f.evidence.map((e) => `${e.file}:${e.line}`).join(', ');

function failingCase(d: DelegationReport, f: Finding, name: string): string[] {
  const body = [`[${f.severity}] ${f.id}: ${f.message}`, where(f) && `evidence: ${where(f)}`, `symptom: ${f.symptom}; check: ${f.check}`].filter(Boolean).join('\n');
  const first = f.evidence[0];
  return [
    `    <testcase${attrs({ classname: `trace-delegation.${d.key}`, name, ...(first ? { file: first.file, line: first.line } : {}) })}>`,
    `      <failure${attrs({ type: f.id, message: f.message })}>${xmlText(body)}</failure>`,
    '    </testcase>',
  ];
}

/** JUnit's timestamp is an ISO date-time without zone (UTC here); time is the duration in seconds. */
function timing(d: DelegationReport): Record<string, string> {
  if (d.startedMs === null) return {};
  const iso = new Date(Math.floor(d.startedMs)).toISOString();
  // A start outside years 0000–9999 in UTC (9999-12-31T23:59-05:00, say) has no xs:dateTime form: no timestamp.
  const at: Record<string, string> = /^\d{4}-/.test(iso) ? { timestamp: iso.slice(0, 19) } : {};
  // A join journaled before the start (clock skew: time-order reports it) is no duration; schemas refuse a sign.
  if (d.completedMs === null || d.completedMs < d.startedMs) return at;
  return { ...at, time: ((d.completedMs - d.startedMs) / 1000).toFixed(3) };
}

function suite(d: DelegationReport, ctx: FormatContext): string[] {
  const failing = d.findings.filter((f) => atOrAbove(f, ctx.failOn));
  const below = d.findings.filter((f) => !atOrAbove(f, ctx.failOn));
  const threshold = ctx.failOn === 'none' ? 'no failure threshold (--fail-on none)' : `no finding at or above ${ctx.failOn}`;
  // GitLab keeps only the first case of a name: a repeated one (names cut at 160, ages left out) is numbered.
  const used = new Set<string>();
  const next = new Map<string, number>();
  const names = failing.map((f) => {
    const base = caseName(f);
    let name = base;
    while (used.has(name)) {
      const n = next.get(base) ?? 2;
      next.set(base, n + 1);
      name = `${base} (${n})`;
    }
    used.add(name);
    return name;
  });
  const cases = failing.length
    ? failing.flatMap((f, i) => failingCase(d, f, names[i]))
    : [`    <testcase${attrs({ classname: `trace-delegation.${d.key}`, name: threshold })}/>`];
  // Findings under the threshold do not fail, but stay visible in the suite's output.
  const out = below.length ? [`    <system-out>${xmlText(below.map((f) => `[${f.severity}] ${f.id}: ${f.message}${where(f) ? ` (${where(f)})` : ''}`).join('\n'))}</system-out>`] : [];
  return [
    `  <testsuite${attrs({ name: `delegation ${d.key}`, tests: Math.max(failing.length, 1), failures: failing.length, errors: 0, skipped: 0, ...timing(d) })}>`,
    '    <properties>',
    // No join journaled: the word markdown uses, not a bare "?" (kept for a join without a status).
    ...Object.entries({ pattern: d.pattern ?? '?', parentRun: d.parentRunId ?? '?', status: d.status.aggregated ?? (d.completedTs !== null ? '?' : 'incomplete') }).map(([name, value]) => `      <property${attrs({ name, value })}/>`),
    '    </properties>',
    ...cases,
    ...out,
    '  </testsuite>',
  ];
}

const NO_DELEGATION_SUITE = [
  `  <testsuite${attrs({ name: 'trace-delegation', tests: 1, failures: 0, errors: 0, skipped: 0 })}>`,
  `    <testcase${attrs({ classname: 'trace-delegation', name: 'no delegation found' })}/>`,
  '  </testsuite>',
];

/** JUnit XML: one suite per delegation, a failing case per finding at or above --fail-on. */
export const formatJunit: Formatter = (report, ctx) => {
  // Jenkins' junit step fails a build whose reports hold no test: an empty tree is one passing case.
  const suites = report.delegations.length ? report.delegations.map((d) => suite(d, ctx)) : [NO_DELEGATION_SUITE];
  const tests = report.delegations.reduce((n, d) => n + Math.max(d.findings.filter((f) => atOrAbove(f, ctx.failOn)).length, 1), 0) || 1;
  const failures = report.delegations.reduce((n, d) => n + d.findings.filter((f) => atOrAbove(f, ctx.failOn)).length, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'trace-delegation', tests, failures, errors: 0 })}>`,
    ...suites.flat(),
    '</testsuites>',
    '',
  ].join('\n');
};
