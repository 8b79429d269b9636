// The SARIF output is validated against the OASIS SARIF 2.1.0 schema shipped in test/
// (Schemata/sarif-schema-2.1.0.json of the OASIS SARIF TC, errata01), with Ajv's draft-04 mode.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { CHECK_META_BY_ID } from '../../src/checks/catalog.js';
import { CHECKS } from '../../src/checks/index.js';
import { ROOT, runBin } from '../helpers/cli.js';
import { HOSTILE_TEXT, RETRY_AND_FAILURE, SAMPLE, reportFor, runFormat, withoutVersion } from './ci-run.js';

const schema = JSON.parse(readFileSync(path.join(ROOT, 'test', 'sarif-schema-2.1.0.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** Rule texts come from the check registry (tested below); the snapshot keeps their ids and levels. */
function snapshotView(stdout: string): string {
  const log = JSON.parse(withoutVersion(stdout));
  const driver = log.runs[0].tool.driver;
  driver.rules = driver.rules.map((r: { id: string; defaultConfiguration: { level: string } }) => `${r.id} (${r.defaultConfiguration.level})`);
  return `${JSON.stringify(log, null, 2)}\n`;
}

function expectValid(log: unknown) {
  const ok = validate(log);
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
  expect(ok).toBe(true);
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region?: { startLine: number } } }[];
  relatedLocations?: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
  properties: { delegation: string };
}

describe('--format sarif', () => {
  it('the validator rejects a log that breaks the schema (so a pass means something)', () => {
    expect(validate({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'm' }, level: 'fatal' }] }] })).toBe(false);
    expect(validate({ version: '2.0.0', runs: [] })).toBe(false);
  });

  it('matches the reviewed log for the shared sample and validates', async () => {
    const r = await runFormat('sarif', SAMPLE);
    expect(r.code).toBe(0);
    await expect(snapshotView(r.stdout)).toMatchFileSnapshot('./__snapshots__/sample.sarif');
    expectValid(JSON.parse(r.stdout));
  });

  it('has one rule per check id and one result per finding at its journal file and line', async () => {
    const r = await runFormat('sarif', RETRY_AND_FAILURE);
    const log = JSON.parse(r.stdout);
    expectValid(log);
    const run = log.runs[0];
    const rules = run.tool.driver.rules as { id: string; shortDescription: { text: string }; help: { text: string; markdown: string }; defaultConfiguration: { level: string } }[];
    expect(rules.map((x) => x.id)).toEqual(CHECKS.map((c) => c.meta.id));
    for (const [i, c] of CHECKS.entries()) {
      expect(rules[i].shortDescription.text).toBe(c.meta.description);
      expect(rules[i].help.text).toContain(c.meta.docs.fix);
      expect(rules[i].defaultConfiguration.level).toBe({ error: 'error', warning: 'warning', info: 'note' }[c.meta.defaultSeverity]);
    }
    const findings = (await reportFor(RETRY_AND_FAILURE)).delegations.flatMap((d) => d.findings);
    const results = run.results as SarifResult[];
    expect(results).toHaveLength(findings.length);
    for (const [i, f] of findings.entries()) {
      expect(results[i].ruleId).toBe(f.id);
      expect(rules[results[i].ruleIndex].id).toBe(f.id);
      expect(results[i].level).toBe({ error: 'error', warning: 'warning', info: 'note' }[f.severity]);
      expect(results[i].locations[0].physicalLocation).toEqual({ artifactLocation: { uri: f.evidence[0].file, uriBaseId: '%SRCROOT%' }, region: { startLine: f.evidence[0].line } });
      expect(results[i].relatedLocations?.map((l) => [l.physicalLocation.artifactLocation.uri, l.physicalLocation.region.startLine])).toEqual(f.evidence.slice(1).map((e) => [e.file, e.line]));
      expect(results[i].properties.delegation).toBe(f.delegation);
    }
    await expect(snapshotView(r.stdout)).toMatchFileSnapshot('./__snapshots__/retry-and-failure.sarif');
  });

  it("keeps each rule's fullDescription within GitHub's 1,000 characters: a longer why is cut at a sentence, whole in help", async () => {
    const log = JSON.parse((await runFormat('sarif', RETRY_AND_FAILURE)).stdout);
    expectValid(log);
    const rules = log.runs[0].tool.driver.rules as { id: string; fullDescription: { text: string }; help: { text: string } }[];
    const long = CHECKS.filter((c) => c.meta.docs.why.length > 1000);
    expect(long.length).toBeGreaterThan(0);
    for (const rule of rules) {
      const why = CHECK_META_BY_ID.get(rule.id)!.docs.why;
      expect(rule.fullDescription.text.length, rule.id).toBeLessThanOrEqual(1000);
      expect(rule.help.text.startsWith(why), rule.id).toBe(true);
      if (why.length <= 1000) expect(rule.fullDescription.text).toBe(why);
      else {
        expect(rule.fullDescription.text).toMatch(/\. …$/);
        expect(why.startsWith(rule.fullDescription.text.slice(0, -2))).toBe(true);
      }
    }
  });

  it('stays valid with hostile text; brackets cannot form embedded links and controls are shown escaped', async () => {
    const r = await runFormat('sarif', HOSTILE_TEXT);
    const log = JSON.parse(r.stdout);
    expectValid(log);
    const text = (log.runs[0].results as SarifResult[])[0].message.text;
    expect(text).toContain('\\[link\\](https://example.com) \\]\\]>');
    expect(text).not.toMatch(/[\u0000-\u001f\u007f\u202e]|(^|[^\\])\[/);
  });

  it('doubles braces from the journal, so `{0}` is no placeholder (SARIF §3.11.5)', async () => {
    // The fixture's failure as a timeout (quoted in a finding), its error text written with braces.
    const input = readFileSync(path.join(ROOT, RETRY_AND_FAILURE), 'utf8').replace('tests failed: 3 of 40', 'timeout: upstream replied {\\"code\\":504} after {0}s {{x}}');
    expect(input).toContain('{0}');
    const r = await runBin(['--stdin', '--format', 'sarif', '--fail-on', 'none'], { input });
    const log = JSON.parse(r.stdout);
    expectValid(log);
    const texts = (log.runs[0].results as SarifResult[]).map((x) => x.message.text).filter((t) => t.includes('upstream'));
    expect(texts.length).toBeGreaterThan(0);
    for (const t of texts) {
      // (the backslash of the quoted JSON escaped as SARIF escapes it)
      expect(t).toContain('upstream replied {{\\\\"code\\\\":504}} after {{0}}s {{{{x}}}}');
      // Every brace is doubled: no single one is left to open or close a placeholder.
      expect(t.replace(/\{\{|\}\}/g, '')).not.toMatch(/[{}]/);
    }
  });

  it('a contract check gets its catalog rule: descriptions, help and its default level, whatever a finding says', async () => {
    const r = await runBin([
      '--sessions', path.join(ROOT, 'fixtures/contracts/journals/pipeline-aborted.jsonl'), '--all', '--fail-on', 'none',
      '--contract', path.join(ROOT, 'fixtures/contracts/plans/data-pipeline.yaml'), '--format', 'sarif',
    ]);
    const log = JSON.parse(r.stdout);
    expectValid(log);
    const rules = log.runs[0].tool.driver.rules as { id: string; fullDescription?: { text: string }; help?: { text: string }; defaultConfiguration?: { level: string } }[];
    const contractRules = rules.filter((x) => x.id.startsWith('contract-'));
    expect(contractRules.length).toBeGreaterThan(0);
    for (const rule of contractRules) {
      const meta = CHECK_META_BY_ID.get(rule.id)!;
      expect(rule.fullDescription?.text).toBe(meta.docs.why);
      expect(rule.help?.text).toContain(meta.docs.fix);
      expect(rule.defaultConfiguration?.level).toBe({ error: 'error', warning: 'warning', info: 'note' }[meta.defaultSeverity]);
    }
  });

  it('fingerprints each finding: distinct within a log, the same on the next run and beside other journals', async () => {
    const prints = async (sessions: string[]) => {
      const r = await runBin([...sessions.flatMap((x) => ['--sessions', x]), '--all', '--format', 'sarif', '--fail-on', 'none'], { cwd: ROOT });
      const results = JSON.parse(r.stdout).runs[0].results as (SarifResult & { partialFingerprints: Record<string, string> })[];
      return new Map(results.map((x) => [`${x.ruleId} ${x.message.text}`, x.partialFingerprints['traceDelegationFinding/v1']] as const));
    };
    const alone = await prints(['fixtures/formats/join-late.jsonl', 'fixtures/formats/nested-retry.jsonl', RETRY_AND_FAILURE]);
    expect(alone.size).toBeGreaterThan(3);
    for (const v of alone.values()) expect(v).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(alone.values()).size).toBe(alone.size);
    expect(await prints(['fixtures/formats/join-late.jsonl', 'fixtures/formats/nested-retry.jsonl', RETRY_AND_FAILURE])).toEqual(alone);
    const beside = await prints(['fixtures/formats/join-late.jsonl', 'fixtures/formats/nested-retry.jsonl', RETRY_AND_FAILURE, HOSTILE_TEXT]);
    for (const [k, v] of alone) expect(beside.get(k), k).toBe(v);
  });

  it('--output sarif=<file> writes the same log next to another format', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-sarif-'));
    try {
      const file = path.join(dir, 'out.sarif');
      const r = await runFormat('text', RETRY_AND_FAILURE, ['--output', `sarif=${file}`]);
      expect(r.stdout).toMatch(/^Delegation Trace: /);
      expect(readFileSync(file, 'utf8')).toBe((await runFormat('sarif', RETRY_AND_FAILURE)).stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
