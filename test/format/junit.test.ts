import { describe, expect, it } from 'vitest';
import { formatJunit } from '../../src/format/junit.js';
import { parseXmlDocument, type XmlNode } from '../helpers/xml.js';
import { runBin } from '../helpers/cli.js';
import { HOSTILE_TEXT, RETRY_AND_FAILURE, SAMPLE, reportFor, runFormat } from './ci-run.js';

/** The root element of a strictly parsed XML document. */
const parseXml = (xml: string): XmlNode => parseXmlDocument(xml).children[0];

const all = (n: XmlNode, name: string): XmlNode[] => [...(n.name === name ? [n] : []), ...n.children.flatMap((c) => all(c, name))];
// What XML 1.0 cannot carry is dropped; everything else must round-trip.
const xmlSafe = (s: string) => s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');

describe('--format junit', () => {
  it('matches the reviewed XML for the shared sample: clean delegations are passing cases', async () => {
    const r = await runFormat('junit', SAMPLE);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/sample.junit.xml');
    const doc = parseXml(r.stdout);
    expect(doc.name).toBe('testsuites');
    const suites = all(doc, 'testsuite');
    expect(suites).toHaveLength(2);
    expect(all(doc, 'failure')).toHaveLength(0);
    // Info findings are below --fail-on error: listed in the suite's output, not failing.
    expect(all(suites[1], 'system-out')[0].text).toMatch(/^\[info\] sequential-stopped-early: /);
  });

  it('has one failing case per finding at or above --fail-on', async () => {
    const findings = (await reportFor(SAMPLE)).delegations.flatMap((d) => d.findings);
    const doc = parseXml((await runFormat('junit', SAMPLE, ['--fail-on', 'info'])).stdout);
    const failures = all(doc, 'failure');
    expect(failures.map((f) => f.attributes.type)).toEqual(findings.map((f) => f.id));
    expect(failures.map((f) => f.attributes.message)).toEqual(findings.map((f) => f.message));
    expect(doc.attributes).toMatchObject({ tests: String(1 + findings.length), failures: String(findings.length) });
    const clean = all(doc, 'testsuite')[0];
    expect(all(clean, 'testcase').map((t) => t.attributes.name)).toEqual(['no finding at or above info']);
  });

  it('gives a suite no negative time: a join journaled before the start (clock skew) has no duration', async () => {
    const report = await reportFor(RETRY_AND_FAILURE);
    const d = report.delegations[0];
    const suiteOf = (xml: string) => all(parseXml(xml), 'testsuite')[0].attributes;
    expect(suiteOf(formatJunit(report, { color: false, failOn: 'error' })).time).toMatch(/^\d+\.\d{3}$/);
    const skewed = { ...report, delegations: [{ ...d, completedMs: d.startedMs! - 11_000 }] };
    const attrs = suiteOf(formatJunit(skewed, { color: false, failOn: 'error' }));
    expect(attrs.time).toBeUndefined();
    expect(attrs.timestamp).toBe(new Date(Math.floor(d.startedMs!)).toISOString().slice(0, 19));
  });

  it('leaves the timestamp out for a start outside years 0000–9999 in UTC (no xs:dateTime form), keeping the duration', async () => {
    const report = await reportFor(RETRY_AND_FAILURE);
    const d = report.delegations[0];
    const suiteOf = (startedMs: number) => all(parseXml(formatJunit({ ...report, delegations: [{ ...d, startedMs, completedMs: startedMs + 1500 }] }, { color: false, failOn: 'error' })), 'testsuite')[0].attributes;
    const y10000 = Date.parse('9999-12-31T23:59:59-23:59'); // parses; in UTC it is year 10000
    expect(suiteOf(y10000)).toMatchObject({ time: '1.500' });
    expect(suiteOf(y10000).timestamp).toBeUndefined();
    expect(suiteOf(Date.parse('0000-01-01T00:00:00+01:00')).timestamp).toBeUndefined(); // year -1 in UTC
    expect(suiteOf(Date.parse('9999-12-31T23:59:59Z')).timestamp).toBe('9999-12-31T23:59:59');
  });

  it("says status incomplete for a delegation without a join (as markdown does), and ? for a join without a status", async () => {
    const report = await reportFor(RETRY_AND_FAILURE);
    const d = report.delegations[0];
    const statusOf = (block: typeof d) => {
      const props = all(parseXml(formatJunit({ ...report, delegations: [block] }, { color: false, failOn: 'error' })), 'property');
      return props.find((p) => p.attributes.name === 'status')!.attributes.value;
    };
    expect(statusOf(d)).toBe(d.status.aggregated);
    expect(statusOf({ ...d, completedTs: null, completedMs: null, status: { ...d.status, aggregated: null } })).toBe('incomplete');
    expect(statusOf({ ...d, status: { ...d.status, aggregated: null } })).toBe('?');
    expect(statusOf({ ...d, completedTs: '', status: { ...d.status, aggregated: null } })).toBe('?'); // a join whose line had no ts
  });

  it('gives a tree without delegations one passing case (Jenkins fails a build on reports without tests)', async () => {
    const report = await reportFor(RETRY_AND_FAILURE);
    const xml = formatJunit({ ...report, delegations: [] }, { color: false, failOn: 'error' });
    const doc = parseXml(xml);
    expect(doc.attributes).toMatchObject({ tests: '1', failures: '0' });
    const cases = all(doc, 'testcase');
    expect(cases.map((c) => c.attributes)).toEqual([{ classname: 'trace-delegation', name: 'no delegation found' }]);
    expect(all(doc, 'failure')).toEqual([]);
  });

  it('is well-formed with the failing run fixture', async () => {
    const r = await runFormat('junit', RETRY_AND_FAILURE);
    expect(r.code).toBe(1);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/retry-and-failure.junit.xml');
    const [testcase] = all(parseXml(r.stdout), 'testcase');
    expect(testcase.attributes).toMatchObject({ classname: 'trace-delegation.f0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b', file: 'fixtures/formats/retry-and-failure.jsonl', line: '5' });
  });

  it('names every case of a suite differently: GitLab keeps only the first of cases with one name', async () => {
    // Two runs whose long ids differ only past the 160 characters a case name keeps: both never complete.
    const ev = (type: string, s: number, metadata: object) => JSON.stringify({ type, ts: `2025-11-04T10:00:0${s}.000000000+00:00`, session_id: 's-1', metadata });
    const d = { delegation_id: 'd-1', parent_run_id: 'p-1' };
    const run = (n: number) => `run-${'x'.repeat(200)}-${n}`;
    const input = [
      ev('delegation_started', 1, { ...d, agent_count: 2, agent_ids: ['a', 'b'], pattern: 'fan_out' }),
      ev('delegation_sub_run_started', 2, { ...d, agent_id: 'a', depth: 1, retry_of: null, status: 'running', sub_run_id: run(1) }),
      ev('delegation_sub_run_started', 3, { ...d, agent_id: 'b', depth: 1, retry_of: null, status: 'running', sub_run_id: run(2) }),
      ev('delegation_completed', 5, { delegation_id: 'd-1', aggregated_status: 'completed', total_sub_runs: 2, succeeded: 2, failed: 0 }),
    ].join('\n');
    const r = await runBin(['--stdin', '--format', 'junit', '--fail-on', 'info'], { input });
    const cases = all(parseXml(r.stdout), 'testcase');
    expect(all(parseXml(r.stdout), 'failure').filter((f) => f.attributes.type === 'missing-completion')).toHaveLength(2);
    const names = cases.map((c) => `${c.attributes.classname} ${c.attributes.name}`);
    expect(new Set(names).size).toBe(names.length);
    for (const c of cases) expect(c.attributes.name.length).toBeLessThanOrEqual(170);
  });

  it('escapes hostile text and drops characters XML 1.0 forbids, keeping the rest intact', async () => {
    const [finding] = (await reportFor(HOSTILE_TEXT)).delegations[0].findings;
    const r = await runFormat('junit', HOSTILE_TEXT, ['--fail-on', 'info']);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
    const doc = parseXml(r.stdout);
    const [failure] = all(doc, 'failure');
    expect(failure.attributes.message).toBe(xmlSafe(finding.message));
    expect(failure.text.startsWith(xmlSafe(`[info] timeout-as-failure: ${finding.message}\n`))).toBe(true);
    expect(all(doc, 'script')).toEqual([]);
  });
});
