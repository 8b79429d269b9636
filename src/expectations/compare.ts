import type { Finding } from '../checks/types.js';
import { evidenceStrings, type Expectation } from './file.js';

/** Why a case fails; each kind reads as one line (plus the findings it names). */
export type Problem =
  | { kind: 'missing'; expectation: Expectation; found: Finding[] }
  | { kind: 'severity'; expectation: Expectation; found: Finding[]; other: Finding[] }
  | { kind: 'too-many'; expectation: Expectation; found: Finding[] }
  | { kind: 'unexpected'; finding: Finding };

const sameSet = (want: readonly string[], got: readonly string[]) => want.length === got.length && [...want].sort().join('\n') === [...got].sort().join('\n');

/** Whether a finding is the one an expectation names, whatever its severity. */
function sameTarget(e: Expectation, f: Finding, evidenceOf: (f: Finding) => string[]): boolean {
  return (
    f.id === e.id &&
    (e.delegation === undefined || f.delegation === e.delegation) &&
    (e.runs === undefined || sameSet(e.runs, f.runs)) &&
    (e.evidence === undefined || sameSet(e.evidence, evidenceOf(f)))
  );
}

/**
 * Compares a case's findings with its expectations. Each expectation counts the findings it
 * matches (id, and delegation, severity, runs and evidence when given): exactly `count` of them, or at least one
 * without `count`. In exact mode every finding must be matched by some expectation; `subset`
 * lets unmatched findings pass. A shortfall that a finding of another severity explains is
 * reported as a different severity instead of missing + unexpected.
 */
export function compareFindings(expected: Expectation[], findings: Finding[], subset = false, evidenceStringsOf: (f: Finding) => string[] = evidenceStrings): Problem[] {
  // Each finding's evidence strings once, not once per expectation.
  const cached = new Map<Finding, string[]>();
  const evidenceOf = (f: Finding) => cached.get(f) ?? cached.set(f, evidenceStringsOf(f)).get(f)!;
  const matches = (e: Expectation, f: Finding) => sameTarget(e, f, evidenceOf) && (e.severity === undefined || f.severity === e.severity);
  const problems: Problem[] = [];
  const accounted = new Set<Finding>();
  for (const e of expected) {
    const found = findings.filter((f) => matches(e, f));
    found.forEach((f) => accounted.add(f));
    const ok = e.count === undefined ? found.length >= 1 : found.length === e.count;
    if (ok) continue;
    if (found.length > (e.count ?? Infinity)) {
      problems.push({ kind: 'too-many', expectation: e, found });
      continue;
    }
    const other = e.severity === undefined ? [] : findings.filter((f) => sameTarget(e, f, evidenceOf) && f.severity !== e.severity);
    other.forEach((f) => accounted.add(f));
    problems.push(other.length ? { kind: 'severity', expectation: e, found, other } : { kind: 'missing', expectation: e, found });
  }
  if (!subset) for (const f of findings) if (!accounted.has(f)) problems.push({ kind: 'unexpected', finding: f });
  return problems;
}
