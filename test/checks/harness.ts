/**
 * A RuleTester-style harness for checks (after ESLint's RuleTester): each case names a fixture
 * journal under fixtures/checks/, runs the whole analyzer on it with "now" pinned, and asserts
 * exactly the findings of the check under test — how many, their severity, message and evidence.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { CHECKS_BY_ID } from '../../src/checks/index.js';
import type { CheckOptions, Finding, Severity } from '../../src/checks/types.js';
import type { TraceReport } from '../../src/report/types.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHECK_FIXTURES = path.join(ROOT, 'fixtures', 'checks');
/** The pinned "now": every fixture is older, except the "still running" ones written minutes before it. */
export const NOW_MS = Date.parse('2030-01-01T00:00:00Z');

export interface ExpectedFinding {
  severity?: Severity;
  /** Text (or several texts) the message must contain: concrete ids and values. */
  messageIncludes?: string | string[];
  /** Exactly the evidence, in order, as `file:line`; `file` may be a base name or a path suffix. */
  evidenceLines?: string[];
  /** The delegation key the finding belongs to. */
  delegation?: string;
  /** The failure-classification row (seed 003) the finding is filed under. */
  symptom?: string;
}

export interface InvalidCase {
  fixture: string;
  findings: ExpectedFinding[];
  options?: Partial<CheckOptions>;
}

export type ValidCase = string | { fixture: string; options?: Partial<CheckOptions> };

/** `trigger-x.jsonl` resolves in the check's own folder; `other-check/trap-y.jsonl` in fixtures/checks. */
export function fixturePath(checkId: string, fixture: string): string {
  return path.relative(ROOT, fixture.includes('/') ? path.join(CHECK_FIXTURES, fixture) : path.join(CHECK_FIXTURES, checkId, fixture));
}

/** The full report for one fixture, as `trace-delegation --all` would build it. */
export async function analyzeFixture(checkId: string, fixture: string, options: Partial<CheckOptions> = {}): Promise<TraceReport> {
  const { report } = await analyze({ sessions: [fixturePath(checkId, fixture)], all: true, cwd: ROOT, env: {}, checkOptions: { nowMs: NOW_MS, ...options } });
  return report;
}

export async function findingsOf(checkId: string, fixture: string, options: Partial<CheckOptions> = {}): Promise<Finding[]> {
  const report = await analyzeFixture(checkId, fixture, options);
  return report.delegations.flatMap((d) => d.findings).filter((f) => f.id === checkId);
}

const evidenceText = (f: Finding) => f.evidence.map((e) => `${e.file}:${e.line}`);
const sameLocation = (actual: string, wanted: string) => actual === wanted || actual.endsWith(`/${wanted}`);

function assertFinding(actual: Finding, wanted: ExpectedFinding, label: string): void {
  if (wanted.severity) expect(actual.severity, `${label}: severity`).toBe(wanted.severity);
  if (wanted.delegation) expect(actual.delegation, `${label}: delegation`).toBe(wanted.delegation);
  if (wanted.symptom) expect(actual.symptom, `${label}: symptom`).toBe(wanted.symptom);
  const texts = wanted.messageIncludes === undefined ? [] : [wanted.messageIncludes].flat();
  for (const t of texts) expect(actual.message, `${label}: message`).toContain(t);
  if (wanted.evidenceLines) {
    const got = evidenceText(actual);
    const ok = got.length === wanted.evidenceLines.length && got.every((g, i) => sameLocation(g, wanted.evidenceLines![i]));
    expect(ok, `${label}: evidence ${JSON.stringify(got)} should be ${JSON.stringify(wanted.evidenceLines)}`).toBe(true);
  }
}

/**
 * Declares one vitest suite for a check: every invalid fixture must produce exactly the listed
 * findings of that check (in report order), every valid fixture none of them.
 */
export function testCheck(checkId: string, cases: { invalid: InvalidCase[]; valid: ValidCase[] }): void {
  describe(checkId, () => {
    it('is a registered check', () => {
      expect(CHECKS_BY_ID.has(checkId)).toBe(true);
    });
    for (const c of cases.invalid) {
      it(`reports ${c.fixture}`, async () => {
        const found = await findingsOf(checkId, c.fixture, c.options);
        expect(found.map((f) => `[${f.severity}] ${f.message}`), `${checkId} findings on ${c.fixture}`).toHaveLength(c.findings.length);
        c.findings.forEach((wanted, i) => assertFinding(found[i], wanted, `${c.fixture} finding ${i + 1}`));
      });
    }
    for (const v of cases.valid) {
      const { fixture, options } = typeof v === 'string' ? { fixture: v, options: undefined } : v;
      it(`does not report ${fixture}${options ? ` with ${JSON.stringify(options)}` : ''}`, async () => {
        const found = await findingsOf(checkId, fixture, options);
        expect(found.map((f) => `[${f.severity}] ${f.message}`)).toEqual([]);
      });
    }
  });
}
