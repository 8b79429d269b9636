import type { FileStats } from '../journal/types.js';
import type { Delegation } from '../model/delegation.js';
import { expectationFor } from '../model/expected.js';
import { SYMPTOM_CHECKS } from './classification.js';
import { CHECKS } from './index.js';
import { SEVERITY_RANK, type Check, type CheckOptions, type Finding, type Severity } from './types.js';

/** Per-check overrides from --rule and the config file: a new severity, or off. */
export type RuleSettings = Record<string, Severity | 'off'>;

export interface RunChecksInput {
  delegation: Delegation;
  all: Delegation[];
  files: Map<string, FileStats>;
  options: CheckOptions;
  rules?: RuleSettings;
  checks?: readonly Check[];
}

/** Runs every enabled check on one delegation; a check that throws becomes a Limits note, not a crash. */
export function runChecks(input: RunChecksInput): { findings: Finding[]; errors: string[] } {
  const { delegation: d } = input;
  const ctx = { delegation: d, expectation: expectationFor(d), all: input.all, files: input.files, options: input.options };
  const findings: Finding[] = [];
  const errors: string[] = [];
  for (const check of input.checks ?? CHECKS) {
    const setting = input.rules?.[check.meta.id];
    if (setting === 'off') continue;
    let reports;
    try {
      reports = check.run(ctx);
    } catch (err) {
      errors.push(`check ${check.meta.id} failed on delegation ${d.key}: ${(err as Error)?.message ?? err}`);
      continue;
    }
    let kept = 0;
    const over = { count: 0, severity: null as Severity | null, first: null as Finding | null };
    for (const r of reports) {
      const symptom = r.symptom ?? check.meta.symptom;
      const finding: Finding = {
        id: check.meta.id,
        severity: setting ?? r.severity ?? check.meta.defaultSeverity,
        message: r.message,
        evidence: r.evidence,
        delegation: d.key,
        runs: r.runs ?? [],
        symptom,
        check: SYMPTOM_CHECKS[symptom],
      };
      if (kept < MAX_FINDINGS_PER_CHECK) {
        findings.push(finding);
        kept++;
        continue;
      }
      // Past the cap only counted: a damaged start naming millions of agents must not fill the report.
      over.count++;
      over.first ??= finding;
      if (!over.severity || SEVERITY_RANK[finding.severity] > SEVERITY_RANK[over.severity]) over.severity = finding.severity;
    }
    if (over.first) findings.push(foldedFindings(over.first, over.count, over.severity!));
  }
  return { findings, errors };
}

/**
 * Findings one check reports on one delegation, at most: past it, one finding says how many more
 * there were. No real delegation comes near it (the engine caps a delegation at 32 agents); a
 * damaged or hostile journal can (a start naming 2 million agents made a 740 MB text block).
 */
export const MAX_FINDINGS_PER_CHECK = 1000;

/** The one finding that stands for the `count` left out, worded from the first of them. */
function foldedFindings(first: Finding, count: number, severity: Severity): Finding {
  const more = count === 1 ? '1 more finding' : `${count.toLocaleString('en-US')} more findings`;
  return {
    ...first,
    severity,
    message: `${more} of this check on this delegation left out (at most ${MAX_FINDINGS_PER_CHECK.toLocaleString('en-US')} are listed); the first of them: ${first.message}`,
  };
}
