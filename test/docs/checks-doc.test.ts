import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_CHECK_METAS, CHECK_GROUPS } from '../../src/checks/catalog.js';
import { renderChecksDoc, isJournalExample } from '../../src/checks/docs.js';
import { CHECKS } from '../../src/checks/index.js';
import { CONTRACT_CHECKS } from '../../src/contract/checks/index.js';
import { ROOT, runMain } from '../helpers/cli.js';

const DOC = path.join(ROOT, 'docs', 'checks.md');

function runNode(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT }, (err, _stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }));
  });
}
/** The checks whose examples must be complete journals (the join-contract and SAFE checks). */
const RUNNABLE_REQUIRED = ['late-result', 'failed-in-aggregate', 'foreign-parent', 'silent-failure', 'timeout-as-failure', 'retry-after-unknown', 'fanout-budget'];

describe('docs/checks.md', () => {
  it('is up to date with the registry metadata (run npm run docs to regenerate)', () => {
    const current = readFileSync(DOC, 'utf8');
    expect(current === renderChecksDoc(CHECK_GROUPS), 'docs/checks.md is out of date: run npm run docs').toBe(true);
  });

  it('has exactly one section per check of every registry', () => {
    const doc = readFileSync(DOC, 'utf8');
    const ids = [...CHECKS.map((c) => c.meta.id), ...CONTRACT_CHECKS.map((c) => c.meta.id)];
    expect(new Set(ALL_CHECK_METAS.map((m) => m.id))).toEqual(new Set(ids));
    for (const id of ids) expect(doc.split('\n').filter((l) => l === `### \`${id}\``), id).toHaveLength(1);
  });

  it('documents every check completely', () => {
    for (const m of ALL_CHECK_METAS) {
      for (const field of ['why', 'example', 'reportLine', 'fix'] as const) expect(m.docs[field].trim(), `${m.id} docs.${field}`).not.toBe('');
      // A check may report below or above its default (e.g. missing-completion), never under another id.
      expect(m.docs.reportLine, `${m.id} report line`).toMatch(new RegExp(`^- \\[(error|warning|info)\\] ${m.id}: `));
    }
  });

  it('is what the generator script writes (node scripts/gen-checks-doc.mjs --check, from the build)', async () => {
    const { code, stderr } = await runNode([path.join(ROOT, 'scripts', 'gen-checks-doc.mjs'), '--check']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('re-renders journal text safely: an example cannot close its code fence', () => {
    const meta = { ...CHECKS[0].meta, id: 'x-test', docs: { ...CHECKS[0].meta.docs, example: 'a ``` b', reportLine: '- [error] x-test: ```' } };
    const text = renderChecksDoc([{ title: 'T', source: 's', checks: [meta] }]);
    expect(text).toContain('````\na ``` b\n````');
  });
});

describe('report lines in the docs are what the tool prints for their examples', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'checks-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the join-contract and SAFE examples are complete journals', () => {
    for (const id of RUNNABLE_REQUIRED) expect(isJournalExample(CHECKS.find((c) => c.meta.id === id)!.meta.docs.example), id).toBe(true);
  });

  for (const check of CHECKS.filter((c) => isJournalExample(c.meta.docs.example))) {
    const m = check.meta;
    it(`${m.id}: ${m.docs.exampleFlags?.join(' ') ?? 'default options'}`, async () => {
      const caseDir = mkdtempSync(path.join(dir, `${m.id}-`));
      writeFileSync(path.join(caseDir, 'example.jsonl'), `${m.docs.example}\n`);
      const { stdout, stderr } = await runMain(['--sessions', 'example.jsonl', '--all', ...(m.docs.exampleFlags ?? [])], { cwd: caseDir });
      expect(stderr).toBe('');
      const findingLines = stdout.split('\n').filter((l) => l.startsWith('- ['));
      expect(findingLines, `${m.id}: its example should print its docs.reportLine`).toContain(m.docs.reportLine);
    });
  }
});
