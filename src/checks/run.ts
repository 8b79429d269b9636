import type { FileStats } from '../journal/types.js';
import type { Delegation } from '../model/delegation.js';
import { expectationFor } from '../model/expected.js';
import { SYMPTOM_CHECKS } from './classification.js';
import { CHECKS } from './index.js';
import type { Check, CheckOptions, Finding, Severity } from './types.js';

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
    for (const r of reports) {
      const symptom = r.symptom ?? check.meta.symptom;
      findings.push({
        id: check.meta.id,
        severity: setting ?? r.severity ?? check.meta.defaultSeverity,
        message: r.message,
        evidence: r.evidence,
        delegation: d.key,
        runs: r.runs ?? [],
        symptom,
        check: SYMPTOM_CHECKS[symptom],
      });
    }
  }
  return { findings, errors };
}
