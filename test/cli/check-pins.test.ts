// `check` expectations that pin a finding's sub-runs and evidence, --update --pin, and the
// update paths that must not lose what a person wrote (an unreadable file, the flags used).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runMain } from '../helpers/cli.js';

const CASE = 'retry-and-failure.jsonl';
const DELEGATION = 'f0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b';
const WRITER = '3a1e7000-0000-4000-8000-000000000001';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-pins-'));
  for (const f of [CASE, `${CASE}.expected.json`]) cpSync(path.join(FIXTURES, 'formats', f), path.join(dir, f));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const expectedFile = () => path.join(dir, `${CASE}.expected.json`);
const writeExpected = (entries: object[]) => writeFileSync(expectedFile(), JSON.stringify(entries));
const check = (args: string[], env: NodeJS.ProcessEnv = {}) => runMain(['check', ...args], { cwd: dir, env: { CI: '', ...env } });
/** Shifts every line of the journal down by one (an ordinary line inserted after the first). */
function insertLine() {
  const lines = readFileSync(path.join(dir, CASE), 'utf8').split('\n');
  lines.splice(1, 0, '{"type":"turn","ts":"2025-11-04T10:00:00.500000000+00:00","turn":1}');
  writeFileSync(path.join(dir, CASE), lines.join('\n'));
}

describe('pinned runs and evidence', () => {
  it('passes when the finding names those runs and lines, relative to the case', async () => {
    writeExpected([{ id: 'missing-completion', delegation: DELEGATION, runs: [WRITER], evidence: [`${CASE}:11`, `${CASE}:5`], count: 1 }]);
    const r = await check([dir]);
    expect(r.stdout).toBe(`PASS ${CASE}\n1 passed, 0 failed\n`);
    expect(r.code).toBe(0);
  });

  it('fails when the finding moves to other lines, and names the pin in the diff', async () => {
    writeExpected([{ id: 'missing-completion', evidence: [`${CASE}:5`, `${CASE}:11`], count: 1 }]);
    insertLine();
    const r = await check([dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`  missing: missing-completion in any delegation with evidence [${CASE}:5, ${CASE}:11]: expected 1, found 0\n`);
    expect(r.stdout).toContain(`(${CASE}:6, ${CASE}:12)`);
  });

  it('fails when the finding is about another sub-run, while an unpinned expectation would pass', async () => {
    writeExpected([{ id: 'missing-completion', runs: ['3a1e7000-0000-4000-8000-000000000002'] }]);
    const r = await check([dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('  missing: missing-completion in any delegation with runs [3a1e7000-0000-4000-8000-000000000002]: expected at least 1, found 0\n');
    writeExpected([{ id: 'missing-completion' }]);
    expect((await check([dir])).code).toBe(0);
  });

  it('refuses a pin that is not a list of the right strings', async () => {
    for (const [entry, msg] of [
      [{ id: 'missing-completion', evidence: [`${CASE}`] }, '"evidence" must be an array of "file:line" strings'],
      [{ id: 'missing-completion', evidence: `${CASE}:5` }, '"evidence" must be an array'],
      [{ id: 'missing-completion', runs: [''] }, '"runs" must be an array of sub-run ids'],
    ] as const) {
      writeExpected([entry]);
      const r = await check([dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(msg);
    }
  });

  it('--update --pin writes runs and evidence; a file that pins them keeps pinning them', async () => {
    writeExpected([{ id: 'late-result' }]);
    let r = await check(['--update', '--pin', 'runs,evidence', dir]);
    expect(r.code).toBe(0);
    const pinned = [{ id: 'missing-completion', delegation: DELEGATION, severity: 'error', count: 1, runs: [WRITER], evidence: [`${CASE}:5`, `${CASE}:11`] }];
    expect(JSON.parse(readFileSync(expectedFile(), 'utf8'))).toEqual(pinned);
    insertLine();
    r = await check(['--update', dir]);
    expect(r.stdout).toContain(`UPDATED ${CASE}.expected.json`);
    expect(JSON.parse(readFileSync(expectedFile(), 'utf8'))).toEqual([{ ...pinned[0], evidence: [`${CASE}:6`, `${CASE}:12`] }]);
    expect((await check([dir])).code).toBe(0);
  });

  it('--update --pin rewrites a passing case that does not pin what is asked yet', async () => {
    const r = await check(['--update', '--pin', 'runs', dir]);
    expect(r.stdout).toContain(`UPDATED ${CASE}.expected.json (1 expectation)`);
    expect(JSON.parse(readFileSync(expectedFile(), 'utf8'))).toEqual([{ id: 'missing-completion', delegation: DELEGATION, severity: 'error', count: 1, runs: [WRITER] }]);
    const again = await check(['--update', '--pin', 'runs', dir]);
    expect(again.stdout).toBe(`PASS ${CASE}\n1 passed, 0 failed\n`);
  });

  it('pins a session-folder case relative to the folder', async () => {
    const journal = path.join(dir, 'session', 'v1', 'users', 'u', 'sessions', '7b1e4c2a-9d35-4f80-a6c1-3e5d7f9b0a24.jsonl');
    cpSync(path.join(dir, CASE), journal);
    writeFileSync(path.join(dir, 'session.expected.json'), JSON.stringify([{ id: 'missing-completion', evidence: ['v1/users/u/sessions/7b1e4c2a-9d35-4f80-a6c1-3e5d7f9b0a24.jsonl:5', 'v1/users/u/sessions/7b1e4c2a-9d35-4f80-a6c1-3e5d7f9b0a24.jsonl:11'] }]));
    const r = await check([path.join(dir, 'session')]);
    expect(r.stdout).toBe('PASS session\n1 passed, 0 failed\n');
  });

  it('--pin only with --update, and only runs or evidence', async () => {
    let r = await check(['--pin', 'runs', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('trace-delegation: --pin only applies to --update (it says what the written expectations pin)\n');
    r = await check(['--update', '--pin', 'lines', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('trace-delegation: --pin takes runs, evidence or runs,evidence, not "lines"\n');
  });
});

describe('--update does not lose what a person wrote', () => {
  it('refuses to overwrite an expectations file it cannot read, and leaves it as it was', async () => {
    for (const text of ['[{"id":"timeout-as-failure","severty":"info"},{"id":"late-result","count":0,"note":"kept"}]', '<<<<<<< HEAD\n[]\n=======\n[{"id":"late-result"}]\n>>>>>>> branch\n']) {
      writeFileSync(expectedFile(), text);
      const r = await check(['--update', dir]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^trace-delegation: expectations file retry-and-failure\.jsonl\.expected\.json.*; --update does not overwrite a file it cannot read: fix it, or delete it to record the current findings\n$/);
      expect(readFileSync(expectedFile(), 'utf8')).toBe(text);
    }
  });

  it('the "accept" hint repeats the flags that change findings, quoted for the shell', async () => {
    const spaced = path.join(dir, "bob's cases");
    for (const f of [CASE, `${CASE}.expected.json`]) cpSync(path.join(dir, f), path.join(spaced, f));
    const r = await check(['--rule', 'missing-completion=warning', '--now', '2030-01-01T00:00:00Z', '--max-fanout', '4', spaced]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`Accept the current findings with: trace-delegation check --update --rule missing-completion=warning --max-fanout 4 --now 2030-01-01T00:00:00Z '${dir}/bob'\\''s cases'\n`);
  });

  it('the hint puts -- before a path that starts with "-"', async () => {
    const odd = path.join(dir, 'odd');
    for (const f of [CASE, `${CASE}.expected.json`]) cpSync(path.join(dir, f), path.join(odd, `-${f}`));
    writeFileSync(path.join(odd, `-${CASE}.expected.json`), JSON.stringify([{ id: 'late-result' }]));
    const r = await runMain(['check', '--', `-${CASE}`], { cwd: odd, env: { CI: '' } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`Accept the current findings with: trace-delegation check --update -- -${CASE}\n`);
    const accepted = await runMain(['check', '--update', '--', `-${CASE}`], { cwd: odd, env: { CI: '' } });
    expect(accepted.code).toBe(0);
  });

  it('--update fills an empty expectations file (it holds nothing anyone wrote)', async () => {
    writeFileSync(expectedFile(), '  \n');
    const r = await check(['--update', dir]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(expectedFile(), 'utf8'))).toEqual([{ id: 'missing-completion', delegation: DELEGATION, severity: 'error', count: 1 }]);
  });

  it('says when a missing finding belongs to a check that is turned off', async () => {
    writeExpected([{ id: 'missing-completion' }]);
    let r = await check(['--rule', 'missing-completion=off', dir]);
    expect(r.stdout).toContain('  missing: missing-completion in any delegation: expected at least 1, found 0 (the check is off: --rule missing-completion=off)\n');
    writeFileSync(path.join(dir, 'trace-delegation.config.json'), JSON.stringify({ rules: { 'missing-completion': 'off' } }));
    r = await check([CASE]);
    expect(r.stdout).toContain('(the check is off: "missing-completion": "off" in trace-delegation.config.json)\n');
  });

  it('names an expectations file written in YAML instead of saying there is none', async () => {
    rmSync(expectedFile());
    writeFileSync(path.join(dir, `${CASE}.expected.yaml`), '- id: missing-completion\n');
    let r = await check([path.join(dir, CASE)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(${CASE}.expected.yaml is not read: expectations are JSON, in X.expected.json)`);
    r = await check([dir]);
    expect(r.stderr).toContain(`(${CASE}.expected.yaml is not read: expectations are JSON, in X.expected.json)`);
  });
});
