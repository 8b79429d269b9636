/**
 * The report command, run as the real binary (`npx tsc -p .` first) on the demo tree. One
 * declarative table of cases (args → exit code, stdout, stderr), then a few tests that compare
 * runs with each other or with the journal files themselves.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { FIXED_NOW, ROOT, runBin, type CliResult } from '../helpers/cli.js';
import { allDemoLines, DEMO, demoJournalFiles, demoStarts, meta } from '../helpers/demo-tree.js';

const LOCAL = 'fixtures/sessions/v1/users/b64-bG9jYWw/sessions';
const PAUSED_FILE = `${LOCAL}/d5c2a81f-6e9b-4073-a2f8-4b1d7e0c9a35.jsonl`; // delegation 9d41a6c8…, one block
const FORK_FILE = `${LOCAL}/1b9e6f30-4c2a-4e87-b1d5-f3a0c7e9d264.jsonl`; // fork 5a0c7e3d… and sequential e62f4b19…
const ID = {
  genA: '4d9b1e27-6a3c-4f85-b0e2-8c7d5a1f3e90', // Gen A fan_out, delegation.jsonl + legacy session file
  genBRetry: '7c2d9e14-5b8a-4f36-a0c7-1e9f3d2b6a48',
  outer: 'b3e81f6a-2d4c-4a97-8e05-6c1f9a3d7b22',
  inner: 'b3e8c027-4f1d-4e63-9b58-0a7d2e6c1f94',
  fork: '5a0c7e3d-8f21-4b96-a4d3-7e2b9c1f0d65',
  sequential: 'e62f4b19-0c7a-4d83-b5e1-9a4c6d2f8e07',
  paused: '9d41a6c8-7e2f-4053-8b9a-3c5e1f7d2a86',
  wrongAggregate: '2e6b8f47-9a1c-4d05-b3e6-5f0a7c9d1e28',
};
const FORK_PARENT_RUN = 'f0e02426-dd7c-40e9-a640-06ac6a92c45d'; // started both the fork and the sequential delegation
const LEGACY_SESSION = '3f6c1d2e-8b4a-4e71-9c05-a2d7f4b1e698';

const ESC = '\u001b[';
const blockIds = (stdout: string) => [...stdout.matchAll(/^Delegation Trace: (.+)$/gm)].map((m) => m[1]);
const noStack = (r: CliResult) => expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);

type Expect<T> = T | ((value: T) => void);
interface Case {
  name: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  code: number;
  stdout?: Expect<string> | RegExp;
  stderr?: Expect<string> | RegExp;
}

function check(value: string, want: Case['stdout']) {
  if (want === undefined) return;
  if (typeof want === 'string') expect(value).toBe(want);
  else if (want instanceof RegExp) expect(value).toMatch(want);
  else want(value);
}

const emptyHome = mkdtempSync(path.join(tmpdir(), 'td-home-'));
/** A tree whose only journal cannot be read (not gzip data). */
const unreadableTree = mkdtempSync(path.join(tmpdir(), 'td-unreadable-'));
writeFileSync(path.join(unreadableTree, 's.jsonl.gz'), 'not gzip\n');

/** Several tests read the same whole-tree runs; start each subprocess once. */
const memo = new Map<string, Promise<CliResult>>();
const runOnce = (args: string[]) => {
  const key = args.join('\0');
  if (!memo.has(key)) memo.set(key, runBin(args));
  return memo.get(key)!;
};
const demoJson = async () => JSON.parse((await runOnce(['--demo', '--all', '--format', 'json'])).stdout);
afterAll(() => {
  rmSync(emptyHome, { recursive: true, force: true });
  rmSync(unreadableTree, { recursive: true, force: true });
});

const CASES: Case[] = [
  {
    name: 'a full delegation id selects one block',
    args: ['--demo', ID.genBRetry],
    code: 0,
    stdout: (s) => expect(blockIds(s)).toEqual([ID.genBRetry]),
    stderr: '',
  },
  {
    name: 'a unique prefix selects the same block',
    args: ['--demo', '7c2d9'],
    code: 0,
    stdout: (s) => expect(blockIds(s)).toEqual([ID.genBRetry]),
  },
  {
    name: 'a parent run id selects every delegation it started, in start order',
    args: ['--demo', FORK_PARENT_RUN],
    code: 0,
    stdout: (s) => expect(blockIds(s)).toEqual([ID.fork, ID.sequential]),
  },
  {
    name: 'a session id selects the delegations with events in that session (Gen A: started in delegation.jsonl)',
    args: ['--demo', LEGACY_SESSION],
    code: 0,
    stdout: (s) => {
      expect(blockIds(s)).toEqual([ID.genA]);
      expect(s).toContain('- 2025-06-12T14:02:31.204742+00:00 started: agents=coder,tester');
    },
  },
  {
    name: 'the outer delegation brings its nested delegation as its own block, Parent run = the outer sub-run',
    args: ['--demo', ID.outer],
    code: 0,
    stdout: (s) => {
      expect(blockIds(s)).toEqual([ID.outer, ID.inner]);
      const innerBlock = s.slice(s.indexOf(`Delegation Trace: ${ID.inner}`));
      const planner = /sub-run started: (\S+) agent=planner/.exec(s)![1];
      expect(innerBlock).toContain(`Parent run: ${planner}\n`);
      expect(innerBlock).toMatch(/sub-run started: \S+ agent=coder depth=2 retry_of=-/);
    },
  },
  {
    name: 'no target means the most recent delegation_started (errors: exit 1; not a TTY: no colour, NO_COLOR unset)',
    args: ['--demo'],
    env: { NO_COLOR: undefined },
    code: 1,
    stdout: (s) => {
      const newest = [...demoStarts()].sort((a, b) => a.ts.localeCompare(b.ts)).pop()!;
      expect(blockIds(s)).toEqual([newest.id]);
      expect(s).toMatch(/^- \[error\] /m);
      expect(s).not.toContain(ESC);
    },
  },
  {
    name: 'an ambiguous prefix lists the candidates on stderr and exits 2',
    args: ['--demo', 'b3e8'],
    code: 2,
    stdout: '',
    stderr: `trace-delegation: target b3e8 is ambiguous: it is a prefix of 2 delegation ids\n  ${ID.outer}\n  ${ID.inner}\n`,
  },
  {
    name: 'an unknown target says what was searched and exits 2',
    args: ['--demo', 'no-such-thing'],
    code: 2,
    stdout: '',
    stderr: (s) => {
      expect(s).toMatch(/^trace-delegation: no delegation, parent run or session matches no-such-thing in 9 journal files under .*fixtures[/\\]sessions\n$/);
    },
  },
  {
    name: 'a missing sessions root is one sentence and exit 2',
    args: ['--sessions', 'fixtures/no-such-dir'],
    code: 2,
    stdout: '',
    stderr: 'trace-delegation: sessions root fixtures/no-such-dir does not exist\n',
  },
  {
    name: 'when the journals could not be read, the error says so instead of "found nothing"',
    args: ['--sessions', unreadableTree],
    code: 2,
    stdout: '',
    stderr: `trace-delegation: no delegation_started event found in 1 journal file under ${unreadableTree}; it could not be read (${unreadableTree}/s.jsonl.gz: corrupt gzip data (incorrect header check))\n`,
  },
  {
    name: 'a --sessions glob that matches no file is an input error, not an empty run',
    args: ['--sessions', 'fixtures/no-such-*/**/*.jsonl', '--all'],
    code: 2,
    stdout: '',
    stderr: 'trace-delegation: sessions glob fixtures/no-such-*/**/*.jsonl matches no file or folder\n',
  },
  {
    name: 'a quoted ~/ in --sessions is the home folder, as the shell would expand it',
    args: ['--sessions', '~/sessions/**/*.jsonl', ID.genBRetry],
    env: { HOME: path.join(ROOT, 'fixtures') },
    code: 0,
    stdout: (s) => expect(blockIds(s)).toEqual([ID.genBRetry]),
    stderr: '',
  },
  {
    name: '--all with a target is a conflict: one sentence and exit 2, not the whole tree',
    args: ['--demo', '--all', ID.genBRetry],
    code: 2,
    stdout: '',
    stderr: `trace-delegation: --all reports every delegation; it cannot be combined with a target ("${ID.genBRetry}"): drop one of them\n`,
  },
  {
    name: 'standard input with a tree is a conflict: one sentence and exit 2',
    args: ['--stdin', '--sessions', 'fixtures/sessions', '--all'],
    input: '',
    code: 2,
    stdout: '',
    stderr: 'trace-delegation: standard input (--stdin or target -) is the one journal read; it cannot be combined with --sessions\n',
  },
  {
    name: 'an invalid TRACE_DELEGATION_NOW is named as such, not as --now',
    args: ['--demo'],
    env: { TRACE_DELEGATION_NOW: 'bogus' },
    code: 2,
    stdout: '',
    stderr: 'trace-delegation: TRACE_DELEGATION_NOW must be an RFC 3339 timestamp, not "bogus"\n',
  },
  {
    name: '--all over a tree without delegations says so and exits 0',
    args: ['--sessions', emptyHome, '--all'],
    code: 0,
    stdout: 'No delegation found.\n',
    stderr: '',
  },
  {
    name: 'without --all, a tree without delegation_started is an input error',
    args: ['--sessions', emptyHome],
    code: 2,
    stdout: '',
    stderr: `trace-delegation: no delegation_started event found in 0 journal files under ${emptyHome}\n`,
  },
  {
    name: 'the default root is ~/.astra/sessions (missing here: exit 2, named)',
    args: [],
    env: { HOME: emptyHome, ASTRA_SESSIONS_DIR: undefined },
    code: 2,
    stderr: `trace-delegation: sessions root ${path.join(emptyHome, '.astra', 'sessions')} does not exist (the default; name the journals with --sessions or ASTRA_SESSIONS_DIR, or read the bundled ones with --demo)\n`,
  },
  {
    name: 'ASTRA_SESSIONS_DIR replaces the default root',
    args: ['--all'],
    env: { HOME: emptyHome, ASTRA_SESSIONS_DIR: 'fixtures/sessions' },
    code: 1,
    stdout: (s) => expect(blockIds(s)).toHaveLength(demoStarts().length),
  },
  {
    name: '--sessions beats ASTRA_SESSIONS_DIR and is repeatable (Gen A: two files, one delegation)',
    args: ['--sessions', 'fixtures/sessions/delegation.jsonl', '--sessions', `fixtures/sessions/${LEGACY_SESSION}.jsonl`, '--all'],
    env: { ASTRA_SESSIONS_DIR: '/nonexistent' },
    code: 0,
    stdout: (s) => {
      expect(blockIds(s)).toEqual([ID.genA]);
      expect(s).toMatch(/^- \[info\] duplicate-completion: /m);
      expect(s).toContain(`- fixtures/sessions/${LEGACY_SESSION}.jsonl: 1 malformed line skipped.`);
    },
  },
  {
    name: 'a glob is a root too',
    args: ['--sessions', `${LOCAL}/1b9e*.jsonl`, '--all'],
    code: 0,
    stdout: (s) => expect(blockIds(s)).toEqual([ID.fork, ID.sequential]),
  },
  {
    name: '--fail-on error (default): an info finding exits 0',
    args: ['--demo', ID.genA],
    code: 0,
  },
  {
    name: '--fail-on info: the same info finding exits 1',
    args: ['--demo', ID.genA, '--fail-on', 'info'],
    code: 1,
  },
  {
    name: '--fail-on warning: a warning exits 1, an info does not',
    args: ['--demo', ID.paused, '--fail-on', 'warning'],
    code: 1,
  },
  {
    name: '--fail-on none never fails on findings',
    args: ['--demo', ID.wrongAggregate, '--fail-on', 'none'],
    code: 0,
  },
  {
    name: 'a bad --fail-on value is a usage error',
    args: ['--demo', '--fail-on', 'fatal'],
    code: 2,
    stdout: '',
    stderr: 'trace-delegation: --fail-on: must be error, warning, info or none, not "fatal"\n',
  },
  {
    name: 'an unknown format is a usage error',
    args: ['--demo', '--format', 'yaml'],
    code: 2,
    stderr: /^trace-delegation: unknown format yaml \(choose from .*json.*\)\n$/,
  },
  {
    name: '- reads one journal from standard input',
    args: ['-', '--all'],
    input: readFileSync(path.join(ROOT, FORK_FILE), 'utf8'),
    code: 0,
    stdout: (s) => {
      expect(blockIds(s)).toEqual([ID.fork, ID.sequential]);
      expect(s).toMatch(/\(<stdin>:\d+(, <stdin>:\d+)+\)$/m);
      expect(s).not.toContain('fixtures/');
    },
  },
  {
    name: '--stdin reads standard input and resolves the target in it',
    args: ['--stdin', ID.sequential.slice(0, 6)],
    input: readFileSync(path.join(ROOT, FORK_FILE), 'utf8'),
    code: 0,
    stdout: (s) => expect(blockIds(s)).toEqual([ID.sequential]),
  },
  {
    name: 'empty standard input has no delegation: exit 2',
    args: ['-'],
    input: '',
    code: 2,
    stderr: 'trace-delegation: no delegation_started event found in 1 journal file under <stdin>\n',
  },
];

describe('trace-delegation report (subprocess)', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const r = await runBin(c.args, { env: c.env, cwd: c.cwd, input: c.input });
      check(r.stdout, c.stdout);
      check(r.stderr, c.stderr);
      expect(r.code).toBe(c.code);
      noStack(r);
    });
  }
});

describe('an ambiguous prefix of many ids', () => {
  it('lists 20 candidates and says how many more, instead of a line for each', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-prefix-'));
    try {
      const lines = Array.from({ length: 45 }, (_, i) =>
        JSON.stringify({ type: 'delegation_started', ts: '2026-03-10T10:00:00Z', session_id: 's', metadata: { delegation_id: `dn-${i}`, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 } }),
      );
      writeFileSync(path.join(dir, 's.jsonl'), `${lines.join('\n')}\n`);
      const r = await runBin(['--sessions', dir, 'dn-']);
      expect(r.code).toBe(2);
      const err = r.stderr.split('\n').filter(Boolean);
      expect(err[0]).toBe('trace-delegation: target dn- is ambiguous: it is a prefix of 45 delegation ids');
      expect(err.slice(1, 21).every((l) => /^ {2}dn-\d+$/.test(l))).toBe(true);
      expect(err.slice(21)).toEqual(['  … and 25 more (a longer prefix narrows it; `trace-delegation list` lists delegations)']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('text report layout (the seed skill’s Report Format)', () => {
  it('prints one block line for line: header, timeline, findings with evidence, limits', async () => {
    const r = await runBin(['--sessions', PAUSED_FILE]);
    const F = PAUSED_FILE;
    const expected: (string | RegExp)[] = [
      `Delegation Trace: ${ID.paused}`,
      '',
      'Pattern: fan_out',
      'Parent run: 151d7554-9a57-4676-8971-8cfd1d422c4e',
      'Expected agents/tasks: 2',
      '',
      'Timeline:',
      '- 2025-11-07T17:45:05.300853021+00:00 started: agents=researcher,summarizer',
      '- 2025-11-07T17:45:05.360486312+00:00 sub-run started: 68198685-358a-4ad1-b746-a8e6a4fea77d agent=researcher depth=1 retry_of=-',
      '- 2025-11-07T17:45:05.390780995+00:00 sub-run started: ddead607-6db1-4510-b530-658dc351063a agent=summarizer depth=1 retry_of=-',
      '- 2025-11-07T17:45:29.800265053+00:00 sub-run completed: ddead607-6db1-4510-b530-658dc351063a status=completed',
      '- 2025-11-07T17:45:36.020802468+00:00 marker: pause run=68198685-358a-4ad1-b746-a8e6a4fea77d',
      '- 2025-11-07T17:45:41.700530008+00:00 delegation completed: succeeded=1 failed=1 status=unfinished',
      '',
      'Findings:',
      // The message words belong to the check; the shape and the evidence belong to the report.
      new RegExp(`^- \\[warning\\] missing-completion: .*68198685-358a-4ad1-b746-a8e6a4fea77d.*paused.* \\(${F}:3, ${F}:7\\)$`),
      /^ {2}symptom: Pause\/resume stuck; check: .+$/,
      '',
      'Limits:',
      '- Per-sub-run token counts are not journaled (no delegation event carries tokens).',
      '- The aggregation strategy, stop_on_success and timeouts are not journaled.',
      '- Sub-run completion timestamps may be recording times, not finish times (some engine versions write all completions after the batch).',
      '',
    ];
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(expected.length);
    expected.forEach((want, i) => {
      if (typeof want === 'string') expect(lines[i], `line ${i + 1}`).toBe(want);
      else expect(lines[i], `line ${i + 1}`).toMatch(want);
    });
    expect(r.code).toBe(0);
  });

  it('a delegation without findings prints `Findings:` then `- none`; blocks are separated by one blank line', async () => {
    const r = await runBin(['--sessions', FORK_FILE, '--all']);
    const blocks = r.stdout.trimEnd().split(/\n\n(?=Delegation Trace: )/);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('\nExpected agents/tasks: 3\n');
    expect(blocks[0]).toContain('\n- 2025-11-06T08:20:12.010729267+00:00 started: agents=tester×3\n');
    expect(blocks[0]).toContain('\nFindings:\n- none\n\nLimits:\n');
    expect(blocks[1]).toMatch(/\nFindings:\n- \[info\] sequential-stopped-early: /);
  });

  it('a folded retry shows retry_of on the retry start and the retry line in between (Gen B order)', async () => {
    const r = await runBin(['--demo', ID.genBRetry]);
    const timeline = r.stdout.split('\n').filter((l) => /^- \d{4}-/.test(l));
    const kinds = timeline.map((l) => l.replace(/^- \S+ /, '').split(':')[0]);
    expect(kinds).toEqual(['started', 'sub-run started', 'sub-run started', 'sub-run started', 'retry', 'sub-run completed', 'sub-run started', 'sub-run completed', 'sub-run completed', 'sub-run completed', 'delegation completed']);
    const retry = /retry: (\S+) -> (\S+) attempt=2 reason=output too short \(2 chars, minimum 10\)/.exec(r.stdout)!;
    expect(r.stdout).toContain(`sub-run completed: ${retry[1]} status=verification_failed`);
    expect(r.stdout).toContain(`sub-run started: ${retry[2]} agent=tester depth=1 retry_of=${retry[1]}`);
  });

  it('timestamps keep the journal’s own precision (6 digits in the legacy files, 9 in v1)', async () => {
    const r = await runOnce(['--demo', '--all']);
    const stamps = [...r.stdout.matchAll(/^- (\d{4}-\d\d-\d\dT[\d:]+(?:\.(\d+))?\+00:00) /gm)];
    const journalStamps = new Set(allDemoLines().map((l) => l.value?.ts));
    for (const m of stamps) expect(journalStamps.has(m[1]), m[1]).toBe(true);
    expect(new Set(stamps.map((m) => m[2].length))).toEqual(new Set([6, 9]));
  });

  it('--all prints one block per delegation_started in the tree, in start order', async () => {
    const r = await runOnce(['--demo', '--all']);
    const starts = demoStarts();
    expect(blockIds(r.stdout).sort()).toEqual(starts.map((s) => s.id).sort());
    const order = [...starts].sort((a, b) => a.ts.localeCompare(b.ts)).map((s) => s.id);
    expect(blockIds(r.stdout)).toEqual(order);
    expect(r.code).toBe(1);
  });
});

describe('--format json', () => {
  it('is one document with schema version, delegations, children with folded retries, timeline, findings, limits and stats', async () => {
    const r = await runOnce(['--demo', '--all', '--format', 'json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'tool', 'target', 'delegations', 'summary', 'limits', 'stats']);
    expect(doc.schemaVersion).toBe(1);
    expect(doc.tool.name).toBe('trace-delegation');
    expect(doc.target).toEqual({ query: '--all', kind: 'all' });
    expect(doc.delegations.map((d: { id: string }) => d.id)).toEqual(blockIds((await runOnce(['--demo', '--all'])).stdout));

    const b = doc.delegations.find((d: { id: string }) => d.id === ID.genBRetry);
    expect(b.children).toHaveLength(3);
    const tester = b.children.find((c: { agentId: string }) => c.agentId === 'tester');
    expect(tester.attempts.map((a: { attempt: number; status: string }) => [a.attempt, a.status])).toEqual([
      [1, 'verification_failed'],
      [2, 'completed'],
    ]);
    expect(tester.attempts[1].retryOf).toBe(tester.attempts[0].runId);
    expect(tester.attempts[1].retryReason).toBe('output too short (2 chars, minimum 10)');
    expect(tester.finalRunId).toBe(tester.attempts[1].runId);
    expect(tester.finalStatus).toBe('completed');
    expect(b.timeline[0]).toMatchObject({ kind: 'started', text: 'started: agents=coder,reviewer,tester', runId: null, line: 6 });
    expect(b.status).toMatchObject({ aggregated: 'completed', totalSubRuns: 3, succeeded: 3, failed: 0 });

    const wrong = doc.delegations.find((d: { id: string }) => d.id === ID.wrongAggregate);
    expect(wrong.findings.map((f: { id: string }) => f.id)).toContain('totals-mismatch');
    for (const f of wrong.findings) {
      expect(f).toMatchObject({ delegation: ID.wrongAggregate, severity: expect.stringMatching(/^(error|warning|info)$/) });
      expect(f.evidence.length).toBeGreaterThan(0);
    }
    const severities = doc.delegations.flatMap((d: { findings: { severity: string }[] }) => d.findings.map((f) => f.severity));
    expect(doc.summary).toEqual({
      delegations: doc.delegations.length,
      error: severities.filter((s: string) => s === 'error').length,
      warning: severities.filter((s: string) => s === 'warning').length,
      info: severities.filter((s: string) => s === 'info').length,
    });

    // The scan statistics agree with the files themselves.
    const files = demoJournalFiles();
    const lines = files.length ? allDemoLines() : [];
    const ours = new Set(['delegation_started', 'delegation_sub_run_started', 'delegation_retry', 'delegation_sub_run_completed', 'delegation_completed', 'sync_marker', 'session_end']);
    expect(doc.stats).toMatchObject({
      files: files.length,
      lines: lines.length,
      malformedLines: lines.filter((l) => l.value === null).length,
      events: lines.filter((l) => ours.has(String(l.value?.type)) && (l.value?.type !== 'sync_marker' || meta(l).run_id)).length,
      partialLines: 0,
      duplicateLines: 0,
      unreadableFiles: 0,
    });
    expect(typeof doc.stats.durationMs).toBe('number');
  });

  it('an open delegation has null completion fields and an open attempt, not invented values', async () => {
    const doc = await demoJson();
    const d = doc.delegations.find((x: { id: string }) => x.id.startsWith('c8f05d3a'));
    expect(d.completedTs).toBeNull();
    expect(d.status).toEqual({ aggregated: null, totalSubRuns: null, succeeded: null, failed: null, aggregatedOutputPreview: null });
    const paused = doc.delegations.find((x: { id: string }) => x.id === ID.paused);
    const researcher = paused.children.find((c: { agentId: string }) => c.agentId === 'researcher').attempts[0];
    expect(researcher).toMatchObject({ open: true, status: null, endTs: null, markers: [{ action: 'pause' }] });
  });
});

describe('--demo', () => {
  it('works from any working directory (paths then print in full)', async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'td-cwd-'));
    try {
      const r = await runBin(['--demo', ID.genA], { cwd: elsewhere });
      expect(r.code).toBe(0);
      expect(blockIds(r.stdout)).toEqual([ID.genA]);
      expect(r.stdout).toContain(`(${path.join(DEMO, `${LEGACY_SESSION}.jsonl`)}:`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('reads the same tree as --sessions fixtures/sessions', async () => {
    const a = await runOnce(['--demo', '--all']);
    const b = await runBin(['--sessions', 'fixtures/sessions', '--all']);
    expect(b.stdout).toBe(a.stdout);
    expect(b.code).toBe(a.code);
  });
});

describe('colour', () => {
  async function inProcess(args: string[], env: NodeJS.ProcessEnv, isTTY: boolean) {
    const out = Object.assign(new PassThrough(), { isTTY });
    let stdout = '';
    out.setEncoding('utf8').on('data', (d) => (stdout += d));
    const code = await main({ argv: args, stdout: out, stderr: new PassThrough(), stdin: Readable.from(['']), env: { TRACE_DELEGATION_NOW: FIXED_NOW, ...env }, cwd: ROOT });
    return { code, stdout };
  }
  const args = ['--demo', ID.wrongAggregate];

  it('a TTY gets colour (the control case)', async () => {
    const r = await inProcess(args, {}, true);
    expect(r.stdout).toContain(`${ESC}31m[error]${ESC}0m`);
  });

  it('NO_COLOR turns it off on a TTY, unless empty', async () => {
    expect((await inProcess(args, { NO_COLOR: '1' }, true)).stdout).not.toContain(ESC);
    expect((await inProcess(args, { NO_COLOR: '' }, true)).stdout).toContain(ESC);
  });

  it('--no-color turns it off on a TTY', async () => {
    expect((await inProcess([...args, '--no-color'], {}, true)).stdout).not.toContain(ESC);
  });

  it('journal text cannot smuggle escapes into the terminal', async () => {
    const evil = [
      JSON.stringify({ type: 'delegation_started', ts: '2025-11-03T09:15:00Z', session_id: 's', metadata: { agent_count: 1, agent_ids: ['x\u001b[2J'], delegation_id: 'd\u001b]0;pwned\u0007', parent_run_id: 'p\r\nFindings:', pattern: 'fan_out' } }),
    ].join('\n');
    const r = await runBin(['-'], { input: `${evil}\n` });
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stdout).toContain('Delegation Trace: d\\u001b]0;pwned\\u0007');
    expect(r.stdout).toContain('Parent run: p\\r\\nFindings:');
  });
});

describe('a journal whose file name is not UTF-8', () => {
  it('is named in the Limits with the reason, not as a missing file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-name-'));
    try {
      // Latin-1 "été": bytes Linux accepts in a name; a file system that refuses them skips the test.
      const name = Buffer.concat([Buffer.from(`${dir}/s-`), Buffer.from([0xe9, 0x74, 0xe9]), Buffer.from('.jsonl')]);
      try {
        writeFileSync(name, readFileSync(path.join(ROOT, 'fixtures', 'formats', 'retry-and-failure.jsonl')));
      } catch {
        return;
      }
      const r = await runBin(['--sessions', dir, '--all']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('its file name is not valid UTF-8, so it cannot be opened by name (rename it to read it)');
      noStack(r);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an empty TRACE_DELEGATION_NOW', () => {
  it('is unset, as an empty CI or ASTRA_SESSIONS_DIR is (an empty workflow input), not an error', async () => {
    const r = await runBin(['--demo', '--all', '--format', 'json', '--fail-on', 'none'], { env: { TRACE_DELEGATION_NOW: '' } });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).delegations.length).toBeGreaterThan(0);
  });
});

describe('an event whose ts does not parse', () => {
  it("is named once, in its own delegation's Limits, not in another delegation's of the same file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-untimed-limits-'));
    try {
      const line = (type: string, ts: string, metadata: object) => JSON.stringify({ type, ts, session_id: 's', metadata });
      writeFileSync(
        path.join(dir, 'p.jsonl'),
        [
          line('delegation_started', '2025-11-07T08:00:00Z', { agent_count: 1, agent_ids: ['a'], delegation_id: 'd-a', parent_run_id: 'pa', pattern: 'fan_out' }),
          line('delegation_sub_run_started', 'yesterday', { agent_id: 'a', delegation_id: 'd-a', depth: 1, parent_run_id: 'pa', retry_of: null, status: 'running', sub_run_id: 'ra' }),
          line('delegation_started', '2025-11-07T09:00:00Z', { agent_count: 1, agent_ids: ['b'], delegation_id: 'd-b', parent_run_id: 'pb', pattern: 'fan_out' }),
        ].join('\n') + '\n',
      );
      const r = await runBin(['--sessions', dir, '--all', '--format', 'json', '--fail-on', 'none']);
      const byId = new Map(JSON.parse(r.stdout).delegations.map((d: { id: string; limits: string[] }) => [d.id, d.limits] as const));
      const untimed = (limits: string[]) => limits.filter((l) => /timestamp that does not parse|unparseable ts/.test(l));
      expect(untimed(byId.get('d-a') as string[])).toEqual(['1 event has a timestamp that does not parse; ordered by file position.']);
      expect(untimed(byId.get('d-b') as string[])).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('adversarial_review', () => {
  it('says in its Limits that rounds are not journaled and where the expected children come from', async () => {
    const r = await runBin(['--sessions', 'fixtures/checks/agent-set-mismatch/trap-adversarial-review.jsonl', '--all', '--format', 'json', '--fail-on', 'none'], { cwd: ROOT });
    const [d] = JSON.parse(r.stdout).delegations;
    expect(d.pattern).toBe('adversarial_review');
    expect(d.limits).toContain('max_rounds is not journaled: the expected children are total_sub_runs (4), producer and reviewer alternating; a round that never started is counted there, not reported as missing-start.');
    const fanOut = await runBin(['--sessions', 'fixtures/formats/retry-and-failure.jsonl', '--all', '--format', 'json', '--fail-on', 'none'], { cwd: ROOT });
    expect(JSON.parse(fanOut.stdout).delegations[0].limits.some((l: string) => l.startsWith('max_rounds'))).toBe(false);
  });
});
