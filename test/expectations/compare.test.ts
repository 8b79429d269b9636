import { describe, expect, it } from 'vitest';
import type { Finding, Severity } from '../../src/checks/types.js';
import { compareFindings } from '../../src/expectations/compare.js';
import { expectationsFor, parseExpectations, serializeExpectations } from '../../src/expectations/file.js';

function finding(id: string, delegation: string, severity: Severity, line = 1): Finding {
  return { id, delegation, severity, message: `${id} on ${delegation}`, evidence: [{ file: 'j.jsonl', line }], runs: [], symptom: 'Retry loop', check: 'retry gate' };
}

const kinds = (p: ReturnType<typeof compareFindings>) => p.map((x) => x.kind);

describe('compareFindings (exact mode)', () => {
  const findings = [finding('missing-start', 'd-1', 'error'), finding('orphan-event', 'd-2', 'warning'), finding('orphan-event', 'd-2', 'warning', 2)];

  it('passes when every finding is expected and every expectation is met', () => {
    expect(compareFindings([{ id: 'missing-start' }, { id: 'orphan-event', delegation: 'd-2', count: 2 }], findings)).toEqual([]);
  });

  it('an expectation without count needs at least one finding', () => {
    expect(compareFindings([{ id: 'missing-start' }, { id: 'orphan-event' }], findings)).toEqual([]);
    expect(kinds(compareFindings([{ id: 'missing-start' }, { id: 'orphan-event' }, { id: 'late-result' }], findings))).toEqual(['missing']);
  });

  it('a count is exact: fewer is missing, more is too many', () => {
    expect(kinds(compareFindings([{ id: 'missing-start' }, { id: 'orphan-event', count: 3 }], findings))).toEqual(['missing']);
    expect(kinds(compareFindings([{ id: 'missing-start' }, { id: 'orphan-event', count: 1 }], findings))).toEqual(['too-many']);
    expect(kinds(compareFindings([{ id: 'missing-start', count: 0 }, { id: 'orphan-event' }], findings))).toEqual(['too-many']);
  });

  it('a finding no expectation mentions is unexpected', () => {
    const problems = compareFindings([{ id: 'missing-start' }], findings);
    expect(kinds(problems)).toEqual(['unexpected', 'unexpected']);
  });

  it('delegation narrows the match', () => {
    expect(kinds(compareFindings([{ id: 'missing-start', delegation: 'd-9' }, { id: 'orphan-event' }], findings))).toEqual(['missing', 'unexpected']);
  });

  it('reports a severity difference once, not as missing plus unexpected', () => {
    const problems = compareFindings([{ id: 'missing-start', severity: 'warning' }, { id: 'orphan-event' }], findings);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ kind: 'severity', expectation: { severity: 'warning' }, other: [{ severity: 'error' }] });
  });

  it('an empty expectations list means no finding at all', () => {
    expect(compareFindings([], [])).toEqual([]);
    expect(kinds(compareFindings([], findings.slice(0, 1)))).toEqual(['unexpected']);
  });
});

describe('compareFindings (subset mode)', () => {
  const findings = [finding('missing-start', 'd-1', 'error'), finding('orphan-event', 'd-2', 'warning')];

  it('lets findings no expectation mentions pass', () => {
    expect(compareFindings([{ id: 'missing-start' }], findings, true)).toEqual([]);
  });

  it('still fails missing expectations and exact counts', () => {
    expect(kinds(compareFindings([{ id: 'late-result' }], findings, true))).toEqual(['missing']);
    expect(kinds(compareFindings([{ id: 'orphan-event', count: 0 }], findings, true))).toEqual(['too-many']);
  });
});

describe('expectations files', () => {
  it('round-trips what --update writes, one entry per delegation, id and severity', () => {
    const findings = [finding('orphan-event', 'd-2', 'warning'), finding('missing-start', 'd-1', 'error'), finding('orphan-event', 'd-2', 'warning', 2), finding('orphan-event', 'd-2', 'info')];
    const written = serializeExpectations(expectationsFor(findings));
    expect(written).toBe(
      [
        '[',
        '  { "id": "orphan-event", "delegation": "d-2", "severity": "warning", "count": 2 },',
        '  { "id": "orphan-event", "delegation": "d-2", "severity": "info", "count": 1 },',
        '  { "id": "missing-start", "delegation": "d-1", "severity": "error", "count": 1 }',
        ']',
        '',
      ].join('\n'),
    );
    expect(compareFindings(parseExpectations(written, 'x'), findings)).toEqual([]);
    expect(serializeExpectations([])).toBe('[]\n');
  });

  it('reads back a pinned evidence file name holding a newline (check --update --pin evidence wrote it)', () => {
    const parsed = parseExpectations(JSON.stringify([{ id: 'late-result', evidence: ['we ird\nname,:x.jsonl:4'] }]), 'x');
    expect(parsed).toEqual([{ id: 'late-result', evidence: ['we ird\nname,:x.jsonl:4'] }]);
  });

  it('accepts a note for humans and rejects anything else with one sentence', () => {
    expect(parseExpectations('[{ "id": "late-result", "note": "why" }]', 'x')).toEqual([{ id: 'late-result' }]);
    expect(() => parseExpectations('{ "id": "late-result" }', 'x.expected.json')).toThrow('expectations file x.expected.json must be a JSON array');
    expect(() => parseExpectations('[{ "id": "late-result", "severty": "error" }]', 'x')).toThrow('unknown key "severty"');
    expect(() => parseExpectations('[{ "delegation": "d" }]', 'x')).toThrow('"id" must be a non-empty string');
    expect(() => parseExpectations('[{ "id": "late-result", "severity": "fatal" }]', 'x')).toThrow('"severity" must be one of error, warning, info');
    expect(() => parseExpectations('[{ "id": "late-result", "count": 1.5 }]', 'x')).toThrow('"count" must be a whole number');
    expect(() => parseExpectations('[{ "id": "late-result" }', 'x')).toThrow('is not valid JSON');
    // A misspelled check id would match nothing, and with "count": 0 always pass.
    expect(() => parseExpectations('[{ "id": "late-results", "count": 0 }]', 'x')).toThrow('"id" "late-results" is not a check id (see `trace-delegation rules`)');
    expect(parseExpectations('[{ "id": "contract-timeout" }]', 'x')).toEqual([{ id: 'contract-timeout' }]);
    // A byte order mark (a Windows editor) is not content; a syntax error is one line, without V8's copy of the text.
    expect(parseExpectations('\uFEFF[{ "id": "late-result" }]', 'x')).toEqual([{ id: 'late-result' }]);
    expect(() => parseExpectations('[\n  { "id": x }\r\n]', 'x')).toThrow(/^expectations file x is not valid JSON: Unexpected token 'x' \(line 2, column 11\)$/);
  });
});
