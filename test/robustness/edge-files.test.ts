/**
 * Files no journal writer means to produce but disks, crashes and users do: each one is read or
 * reported, and never stops the rest of the tree from being read.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runBin, runMain, ROOT } from '../helpers/cli.js';
import { hasMkfifo, mkfifo } from '../helpers/fifo.js';
import { ev, journal } from '../helpers/journal.js';
import { expectHealthy, LOCAL, removeTempDirs, runBinWithin, SAMPLE, tempDir, writeTree, type JsonStats } from './support.js';

afterAll(removeTempDirs);

interface Doc {
  stats: JsonStats;
  limits: string[];
  delegations: {
    id: string;
    files: string[];
    limits: string[];
    findings: { id: string }[];
    children: { attempts: { outputPreview: string | null; runId: string }[] }[];
    timeline: { ts: string; text: string; line: number }[];
  }[];
}

/** `--all --format json` over a root (or glob), in-process; must be a healthy run. */
async function report(sessions: string, label: string, extra: string[] = []): Promise<Doc> {
  const r = await runMain(['--sessions', sessions, '--all', '--format', 'json', ...extra]);
  expectHealthy(r, label);
  return JSON.parse(r.stdout) as Doc;
}

const SAMPLE_IDS = ['b7a2e915-3c6d-4f80-9e14-5d2c8a7b6f31', 'e19c4d73-8a2b-4e6f-b5d0-3f7a9c1e2b84'];
const ids = (doc: Doc) => doc.delegations.map((d) => d.id).sort();

const D = 'c0ffee00-0000-4000-8000-00000000beef';
const started = ev.started('2026-03-10T10:00:00.000000000+00:00', { delegation_id: D, parent_run_id: 'parent', pattern: 'fan_out', agent_ids: ['writer'] });
const subStarted = ev.subStarted('2026-03-10T10:00:01.000000000+00:00', { delegation_id: D, sub_run_id: 'run-1', parent_run_id: 'parent', agent_id: 'writer' });
const completedWith = (preview: string) =>
  ev.subCompleted('2026-03-10T10:00:02.000000000+00:00', { delegation_id: D, sub_run_id: 'run-1', agent_id: 'writer', status: 'completed', output_preview: preview });
const done = ev.completed('2026-03-10T10:00:03.000000000+00:00', { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' });

describe('huge lines', () => {
  const HUGE = 24 * 1024 * 1024; // tens of MB, many times the reader's 1 MiB chunk

  it('reads a delegation event whose preview is tens of MB, and the lines after it', async () => {
    const root = tempDir('huge-delegation');
    writeTree(root, { 'big.jsonl': journal(started, subStarted, completedWith('p'.repeat(HUGE)), done) });
    const doc = await report(root, 'huge delegation line');
    expect(doc.stats.malformedLines).toBe(0);
    expect(doc.stats.lines).toBe(4);
    const [d] = doc.delegations;
    expect(d.children[0].attempts[0].outputPreview).toHaveLength(HUGE);
    expect(d.timeline.map((t) => t.line)).toEqual([1, 2, 3, 4]);
  });

  it('passes over a huge non-delegation event, type first or not, and reads what follows', async () => {
    const root = tempDir('huge-other');
    const big = 'q'.repeat(HUGE);
    const typeFirst = JSON.stringify({ type: 'turn', ts: '2026-03-10T10:00:00.5Z', assistant_output: big });
    const typeLast = JSON.stringify({ ts: '2026-03-10T10:00:00.6Z', assistant_output: big, type: 'llm_response_full' });
    writeTree(root, { 'big.jsonl': journal(started, typeFirst, subStarted, typeLast, completedWith('ok'), done) });
    const doc = await report(root, 'huge non-delegation line');
    expect(doc.stats.lines).toBe(6);
    expect(doc.stats.events).toBe(4);
    expect(doc.stats.malformedLines).toBe(0);
    expect(doc.delegations[0].timeline.map((t) => t.line)).toEqual([1, 3, 5, 6]);
  });
});

describe('worker threads', () => {
  it('a damaged tree big enough for worker threads gives the same report as one thread', async () => {
    const root = tempDir('workers');
    const gz = gzipSync(Buffer.from(SAMPLE));
    writeTree(root, {
      [`${LOCAL}/huge.jsonl`]: journal(started, subStarted, completedWith('w'.repeat(32 << 20)), done),
      'other.jsonl': `${JSON.stringify({ type: 'turn', ts: '2026-03-10T09:00:00Z', assistant_output: 'o'.repeat(24 << 20) })}\n${SAMPLE}garbage\n{"type":"delegation_started",`,
      [`${LOCAL}/truncated.jsonl.gz`]: gz.subarray(0, gz.length >> 1),
      'corrupt.jsonl.gz': Buffer.from('not gzip'),
    });
    const args = ['--sessions', root, '--all', '--format', 'json'];
    const threads = await runBinWithin([...args, '--jobs', '2'], 60_000);
    expect(threads.timedOut).toBe(false);
    expectHealthy(threads, 'worker threads');
    const one = await runMain([...args, '--jobs', '1']);
    expectHealthy(one, 'one thread');
    const comparable = (out: string) => {
      const doc = JSON.parse(out) as Doc & { stats: { durationMs?: number } };
      delete doc.stats.durationMs;
      return doc;
    };
    const a = comparable(threads.stdout);
    expect(a.stats).toMatchObject({ files: 4, unreadableFiles: 2, partialLines: 2 });
    expect(a).toEqual(comparable(one.stdout));
  });
});

describe('line structure', () => {
  it('a file with no newline at all: its one event is kept and flagged as possibly still being written', async () => {
    const root = tempDir('no-newline');
    writeTree(root, { 'one.jsonl': started });
    const doc = await report(root, 'no newline');
    expect(ids(doc)).toEqual([D]);
    expect(doc.stats).toMatchObject({ lines: 1, partialLines: 1, malformedLines: 0 });
    expect(doc.delegations[0].limits.join('\n')).toMatch(/no trailing newline/);
  });

  it('a partial last line in a file no delegation block names gets its Limits line at scan level', async () => {
    const root = tempDir('partial-elsewhere');
    const turn = '{"type":"turn","ts":"2026-03-10T10:05:00Z","session_id":"other","turn":1}';
    writeTree(root, { 'clean.jsonl': journal(started, subStarted, completedWith('ok'), done), 'other.jsonl': `${turn}\n{"type":"llm_round","ts":"2026-03-10T10:06:00Z","sess` });
    const doc = await report(root, 'partial line elsewhere');
    expect(ids(doc)).toEqual([D]);
    expect(doc.stats).toMatchObject({ partialLines: 1, malformedLines: 0 });
    expect(doc.limits).toEqual([`${path.join(root, 'other.jsonl')}: the last line has no trailing newline; it may still be being written.`]);
    expect(doc.delegations[0].limits.join('\n')).not.toMatch(/no trailing newline/);
  });

  it('a megabyte of binary junk with no newline is one unfinished line, not a crash', async () => {
    const root = tempDir('junk');
    const junk = Buffer.alloc(1 << 20);
    for (let i = 0; i < junk.length; i++) junk[i] = ((i * 2654435761) >>> 24) | 0x80; // no 0x0a, never valid UTF-8
    writeTree(root, { 'junk.jsonl': junk, 'good.jsonl': SAMPLE });
    const doc = await report(root, 'binary junk');
    expect(ids(doc)).toEqual(SAMPLE_IDS);
    expect(doc.stats.partialLines).toBe(1);
  });

  it('an empty file: no delegation, no error; asking for the last delegation is one sentence and exit 2', async () => {
    const root = tempDir('empty');
    writeTree(root, { 'empty.jsonl': '' });
    const doc = await report(root, 'empty file');
    expect(doc.delegations).toEqual([]);
    expect(doc.stats).toMatchObject({ files: 1, lines: 0, malformedLines: 0, unreadableFiles: 0 });
    const last = await runMain(['--sessions', root]);
    expect(last.code).toBe(2);
    expect(last.stderr).toBe(`trace-delegation: no delegation_started event found in 1 journal file under ${root}\n`);
  });

  it('a file of only blank lines counts its lines and finds nothing malformed', async () => {
    const root = tempDir('blank');
    writeTree(root, { 'blank.jsonl': '\n\n   \n\t\n\r\n\n' });
    const doc = await report(root, 'blank lines');
    expect(doc.stats).toMatchObject({ lines: 6, malformedLines: 0, partialLines: 0, events: 0 });
  });

  it('CRLF line endings give the same report as LF', async () => {
    const lf = tempDir('lf');
    const crlf = tempDir('crlf');
    writeTree(lf, { 's.jsonl': SAMPLE });
    writeTree(crlf, { 's.jsonl': SAMPLE.replace(/\n/g, '\r\n') });
    const [a, b] = [await report(lf, 'LF'), await report(crlf, 'CRLF')];
    expect(b.stats.malformedLines).toBe(0);
    expect(ids(b)).toEqual(SAMPLE_IDS);
    const blocks = (doc: Doc, root: string) => JSON.stringify(doc.delegations.map((d) => [d.timeline, d.findings])).replaceAll(root, '<root>');
    expect(blocks(b, crlf)).toBe(blocks(a, lf));
  });

  it('a UTF-8 byte order mark before the first event is skipped, not a malformed line', async () => {
    const root = tempDir('bom');
    writeTree(root, { 'bom.jsonl': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(journal(started, subStarted, completedWith('ok'), done))]) });
    const doc = await report(root, 'BOM');
    expect(doc.stats.malformedLines).toBe(0);
    expect(doc.delegations[0].timeline.map((t) => t.line)).toEqual([1, 2, 3, 4]);
  });
});

describe('standard input', () => {
  it('reads a damaged journal from stdin like a file: counted, never fatal', async () => {
    const damaged = `${SAMPLE.slice(0, 4000)}\u0000\uFFFD garbage\n${SAMPLE.slice(4000, 9000)}`;
    const r = await runMain(['--stdin', '--all', '--format', 'json'], { input: damaged });
    expectHealthy(r, 'damaged stdin');
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.stats.files).toBe(1);
    expect(doc.stats.malformedLines).toBeGreaterThanOrEqual(1);
    expect(ids(doc)).toEqual(SAMPLE_IDS);
  });

  it('a gzip journal piped in is inflated: the same report as the plain journal; cut short, it says so', async () => {
    const plain = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none'], { input: SAMPLE });
    const gz = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none'], { input: gzipSync(SAMPLE) });
    expectHealthy(gz, 'gzip stdin');
    const strip = (s: string) => s.replace(/"durationMs": \d+/, '');
    expect(strip(gz.stdout)).toBe(strip(plain.stdout));
    const whole = gzipSync(SAMPLE);
    const cut = whole.subarray(0, whole.length >> 1);
    const r = await runBin(['--stdin', '--all', '--fail-on', 'none'], { input: cut });
    expectHealthy(r, 'truncated gzip stdin');
    expect(r.stdout).toMatch(/- <stdin>: corrupt gzip data \(unexpected end of file\); only the first \d+ lines were read\./);
  });

  it('a gzip journal piped in with a damaged end is read whole, as the same file in a tree is, and leaves no copy behind', async () => {
    const gz = gzipSync(SAMPLE);
    const badCrc = Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([gz[gz.length - 8] ^ 0xff]), gz.subarray(gz.length - 7)]);
    // A temporary folder of its own: other test files read gzip from stdin at the same time.
    const tmp = tempDir('stdin-tmp-');
    for (const [input, note] of [
      [badCrc, 'a gzip checksum does not match its data \\(incorrect data check\\)'],
      [Buffer.concat([gz, Buffer.from('garbage\n')]), 'bytes after the gzip data that are not gzip were ignored'],
    ] as const) {
      const r = await runBin(['--stdin', '--all', '--format', 'json', '--fail-on', 'none'], { input, env: { TMPDIR: tmp } });
      expectHealthy(r, 'damaged gzip stdin');
      const doc = JSON.parse(r.stdout) as Doc;
      expect(doc.stats).toMatchObject({ unreadableFiles: 0, lines: SAMPLE.split('\n').filter(Boolean).length });
      expect(ids(doc)).toEqual(SAMPLE_IDS);
      expect(doc.delegations[0].limits.join('\n')).toMatch(new RegExp(`<stdin>: ${note}[^\\n]*; all \\d+ lines of its data were read\\.`));
    }
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('a gzip journal on stdin interrupted while it is copied', () => {
  it('leaves no temporary copy behind, and dies of the signal as before', async () => {
    // A temporary folder of its own: other test files read gzip from stdin at the same time.
    const tmp = tempDir('stdin-tmp-');
    const copies = () => readdirSync(tmp).filter((f) => f.startsWith('trace-delegation-stdin-'));
    const before = new Set(copies());
    const child = spawn(process.execPath, [BIN, '--stdin', '--all'], { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, TMPDIR: tmp } });
    child.stdin.write(gzipSync(SAMPLE)); // stdin stays open: the copy is still being written
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let made: string[] = [];
    for (let i = 0; i < 200 && made.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      made = copies().filter((f) => !before.has(f));
    }
    expect(made).toHaveLength(1);
    child.kill('SIGINT');
    expect(await exited).toEqual({ code: null, signal: 'SIGINT' });
    expect(copies().filter((f) => !before.has(f))).toEqual([]);
  });
});

describe('a library host that listens for SIGINT, reading gzip from a stream', () => {
  it('gets the signal once, and the analysis completes (the library does not raise it again)', () => {
    const host = `
      import { analyze } from ${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))};
      import { PassThrough } from 'node:stream';
      import zlib from 'node:zlib';
      let n = 0;
      process.on('SIGINT', () => n++);
      const lines = [];
      for (let i = 0; i < 200; i++) lines.push(JSON.stringify({ type: 'delegation_started', ts: '2026-02-16T10:11:01Z', session_id: 's1', metadata: { agent_count: 1, agent_ids: ['a'], delegation_id: 'd' + i, parent_run_id: 'P', pattern: 'fan_out' } }));
      const gz = zlib.gzipSync(lines.join('\\n') + '\\n');
      const s = new PassThrough();
      let at = 0;
      const t = setInterval(() => { if (at >= gz.length) { clearInterval(t); s.end(); return; } s.write(gz.subarray(at, at + 20)); at += 20; }, 10);
      setTimeout(() => process.kill(process.pid, 'SIGINT'), 150);
      const a = await analyze({ stdin: s, all: true, now: '2030-01-01T00:00:00Z' });
      console.log(JSON.stringify({ signals: n, delegations: a.report.delegations.length, listeners: process.listenerCount('SIGINT') }));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', host], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ signals: 1, delegations: 200, listeners: 1 });
  });
});

describe('many .jsonl/.jsonl.gz pairs', () => {
  it('their repeated lines are one scan-wide Limits line past ten files, one per file up to ten', async () => {
    const pairs = (n: number) => {
      const root = tempDir(`pairs-${n}`);
      const tree: Record<string, string | Buffer> = { 'good.jsonl': journal(started, subStarted, completedWith('ok'), done) };
      for (let i = 0; i < n; i++) {
        const text = `${ev.started(`2026-03-10T09:00:0${i % 10}Z`, { delegation_id: `other-${i}`, parent_run_id: `p${i}`, pattern: 'fan_out', agent_ids: ['a'] })}\n`;
        tree[`p${i}.jsonl`] = text;
        tree[`p${i}.jsonl.gz`] = gzipSync(Buffer.from(text));
      }
      writeTree(root, tree);
      return root;
    };
    // Named: the other delegations' files are in no block, so their limits are scan-wide.
    const named = async (root: string) => {
      const r = await runMain(['--sessions', root, D, '--format', 'json', '--fail-on', 'none']);
      expectHealthy(r, root);
      return JSON.parse(r.stdout) as Doc;
    };
    const few = await named(pairs(3));
    expect(few.limits.filter((l) => l.includes('repeat'))).toHaveLength(3);
    // Only delegation lines are compared (helper audit: the count read as every repeated line).
    expect(few.limits.find((l) => l.includes('repeat'))).toMatch(/\/p\d\.jsonl(\.gz)?: 1 line of a delegation event, marker or session end repeats another journal of the same session/);
    const many = await named(pairs(12));
    expect(many.stats.duplicateLines).toBe(12);
    const lines = many.limits.filter((l) => l.includes('repeat'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^12 files: 12 lines of delegation events, markers or session ends repeat another journal of the same session \(its \.jsonl\/\.jsonl\.gz sibling, or its copy in the other layout\) and were read once \([^,]+, [^,]+, [^,]+, …\)\.$/);
  });
});

describe('a session_end repeated by a .jsonl/.jsonl.gz pair', () => {
  it('is named as one in the Limits line (it is neither a delegation event nor a marker)', async () => {
    const root = tempDir('pair-session-end');
    const text = '{"type":"session_end","ts":"2026-03-10T09:00:00Z","session_id":"s1"}\n';
    writeTree(root, { 's1.jsonl': text, 's1.jsonl.gz': gzipSync(Buffer.from(text)) });
    const r = await runMain(['--sessions', root, '--all', '--format', 'json', '--fail-on', 'none']);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.stats.duplicateLines).toBe(1);
    expect(doc.limits).toEqual([`${path.join(root, 's1.jsonl.gz')}: 1 line of a delegation event, marker or session end repeats another journal of the same session (its .jsonl/.jsonl.gz sibling, or its copy in the other layout) and was read once.`]);
  });
});

describe('a folder on standard input', () => {
  it('is refused in one sentence (exit 2) by the report and by list, not read as an empty journal', () => {
    const root = tempDir('stdin-folder');
    writeTree(root, { 'good.jsonl': SAMPLE });
    for (const args of [['--stdin', '--all'], ['-'], ['--stdin', 'list']]) {
      const fd = openSync(root, 'r');
      try {
        const r = spawnSync(process.execPath, [BIN, ...args], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
        expect([r.status, r.stdout], args.join(' ')).toEqual([2, '']);
        expect(r.stderr).toBe('trace-delegation: standard input is a folder: redirect one journal (< session.jsonl), or name a tree with --sessions <folder>\n');
      } finally {
        closeSync(fd);
      }
    }
  });
});

describe('archives', () => {
  it('a corrupt and a truncated .jsonl.gz are reported under Limits; the rest of the tree is read', async () => {
    const root = tempDir('gz');
    const gz = gzipSync(Buffer.from(SAMPLE));
    const corrupt = Buffer.from(gz);
    for (let i = 40; i < 80; i++) corrupt[i] ^= 0xa5;
    writeTree(root, {
      [`${LOCAL}/corrupt.jsonl.gz`]: corrupt,
      [`${LOCAL}/truncated.jsonl.gz`]: gz.subarray(0, Math.floor(gz.length / 2)),
      'not-gzip.jsonl.gz': 'plain text, not gzip',
      [`${LOCAL}/good.jsonl`]: journal(started, subStarted, completedWith('ok'), done),
    });
    const doc = await report(root, 'corrupt gzip');
    expect(ids(doc)).toContain(D);
    expect(doc.stats.unreadableFiles).toBe(3);
    const limits = [...doc.limits, ...doc.delegations.flatMap((d) => d.limits)].join('\n');
    expect(limits).toMatch(/corrupt\.jsonl\.gz: corrupt gzip data \([^)]*\)/);
    expect(limits).toMatch(/truncated\.jsonl\.gz: corrupt gzip data \([^)]*\); only the first \d+ lines were read\./);
    expect(limits).toMatch(/not-gzip\.jsonl\.gz: corrupt gzip data \(incorrect header check\); not read\./);
    // The cut line of a damaged archive is that error's, not a line "still being written".
    expect(limits).not.toMatch(/jsonl\.gz: the last line has no trailing newline/);
  });
});

describe('archives whose end is damaged after intact data', () => {
  // As `gzip -dc`: every line is read, and the damage is a Limits line (not an unreadable file).
  const big = Array.from({ length: 4000 }, (_, i) => `{"type":"turn","ts":"2026-03-10T09:00:00Z","session_id":"s","turn":${i},"text":"${'t'.repeat(i % 97)}"}`).join('\n');
  const cases: [string, string, (gz: Buffer) => Buffer][] = [
    ['a bad checksum', 'a gzip checksum does not match its data \\(incorrect data check\\)', (gz) => Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([gz[gz.length - 8] ^ 0xff]), gz.subarray(gz.length - 7)])],
    ['a bad length', 'a gzip length check does not match its data', (gz) => Buffer.concat([gz.subarray(0, gz.length - 4), Buffer.from([gz[gz.length - 4] ^ 0x01]), gz.subarray(gz.length - 3)])],
    ['trailing bytes that are not gzip', 'bytes after the gzip data that are not gzip were ignored', (gz) => Buffer.concat([gz, Buffer.from('garbage\n')])],
    // Its length check matches: the data did not end early, though a checksum is wrong and bytes follow.
    ['a bad checksum and trailing zeros', 'a gzip checksum does not match its data \\(incorrect data check\\)', (gz) => Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([gz[gz.length - 8] ^ 0xff]), gz.subarray(gz.length - 7), Buffer.alloc(16)])],
  ];
  for (const [what, note, damage] of cases) {
    for (const [size, body] of [['small', ''], ['large (streamed)', `${big}\n`]] as const) {
      it(`${what}, ${size} archive: its delegation and every line are read`, async () => {
        const root = tempDir('gz-end');
        const text = `${body}${journal(started, subStarted, completedWith('ok'), done)}`;
        writeTree(root, { [`${LOCAL}/s.jsonl.gz`]: damage(gzipSync(Buffer.from(text))) });
        const doc = await report(root, `gzip with ${what}`);
        expect(ids(doc)).toEqual([D]);
        expect(doc.stats).toMatchObject({ unreadableFiles: 0, lines: text.split('\n').filter(Boolean).length });
        expect(doc.delegations[0].findings).toEqual([]);
        expect(doc.delegations[0].limits.join('\n')).toMatch(new RegExp(`s\\.jsonl\\.gz: ${note}[^\\n]*; all \\d+ lines of its data were read\\.`));
      });
    }
  }
});

describe('archives whose deflate data stops early in damaged bytes', () => {
  it('only the lines before the damage are read, and the file counts as unreadable (not "all lines read")', async () => {
    // What a corrupted middle can do (gzip -dc stops there too): the deflate data seems to end, the
    // "trailer" after it does not match, and the rest of the archive is bytes that are not gzip.
    const root = tempDir('gz-cut');
    const kept = journal(started, subStarted);
    const lost = journal(completedWith('ok'), done);
    const whole = Buffer.from(kept + lost);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc32(whole) >>> 0, 0);
    trailer.writeUInt32LE(whole.length, 4);
    const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    writeTree(root, { [`${LOCAL}/s.jsonl.gz`]: Buffer.concat([header, deflateRawSync(Buffer.from(kept)), trailer, deflateRawSync(Buffer.from(lost))]) });
    const doc = await report(root, 'gzip data cut short');
    expect(doc.stats).toMatchObject({ unreadableFiles: 1, lines: 2 });
    const limits = [...doc.limits, ...doc.delegations.flatMap((d) => d.limits)].join('\n');
    expect(limits).toMatch(/s\.jsonl\.gz: corrupt gzip data \(the deflate data ends early, at byte \d+, in damaged bytes; the rest of the archive cannot be inflated\); only the first 2 lines were read\./);
    expect(limits).not.toMatch(/lines of its data were read/);
  });
});

describe('archives of several gzip members with a damaged end', () => {
  const badCrc = (gz: Buffer) => Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([gz[gz.length - 8] ^ 0xff]), gz.subarray(gz.length - 7)]);
  const lines = [started, subStarted, completedWith('ok'), done];
  for (const [which, damage] of [['the first', (a: Buffer, b: Buffer) => [badCrc(a), b]], ['the second', (a: Buffer, b: Buffer) => [a, badCrc(b)]]] as const) {
    it(`a bad checksum on ${which} member: every member is read, and Limits says so`, async () => {
      const root = tempDir('gz-members');
      const [one, two] = [gzipSync(Buffer.from(journal(...lines.slice(0, 2)))), gzipSync(Buffer.from(journal(...lines.slice(2))))];
      writeTree(root, { [`${LOCAL}/s.jsonl.gz`]: Buffer.concat(damage(one, two)) });
      const doc = await report(root, `gzip members, ${which} damaged`);
      expect(ids(doc)).toEqual([D]);
      expect(doc.stats).toMatchObject({ unreadableFiles: 0, lines: 4 });
      expect(doc.delegations[0].findings).toEqual([]);
      expect(doc.delegations[0].limits.join('\n')).toMatch(/s\.jsonl\.gz: a gzip checksum does not match its data \(incorrect data check\), so lines may be damaged; all 4 lines of its data were read\./);
    });
  }
});

describe('files that cannot be read', () => {
  function unreadableTree(): { root: string; locked: string } {
    const root = tempDir('unreadable');
    chmodSync(root, 0o755);
    writeTree(root, { 'good.jsonl': SAMPLE, 'locked.jsonl': journal(started), 'v1/users/b64-bG9ja2Vk/sessions/s.jsonl': journal(started) });
    const locked = path.join(root, 'locked.jsonl');
    chmodSync(path.join(root, 'good.jsonl'), 0o644);
    chmodSync(locked, 0o000);
    for (const dir of ['v1', 'v1/users', 'v1/users/b64-bG9ja2Vk']) chmodSync(path.join(root, dir), 0o755);
    chmodSync(path.join(root, 'v1/users/b64-bG9ja2Vk/sessions'), 0o000); // an owner's folder nobody may list
    return { root, locked };
  }

  const expectReported = (stdout: string, root: string) => {
    const doc = JSON.parse(stdout) as Doc;
    expect(ids(doc)).toEqual(SAMPLE_IDS);
    expect(doc.stats.unreadableFiles).toBe(1);
    expect(doc.limits).toContain(`${path.join(root, 'locked.jsonl')}: permission denied; not read.`);
    expect(doc.limits).toContain(`folder ${path.join(root, 'v1/users/b64-bG9ja2Vk/sessions')} cannot be read (permission denied): its journals were not scanned.`);
  };

  /**
   * Runs the CLI where permission denied can happen: in process, or as user 65534 when the tests
   * run as root (root reads anything; CI runs as root). Skips when that user cannot run the build.
   */
  async function runUnprivileged(args: string[], ctx: { skip: (note: string) => void }) {
    if (process.getuid?.() !== 0) return runMain(args);
    const nobody = 65534;
    try {
      execFileSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(path.join(ROOT, 'dist', 'cli', 'main.js'))})`], { uid: nobody, gid: nobody, stdio: 'ignore' });
    } catch {
      ctx.skip('running as root and user 65534 cannot run the built CLI here, so permission denied cannot happen');
    }
    return runBinWithin(args, 20_000, { uid: nobody });
  }

  it('a file or a folder without read permission is reported; the others are read', async (ctx) => {
    const { root } = unreadableTree();
    const r = await runUnprivileged(['--sessions', root, '--all', '--format', 'json'], ctx);
    expectHealthy(r, 'unreadable file');
    expectReported(r.stdout, root);
  });

  it('a ** glob says which folder it could not list, as the layouts do', async (ctx) => {
    const { root } = unreadableTree();
    const r = await runUnprivileged(['--sessions', `${root}/**/*.jsonl`, '--all', '--format', 'json'], ctx);
    expect((JSON.parse(r.stdout) as Doc).limits).toContain(`folder ${path.join(root, 'v1/users/b64-bG9ja2Vk/sessions')} cannot be read (permission denied): its journals were not scanned.`);
  });

  it('an unreadable journal named as the root is exit 2 in one sentence, as an unreadable folder is', async (ctx) => {
    const { locked } = unreadableTree();
    const r = await runUnprivileged(['--sessions', locked, '--all'], ctx);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `trace-delegation: sessions root ${locked} cannot be read (permission denied)\n`]);
  });
});

describe('entries that are not journal files', () => {
  it('a directory named x.jsonl (or x.jsonl.gz) is not read, in the tree or named directly', async () => {
    const root = tempDir('dirs');
    mkdirSync(path.join(root, 'x.jsonl'));
    mkdirSync(path.join(root, LOCAL, 'y.jsonl.gz'), { recursive: true });
    writeTree(root, { 'good.jsonl': SAMPLE });
    const doc = await report(root, 'directory named x.jsonl');
    expect(doc.stats.files).toBe(1);
    expect(doc.limits).toEqual([]);
    const direct = await report(path.join(root, 'x.jsonl'), 'x.jsonl named directly');
    expect(direct.stats.files).toBe(0);
  });

  it('symbolic link loops neither hang nor repeat a journal, with the layouts or a ** glob', async () => {
    const root = tempDir('loops');
    writeTree(root, { 'real.jsonl': SAMPLE, [`${LOCAL}/s.jsonl`]: journal(started, subStarted, completedWith('ok'), done) });
    symlinkSync('.', path.join(root, 'loop-a'));
    symlinkSync('.', path.join(root, 'loop-b'));
    symlinkSync('../../../..', path.join(root, LOCAL, 'up'));
    symlinkSync('self.jsonl', path.join(root, 'self.jsonl')); // a link to itself
    symlinkSync('nowhere.jsonl', path.join(root, 'dangling.jsonl'));
    symlinkSync('real.jsonl', path.join(root, 'alias.jsonl')); // the same journal under a second name
    for (const sessions of [root, path.join(root, '**', '*.jsonl'), path.join(root, '*.jsonl')]) {
      const r = await runBinWithin(['--sessions', sessions, '--all', '--format', 'json'], 20_000);
      expect(r.timedOut, `${sessions} did not finish`).toBe(false);
      expectHealthy(r, `symlink loops via ${sessions}`);
      const doc = JSON.parse(r.stdout) as Doc;
      const expectedIds = sessions.endsWith(`${path.sep}*.jsonl`) && !sessions.includes('**') ? SAMPLE_IDS : [...SAMPLE_IDS, D].sort();
      expect(ids(doc), sessions).toEqual(expectedIds);
      expect(doc.delegations.find((d) => d.id === SAMPLE_IDS[0])!.files, sessions).toEqual([path.join(root, 'real.jsonl')]);
    }
    const self = await runMain(['--sessions', path.join(root, 'self.jsonl')]);
    expect(self.code).toBe(2);
    expect(self.stderr).toBe(`trace-delegation: sessions root ${path.join(root, 'self.jsonl')} is a loop of symbolic links\n`);
  });

  it.skipIf(!hasMkfifo)('a FIFO named *.jsonl never blocks the scan: skipped in the tree, reported when named', async () => {
    const root = tempDir('fifo');
    writeTree(root, { 'good.jsonl': SAMPLE });
    mkdirSync(path.join(root, LOCAL), { recursive: true });
    mkfifo(path.join(root, 'pipe.jsonl'), path.join(root, LOCAL, 'pipe.jsonl'), path.join(root, 'pipe.jsonl.gz'));
    // The three ways a tree is searched, in one run: each reaches good.jsonl, which is read once.
    const trees = [root, path.join(root, '*.jsonl'), path.join(root, '**', '*.jsonl*')].flatMap((s) => ['--sessions', s]);
    const r = await runBinWithin([...trees, '--all', '--format', 'json'], 20_000);
    expect(r.timedOut, 'the scan blocked on a FIFO').toBe(false);
    expectHealthy(r, 'FIFOs in the tree');
    const doc = JSON.parse(r.stdout) as Doc;
    expect(ids(doc)).toEqual(SAMPLE_IDS);
    expect(doc.stats.files).toBe(1);
    expect(doc.limits).toEqual([]);
    // Named directly, a FIFO or a device is reported and the other roots are still read.
    const named = [path.join(root, 'pipe.jsonl'), '/dev/zero'];
    const direct = await runBinWithin([...named.flatMap((n) => ['--sessions', n]), '--sessions', path.join(root, 'good.jsonl'), '--all', '--format', 'json'], 20_000);
    expect(direct.timedOut, 'a FIFO or device named directly blocked').toBe(false);
    expectHealthy(direct, 'FIFO and /dev/zero named directly');
    const directDoc = JSON.parse(direct.stdout) as Doc;
    expect(ids(directDoc)).toEqual(SAMPLE_IDS);
    expect(directDoc.limits.sort()).toEqual(named.map((n) => `${n}: not a regular file; not read.`).sort());
  });
});
