// docs/ci.md's examples are the CLI's real output, not edited copies.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const DOC = readFileSync(path.join(ROOT, 'docs', 'ci.md'), 'utf8');
/** The fenced block (no language) that starts with `first`. */
const block = (first: string) => DOC.match(new RegExp('```\\n(' + first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '[\\s\\S]*?)```'))![1];

describe('docs/ci.md', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'ci-doc-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('the check diff sample is what `check -q fixtures/formats` prints after the edit it names', async () => {
    cpSync(path.join(FIXTURES, 'formats'), path.join(work, 'fixtures', 'formats'), { recursive: true });
    const expected = path.join(work, 'fixtures', 'formats', 'retry-and-failure.jsonl.expected.json');
    writeFileSync(expected, readFileSync(expected, 'utf8').replace('"error"', '"warning"'));
    const r = await runBin(['check', '-q', 'fixtures/formats'], { cwd: work });
    expect(r.code).toBe(1);
    expect(block('FAIL fixtures/formats/retry-and-failure.jsonl')).toBe(r.stdout);
  });

  it('the github annotation sample is what `--format github` prints for retry-and-failure.jsonl', async () => {
    const r = await runBin(['--sessions', 'fixtures/formats/retry-and-failure.jsonl', '--all', '--format', 'github']);
    expect(r.code).toBe(1);
    expect(block('::error file=fixtures/formats/retry-and-failure.jsonl')).toBe(r.stdout);
  });

  it('the Mermaid sample lines are in the markdown output for retry-and-failure.jsonl', async () => {
    const r = await runBin(['--sessions', 'fixtures/formats/retry-and-failure.jsonl', '--all', '--format', 'markdown']);
    expect(r.stdout).toContain(block('    section coder'));
  });

  it('an annotation names a reused id by its key, as the github section says', async () => {
    const id = 'd-reused';
    const input = journal(
      ev.started('2025-11-03T09:15:00Z', { delegation_id: id, parent_run_id: 'run-a', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.completed('2025-11-03T09:16:00Z', { delegation_id: id, pattern: 'fan_out', total_sub_runs: 0, succeeded: 0, failed: 0, aggregated_status: 'completed' }),
      ev.started('2025-11-04T09:15:00Z', { delegation_id: id, parent_run_id: 'run-b', pattern: 'fan_out', agent_ids: ['coder'] }),
    );
    const r = await runBin(['--stdin', '--all', '--format', 'github', '--fail-on', 'none'], { input });
    expect(r.stdout).toMatch(/\[delegation d-reused#2\]/);
    expect(DOC).toContain('[delegation <key>]');
  });
});

describe('docs/formats-visual.md', () => {
  const NESTED = ['--sessions', 'fixtures/formats/nested-retry.jsonl', '--all', '--fail-on', 'none'];

  it('chrome-trace: a finding is `finding <check id>`; one naming no run sits on the delegation thread (tid 1)', async () => {
    const r = await runBin([...NESTED, '--format', 'chrome-trace']);
    const findings = (JSON.parse(r.stdout) as { traceEvents: { name: string; cat?: string; tid: number; args: { runs: string[] } }[] }).traceEvents.filter((e) => e.cat === 'finding');
    expect(findings.map((f) => f.name)).toContain('finding missing-start');
    for (const f of findings) expect(f.name).toMatch(/^finding [a-z-]+$/);
    for (const f of findings.filter((x) => x.args.runs.length === 0)) expect(f.tid).toBe(1);
  });

  it('otlp: attempt spans carry their delegation id and pattern too', async () => {
    const r = await runBin([...NESTED, '--format', 'otlp']);
    const spans = (JSON.parse(r.stdout) as { resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string }[] }[] }[] }[] }).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans));
    const attempts = spans.filter((s) => / attempt \d+$/.test(s.name));
    expect(attempts.length).toBeGreaterThan(0);
    for (const s of attempts) expect(s.attributes.map((a) => a.key)).toEqual(expect.arrayContaining(['astra.delegation.id', 'astra.delegation.pattern']));
  });
});
