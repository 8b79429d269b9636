import { createHash } from 'node:crypto';
import { stableMessage } from './stable-message.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHECK_META_BY_ID } from '../checks/catalog.js';
import { CHECKS } from '../checks/index.js';
import type { CheckMeta, Finding, Severity } from '../checks/types.js';
import type { Location } from '../journal/types.js';
import type { DelegationReport, TraceReport } from '../report/types.js';
import { safeTerminalText } from './terminal.js';
import type { Formatter } from './types.js';

/** The OASIS schema the output is validated against (test/sarif-schema-2.1.0.json). */
export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

type Level = 'error' | 'warning' | 'note';
const LEVEL: Record<Severity, Level> = { error: 'error', warning: 'warning', info: 'note' };

/**
 * SARIF plain-text messages treat `[text](n)` as an embedded link, so literal brackets (and the
 * backslash that escapes them) are escaped, and `{0}` as a placeholder, so literal braces are
 * doubled (§3.11.5); control and bidi characters are shown escaped.
 */
export function sarifText(s: string): string {
  return safeTerminalText(s).replace(/[\\[\]{}]/g, (c) => (c === '{' || c === '}' ? c + c : `\\${c}`));
}

const pascalCase = (id: string) => id.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** A fence longer than any backtick run inside, so example text cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/** GitHub code scanning limits a rule's fullDescription.text to 1,000 characters (its "SARIF support" reference). */
export const MAX_FULL_DESCRIPTION = 1000;

/** The text whole when it fits, else its sentences that fit and ` …` (help keeps the whole text). */
function fullDescription(text: string): string {
  if (text.length <= MAX_FULL_DESCRIPTION) return text;
  const head = text.slice(0, MAX_FULL_DESCRIPTION - 1);
  const end = head.lastIndexOf('. ');
  // A first sentence longer than the limit is cut at a space instead.
  const cut = end > 0 ? head.slice(0, end + 1) : head.slice(0, Math.max(head.lastIndexOf(' '), 1));
  return `${cut.slice(0, MAX_FULL_DESCRIPTION - 2)} …`;
}

function ruleFromMeta(meta: CheckMeta) {
  const { why, fix, example, reportLine } = meta.docs;
  return {
    id: meta.id,
    name: pascalCase(meta.id),
    shortDescription: { text: meta.description },
    fullDescription: { text: fullDescription(why) },
    help: {
      text: `${why}\n\nFix: ${fix}\n\nExample journal lines:\n${example}\n\nReport line: ${reportLine}`,
      markdown: `${why}\n\n**Fix:** ${fix}\n\n**Example journal lines:**\n\n${fenced(example)}\n\n**Report line:**\n\n${fenced(reportLine)}`,
    },
    defaultConfiguration: { level: LEVEL[meta.defaultSeverity] },
    properties: { category: meta.category, symptom: meta.symptom, tags: ['trace-delegation', meta.category] },
  };
}

/**
 * The rule of a finding that is not a built-in check: a contract check's from its catalog entry;
 * a check the tool does not know (a library caller's) gets a described rule with no default
 * level, since a finding's severity may be a --rule override, not the check's default.
 */
function ruleForFinding(f: Finding) {
  const meta = CHECK_META_BY_ID.get(f.id);
  if (meta) return ruleFromMeta(meta);
  const text = `trace-delegation check ${f.id} (not in the tool's catalog: see the findings' messages)`;
  return {
    id: f.id,
    name: pascalCase(f.id),
    shortDescription: { text: `trace-delegation check ${f.id}` },
    fullDescription: { text: fullDescription(text) },
    help: { text, markdown: text },
    properties: { symptom: f.symptom, tags: ['trace-delegation'] },
  };
}

/** Relative paths stay relative to the checkout root (%SRCROOT%); absolute ones become file: URIs. */
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  if (path.isAbsolute(file)) return { uri: pathToFileURL(file).href };
  return { uri: file.split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

type PhysicalLocation = { artifactLocation: ReturnType<typeof artifactLocation>; region?: { startLine: number } };

/**
 * Builds physical locations, one artifactLocation per journal file: a log has few files and can
 * have millions of evidence lines, and a URI built per line was most of SARIF's cost on them.
 */
export function locationBuilder(): (loc: Location) => PhysicalLocation {
  const artifacts = new Map<string, ReturnType<typeof artifactLocation>>();
  return (loc) => {
    let artifact = artifacts.get(loc.file);
    if (!artifact) artifacts.set(loc.file, (artifact = artifactLocation(loc.file)));
    return loc.line > 0 ? { artifactLocation: artifact, region: { startLine: loc.line } } : { artifactLocation: artifact };
  };
}

/** The evidence lines; a finding with none points at its delegation's first journal line. */
function evidenceFor(f: Finding, d: DelegationReport): Location[] {
  if (f.evidence.length) return f.evidence;
  const first = d.timeline[0];
  if (first) return [{ file: first.file, line: first.line }];
  return d.files.length ? [{ file: d.files[0], line: 0 }] : [];
}

/**
 * The same finding gets the same fingerprint on every run, so a code-scanning service keeps one
 * alert for it across uploads (the upload action's own line hash needs the journal in the
 * checkout). The message is part of it, without its ages (stableMessage): two findings of one
 * check on one delegation can share their runs and evidence (missing-start, one per agent).
 */
function fingerprint(f: Finding, primary: Location | undefined): string {
  const parts = [f.id, f.delegation, [...f.runs].sort().join(','), primary ? `${primary.file}:${primary.line}` : '', stableMessage(f.message)];
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

/**
 * GitHub code scanning rejects a whole upload past these (its "SARIF support" limits): more than
 * 25,000 results in a run, or more than 1,000 locations on a result (the primary one and the
 * related ones together, to be safe).
 */
export const MAX_RESULTS_PER_RUN = 25_000;
export const MAX_RELATED_LOCATIONS = 999;

const LEVEL_RANK: Record<Level, number> = { error: 0, warning: 1, note: 2 };

/** The results a run keeps: all of them, or the most severe MAX_RESULTS_PER_RUN in report order. */
function withinRunLimit<T extends { level: Level }>(results: T[]): { kept: T[]; omitted: Record<Level, number> } {
  const omitted: Record<Level, number> = { error: 0, warning: 0, note: 0 };
  if (results.length <= MAX_RESULTS_PER_RUN) return { kept: results, omitted };
  const order = results.map((_, i) => i).sort((a, b) => LEVEL_RANK[results[a].level] - LEVEL_RANK[results[b].level] || a - b);
  const keep = new Set(order.slice(0, MAX_RESULTS_PER_RUN));
  results.forEach((r, i) => {
    if (!keep.has(i)) omitted[r.level]++;
  });
  return { kept: results.filter((_, i) => keep.has(i)), omitted };
}

/** SARIF 2.1.0: one rule per check id, one result per finding located at its journal line. */
export const formatSarif: Formatter = (report: TraceReport) => {
  const rules: ReturnType<typeof ruleForFinding | typeof ruleFromMeta>[] = CHECKS.map((c) => ruleFromMeta(c.meta));
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i] as const));
  const physicalLocation = locationBuilder();
  const evidenceMessage = { text: 'evidence' };
  const all = report.delegations.flatMap((d) =>
    d.findings.map((f) => {
      if (!ruleIndex.has(f.id)) ruleIndex.set(f.id, rules.push(ruleForFinding(f)) - 1);
      const lines = evidenceFor(f, d);
      const primary = lines[0] as Location | undefined;
      // Only the kept ones are copied: an orphan's evidence is every line of its delegation.
      const related = lines.slice(1, 1 + MAX_RELATED_LOCATIONS);
      const moreEvidence = Math.max(0, lines.length - 1 - related.length);
      const hash = fingerprint(f, primary);
      return {
        ruleId: f.id,
        ruleIndex: ruleIndex.get(f.id),
        level: LEVEL[f.severity],
        message: { text: sarifText(f.message) },
        ...(primary ? { locations: [{ physicalLocation: physicalLocation(primary) }] } : {}),
        ...(related.length ? { relatedLocations: related.map((loc, i) => ({ id: i + 1, physicalLocation: physicalLocation(loc), message: evidenceMessage })) } : {}),
        // GitHub tracks an alert by primaryLocationLineHash only; ours also works for journals outside the checkout.
        partialFingerprints: { primaryLocationLineHash: `${hash.slice(0, 16)}:1`, 'traceDelegationFinding/v1': hash },
        properties: {
          delegation: f.delegation,
          runs: f.runs,
          symptom: f.symptom,
          check: f.check,
          ...(moreEvidence ? { omittedEvidence: moreEvidence } : {}),
        },
      };
    }),
  );
  const { kept, omitted } = withinRunLimit(all);
  const left = all.length - kept.length;
  const note = `${left} of ${all.length} results left out (${omitted.error} errors, ${omitted.warning} warnings, ${omitted.note} notes), the least severe first: GitHub code scanning rejects a run of more than ${MAX_RESULTS_PER_RUN}. The json format has every finding.`;
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: report.tool.name, version: report.tool.version, semanticVersion: report.tool.version, rules } },
        ...(left ? { invocations: [{ executionSuccessful: true, toolExecutionNotifications: [{ level: 'warning', message: { text: note } }] }] } : {}),
        results: kept,
        ...(left ? { properties: { omittedResults: left, omittedBySeverity: omitted } } : {}),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
};
