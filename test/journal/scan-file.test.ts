import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isCandidateLine, LineScanner, scanFile, scanStream, SKIP_LONG_LINE_AFTER } from '../../src/journal/scan-file.js';
import { ev, journal, line } from '../helpers/journal.js';

const dir = mkdtempSync(path.join(tmpdir(), 'td-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string | Buffer, name = `j${n++}.jsonl`): string {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
}
const scan = (p: string) => scanFile({ path: p, display: path.basename(p), fileIndex: 0 });
const candidate = (s: string) => {
  const b = Buffer.from(s);
  return isCandidateLine(b, 0, b.length);
};

const D = 'd-1';
const TS = (s: number) => `2025-11-03T09:15:${String(s).padStart(2, '0')}.000000000+00:00`;
const started = ev.started(TS(1), { delegation_id: D, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] });
const subStarted = ev.subStarted(TS(2), { delegation_id: D, sub_run_id: 'r-1', parent_run_id: 'p', agent_id: 'coder' });
const subDone = ev.subCompleted(TS(3), { delegation_id: D, sub_run_id: 'r-1', agent_id: 'coder', status: 'completed', output_preview: 'ok, done here' });
const completed = ev.completed(TS(4), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' });
const llmRound = JSON.stringify({ type: 'llm_round', ts: TS(5), session_id: 's', turn: 1, metadata: { finish_reason: 'stop' } });

describe('isCandidateLine (byte pre-filter)', () => {
  it('takes engine lines whose first key is a known type, in both spellings', () => {
    expect(candidate(started)).toBe(true);
    expect(candidate(line('DelegationSubRunCompleted', TS(1), { delegation_id: D }))).toBe(true);
    expect(candidate(line('sync_marker', TS(1), { action: 'pause', run_id: 'r' }))).toBe(true);
    expect(candidate('{"type":"session_end","ts":"x"}')).toBe(true);
  });

  it('rejects type-first lines of other types, even when they mention a delegation', () => {
    expect(candidate(llmRound)).toBe(false);
    expect(candidate(line('transcript_item', TS(1), { delegation_id: D, text: 'delegation_started' }))).toBe(false);
    expect(candidate('{"type":"delegation_started_but_longer","ts":"x"}')).toBe(false);
    expect(candidate('{"type":"')).toBe(false);
  });

  it('takes a type name written with JSON escapes (the same name to JSON.parse), at any position', async () => {
    const escaped = started.replace('"type":"delegation_started"', '"type":"delegation\\u005fstarted"');
    const first = subStarted.replace('"type":"delegation_sub_run_started"', '"type":"\\u0064elegation_sub_run_started"');
    expect(candidate(escaped)).toBe(true);
    expect(candidate(first)).toBe(true);
    const { events, stats } = await scan(file(journal(escaped, first, llmRound)));
    expect(events.map((e) => e.type)).toEqual(['delegation_started', 'delegation_sub_run_started']);
    expect(stats).toMatchObject({ candidateLines: 2, malformedLines: 0 });
  });

  it('falls back to a byte search when `type` is not the first key or is spaced', () => {
    expect(candidate(JSON.stringify({ ts: TS(1), type: 'delegation_started', metadata: { delegation_id: D } }))).toBe(true);
    expect(candidate(JSON.stringify({ ts: TS(1), type: 'DelegationCompleted', metadata: {} }))).toBe(true);
    expect(candidate(JSON.stringify({ ts: TS(1), type: 'SyncMarker' }))).toBe(true);
    expect(candidate('{ "type": "session_end", "ts": "x" }')).toBe(true);
    expect(candidate(JSON.stringify({ ts: TS(1), type: 'turn', user_input: 'hello' }))).toBe(false);
  });
});

describe('scanFile', () => {
  it("keeps the last whole line's time apart from a torn last line's", async () => {
    // A session that went on, then crashed mid-write: its whole lines still say when it went on.
    const torn = `${journal(started, JSON.stringify({ type: 'turn', ts: TS(30), turn: 2 }))}{"type":"llm_round","ts":"${TS(31)}","text":"cut`;
    const { stats } = await scan(file(torn));
    expect(stats).toMatchObject({ lastLine: 3, lastWholeLine: 2, partialLines: 1, lastTs: TS(31) });
    expect(stats.lastWholeTime?.ms).toBe(Date.parse(TS(30)));
    const whole = await scan(file(journal(started, JSON.stringify({ type: 'turn', ts: TS(30), turn: 2 }))));
    expect(whole.stats.lastWholeTime).toEqual(whole.stats.lastTime);
  });

  it('keeps delegation events with 1-based line numbers and counts every line', async () => {
    const p = file(journal(JSON.stringify({ type: 'session_start', ts: TS(0), session_id: 's' }), started, llmRound, subStarted, '', subDone, completed));
    const { events, stats } = await scan(p);
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['delegation_started', 2],
      ['delegation_sub_run_started', 4],
      ['delegation_sub_run_completed', 6],
      ['delegation_completed', 7],
    ]);
    expect(stats).toMatchObject({ lines: 7, candidateLines: 4, malformedLines: 0, partialLines: 0, lastLine: 7, lastTs: TS(4), error: null });
    expect(stats.bytes).toBe(Buffer.byteLength(journal(JSON.stringify({ type: 'session_start', ts: TS(0), session_id: 's' }), started, llmRound, subStarted, '', subDone, completed)));
    expect(events.every((e) => e.file === path.basename(p) && e.fileIndex === 0)).toBe(true);
  });

  it('reads gzip data under a plain name (a link to an archive, `.GZ`) as the archive it is, small or streamed', async () => {
    const text = journal(started, llmRound, subStarted, subDone, completed);
    const big = journal(...Array.from({ length: 3000 }, (_, i) => JSON.stringify({ type: 'turn', ts: TS(0), session_id: 's', turn: i, text: `${i} ${Math.random()}`.repeat(20) })), started, subStarted, subDone, completed);
    for (const [content, lines] of [[text, 5], [big, 3004]] as const) {
      const { events, stats } = await scan(file(gzipSync(content), `g${n++}.jsonl`));
      expect(events.map((e) => e.type)).toEqual(['delegation_started', 'delegation_sub_run_started', 'delegation_sub_run_completed', 'delegation_completed']);
      expect(stats).toMatchObject({ lines, malformedLines: 0, partialLines: 0, error: null });
    }
  });

  it('reads a type key that is not first (the pre-filter fallback) and PascalCase types', async () => {
    const reordered = JSON.stringify({ ts: TS(1), session_id: 's', metadata: { delegation_id: D, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'], agent_count: 1 }, type: 'delegation_started' });
    const pascal = line('DelegationCompleted', TS(2), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 0, succeeded: 0, failed: 0, aggregated_status: 'failed' });
    const { events } = await scan(file(journal(reordered, pascal)));
    expect(events.map((e) => e.type)).toEqual(['delegation_started', 'delegation_completed']);
  });

  it('handles CRLF line endings and a UTF-8 byte order mark', async () => {
    const text = `\ufeff${[started, subStarted, completed].join('\r\n')}\r\n`;
    const { events, stats } = await scan(file(text));
    expect(events.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(stats).toMatchObject({ malformedLines: 0, lines: 3, partialLines: 0 });
    expect(events[2].ts).toBe(TS(4));
  });

  it('counts a last line without a newline as partial, not malformed', async () => {
    const truncated = completed.slice(0, 60);
    const { events, stats } = await scan(file(`${started}\n${subStarted}\n${truncated}`));
    expect(events).toHaveLength(2);
    expect(stats).toMatchObject({ partialLines: 1, malformedLines: 0, lines: 3, lastLine: 3 });
  });

  it('keeps a complete event on an unterminated last line, still flagged partial', async () => {
    const { events, stats } = await scan(file(`${started}\n${completed}`));
    expect(events.map((e) => e.type)).toEqual(['delegation_started', 'delegation_completed']);
    expect(stats.partialLines).toBe(1);
  });

  it('counts malformed and missing-field lines and goes on reading', async () => {
    const p = file(
      journal(
        started,
        'not json at all',
        '{"type":"llm_round","ts":"2025-11-03T09:1', // cut short by a crash, then appended to
        `  ${llmRound}  `, // odd spacing, still an object: not counted
        '\u0000'.repeat(32),
        '{"type":"delegation_sub_run_started","ts":"x","metadata":{"delegation_id":', // broken candidate
        line('delegation_sub_run_started', TS(2), { delegation_id: D }), // no sub_run_id
        JSON.stringify({ type: 'delegation_retry', ts: TS(2), session_id: 's' }), // no metadata
        JSON.stringify({ type: 'delegation_retry', ts: TS(2), metadata: 'odd' }), // non-object metadata
        line('delegation_completed', 'later', { delegation_id: D }), // bad timestamp: kept
        '   ',
        completed,
      ),
    );
    const { events, stats } = await scan(p);
    expect(events.map((e) => e.type)).toEqual(['delegation_started', 'delegation_completed', 'delegation_completed']);
    expect(stats).toMatchObject({ malformedLines: 5, missingFieldLines: 2, badTimestampLines: 1, partialLines: 0, lines: 12, lastLine: 12 });
  });

  it('reads gzip archives', async () => {
    const p = file(gzipSync(journal(started, llmRound, completed)), 'arch.jsonl.gz');
    const { events, stats } = await scan(p);
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['delegation_started', 1],
      ['delegation_completed', 3],
    ]);
    expect(stats.error).toBeNull();
  });

  it('reports a corrupt gzip as a file error and keeps what it could read', async () => {
    const gz = gzipSync(journal(started, ...Array.from({ length: 2000 }, () => llmRound), completed));
    const p = file(Buffer.concat([gz.subarray(0, Math.floor(gz.length / 2)), Buffer.alloc(64, 0x41)]), 'corrupt.jsonl.gz');
    const { events, stats } = await scan(p);
    expect(stats.error).toMatch(/gzip|unexpected end|incorrect|invalid/i);
    expect(events.map((e) => e.type)).toContain('delegation_started');
    expect(events.map((e) => e.type)).not.toContain('delegation_completed');
  });

  it('reads a line much longer than one read chunk', async () => {
    const huge = 'x'.repeat(2.5 * 1024 * 1024 + 17);
    const big = ev.completed(TS(4), { delegation_id: D, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: huge });
    const { events, stats } = await scan(file(journal(started, llmRound, big, subStarted)));
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['delegation_started', 1],
      ['delegation_completed', 3],
      ['delegation_sub_run_started', 4],
    ]);
    const done = events[1];
    expect(done.type === 'delegation_completed' && done.aggregatedOutputPreview?.length).toBe(huge.length);
    expect(stats).toMatchObject({ lines: 4, malformedLines: 0 });
  });

  it('drops exact repeats of lines a sibling already produced when given a shared map', async () => {
    const seen = new Map<string, number>();
    const a = await scanFile({ path: file(journal(started, subStarted)), display: 'x.jsonl', fileIndex: 0, seen });
    const b = await scanFile({ path: file(gzipSync(journal(started, subStarted, completed)), 'x.jsonl.gz'), display: 'x.jsonl.gz', fileIndex: 1, seen });
    expect(a.events).toHaveLength(2);
    expect(b.events.map((e) => e.type)).toEqual(['delegation_completed']);
    expect(b.stats.duplicateLines).toBe(2);
  });

  it('keeps a line repeated within one file: only a sibling can repeat it', async () => {
    // The same completion journaled twice in the .jsonl (two events, as in a file alone); the
    // archive holds one copy of it, already read.
    const seen = new Map<string, number>();
    const a = await scanFile({ path: file(journal(started, completed, completed)), display: 'y.jsonl', fileIndex: 0, seen });
    const b = await scanFile({ path: file(gzipSync(journal(completed, completed)), 'y.jsonl.gz'), display: 'y.jsonl.gz', fileIndex: 1, seen });
    expect(a.events.map((e) => [e.type, e.line])).toEqual([['delegation_started', 1], ['delegation_completed', 2], ['delegation_completed', 3]]);
    expect(a.stats.duplicateLines).toBe(0);
    expect(b.events).toEqual([]);
    expect(b.stats.duplicateLines).toBe(2);
  });

  it('says why a path cannot be read instead of throwing', async () => {
    expect((await scan(path.join(dir, 'missing.jsonl'))).stats.error).toBe('no such file');
    expect((await scan(dir)).stats.error).toBe('not a regular file');
  });
});

describe('scanStream', () => {
  it('gives the same events whatever the chunk boundaries (byte-by-byte stream)', async () => {
    const text = `\ufeff${[started, llmRound, subStarted, subDone].join('\r\n')}\r\n${completed}`;
    const whole = await scanStream(Readable.from([Buffer.from(text)]), { display: '<stdin>', fileIndex: 0 });
    const bytes = Buffer.from(text);
    const split = await scanStream(Readable.from(Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1))), { display: '<stdin>', fileIndex: 0 });
    expect(split.events).toEqual(whole.events);
    expect(split.stats).toEqual(whole.stats);
    expect(whole.events).toHaveLength(4);
    expect(whole.stats).toMatchObject({ partialLines: 1, malformedLines: 0, lines: 5 });
  });
});

describe('lines longer than SKIP_LONG_LINE_AFTER', () => {
  const LONG = SKIP_LONG_LINE_AFTER * 2 + 123;
  /** An llm_round line whose text is `fill` (short or long), then `tail` (how it ends), as a test journal line. */
  const round = (fill: number, tail: string) => `{"type":"llm_round","ts":"${TS(6)}","session_id":"s","text":"${'y'.repeat(fill)}${tail}`;
  // The endings a line can have: whole, with blanks or a CR before the newline, cut short.
  const tails = ['"}', '"}  ', '"}\r', '"}\t \r', '"}\r ', '"', '"} x', '"}}'];
  /**
   * Feeds the text to a scanner in pieces of `piece` bytes (archives and stdin arrive in pieces
   * too); piece 0: 64 KiB pieces, but the bytes near each newline one at a time.
   */
  function feed(text: string, piece: number) {
    const bytes = Buffer.from(text);
    const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
    if (piece > 0) for (let i = 0; i < bytes.length; i += piece) s.push(bytes.subarray(i, i + piece));
    else {
      const nearNewline = (i: number) => bytes.subarray(Math.max(0, i - 6), i + 7).includes(0x0a);
      for (let i = 0; i < bytes.length; ) {
        let j = i + 1;
        if (!nearNewline(i)) while (j < bytes.length && j - i < 1 << 16 && !nearNewline(j)) j++;
        s.push(bytes.subarray(i, j));
        i = j;
      }
    }
    s.finish();
    return { events: s.events, stats: s.stats };
  }
  const counts = ({ stats }: ReturnType<typeof feed>) => ({ lines: stats.lines, lastLine: stats.lastLine, malformed: stats.malformedLines, partial: stats.partialLines, lastTs: stats.lastTs });

  it('count and judge a long line that cannot be an event exactly as a short one', () => {
    for (const tail of tails) {
      for (const last of [false, true]) {
        // The long line in the middle (then the events after it keep their line numbers), or last.
        const lines = last ? [started, subStarted, round(LONG, tail)] : [started, round(LONG, tail), subStarted, completed];
        const short = lines.map((l) => (l.startsWith('{"type":"llm_round"') ? round(3, tail) : l));
        const expected = feed(`${short.join('\n')}\n`, 1 << 16);
        for (const piece of [1 << 16, 1 << 18, 333_333, 0]) {
          const got = feed(`${lines.join('\n')}\n`, piece);
          expect(counts(got), `${JSON.stringify(tail)} ${last ? 'last' : 'middle'} ${piece}`).toEqual(counts(expected));
          expect(got.events, `${JSON.stringify(tail)} ${piece}`).toEqual(expected.events);
        }
        // Without the last newline: a partial last line, counted as such.
        if (last) expect(counts(feed(lines.join('\n'), 1 << 16))).toEqual(counts(feed(short.join('\n'), 1 << 16)));
      }
    }
  });

  it('reads the first line, a line of another shape and a delegation event whole, however long', () => {
    const huge = 'z'.repeat(LONG);
    const bigEvent = ev.subCompleted(TS(3), { delegation_id: D, sub_run_id: 'r-1', agent_id: 'coder', status: 'completed', output_preview: huge });
    const typeNotFirst = `{"ts":"${TS(7)}","note":"${huge}","type":"delegation_retry","metadata":{"delegation_id":"${D}","original_run_id":"r-1","retry_run_id":"r-2","attempt":2,"reason":"x"}}`;
    const { events, stats } = feed(`${round(LONG, '"}')}\n${bigEvent}\n${typeNotFirst}\n${started}\n`, 1 << 18);
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['delegation_sub_run_completed', 2],
      ['delegation_retry', 3],
      ['delegation_started', 4],
    ]);
    expect(events[0].type === 'delegation_sub_run_completed' && events[0].outputPreview?.length).toBe(LONG);
    expect(stats).toMatchObject({ lines: 4, malformedLines: 0, candidateLines: 3 });
  });

  it('does not keep a long first line (BOM and all) or a long session_start in memory, and counts them as short ones', () => {
    for (const head of ['\uFEFF{"type":"llm_round","ts":"x","text":"', '{"type":"session_start","ts":"x","text":"', '{"type":"stall_detected","ts":"x","text":"']) {
      const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
      s.push(Buffer.from(head));
      const before = process.memoryUsage().arrayBuffers;
      const piece = Buffer.alloc(1 << 20, 'y');
      for (let i = 0; i < 24; i++) s.push(piece);
      expect(process.memoryUsage().arrayBuffers - before, head).toBeLessThan(8 * (1 << 20));
      s.push(Buffer.from(`"}\n${started}\n`));
      s.finish();
      expect(s.events.map((e) => [e.type, e.line]), head).toEqual([['delegation_started', 2]]);
      expect(s.stats, head).toMatchObject({ lines: 2, malformedLines: 0, partialLines: 0, candidateLines: 1 });
    }
  });

  it('a delegation line too long for a JavaScript string is counted as oversized, with its own Limits line, not as malformed', async () => {
    const long = ev.subCompleted(TS(3), { delegation_id: D, sub_run_id: 'r-1', agent_id: 'coder', status: 'completed', output_preview: 'p'.repeat(400) });
    const chunk = Buffer.from(`${started}\n${long}\n`);
    const at = chunk.indexOf(long);
    // Decoding the whole line fails as it does past V8's string limit (≈ 512 MiB), which a test cannot allocate.
    chunk.toString = function (this: Buffer, enc?: BufferEncoding, from?: number, to?: number) {
      if (from === at && to === at + Buffer.byteLength(long)) throw new Error('Cannot create a string longer than 0x1fffffe8 characters');
      return Buffer.prototype.toString.call(this, enc, from, to);
    } as Buffer['toString'];
    const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
    s.push(chunk);
    s.finish();
    expect(s.events.map((e) => e.type)).toEqual(['delegation_started']);
    expect(s.stats).toMatchObject({ oversizedLines: 1, malformedLines: 0, candidateLines: 2 });
    expect((await import('../../src/analyze.js')).scanStats({ events: s.events, files: [s.stats] }, 0).oversizedLines).toBe(1);
    const { fileLimits } = await import('../../src/report/build.js');
    expect(fileLimits(s.stats)).toEqual(['j.jsonl: 1 line that may be a delegation event is longer than a JavaScript string can hold (about 512 MiB) and could not be read; findings about its event may be wrong.']);
  });

  it('does not keep such a line in memory, and a file scan of one agrees', async () => {
    const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
    s.push(Buffer.from(`${started}\n`));
    const piece = Buffer.alloc(1 << 20, 'y');
    s.push(Buffer.from(round(0, '')));
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 48; i++) s.push(piece); // 48 MiB of one line
    const grown = process.memoryUsage().arrayBuffers - before;
    expect(s.pendingBytes).toBeGreaterThan(48 * (1 << 20));
    expect(grown).toBeLessThan(8 * (1 << 20)); // collected, it would hold all 48 MiB
    s.push(Buffer.from(`"}\n${completed}\n`));
    s.finish();
    expect(s.pendingBytes).toBe(0);
    expect(s.events.map((e) => [e.type, e.line])).toEqual([
      ['delegation_started', 1],
      ['delegation_completed', 3],
    ]);
    const { events, stats } = await scan(file(journal(started, round(LONG, '"}'), completed)));
    expect(events.map((e) => e.line)).toEqual([1, 3]);
    expect(stats).toMatchObject({ lines: 3, malformedLines: 0, partialLines: 0 });
  });
});

describe('events after damaged bytes on the same line (fixtures/formats/damaged-lines.jsonl is the whole journal)', () => {
  const T = '2025-11-05T07:30:00Z';
  const sub = (run: string) => ev.subStarted(T, { delegation_id: 'd', sub_run_id: run, parent_run_id: 'p', agent_id: 'a' });
  const scan = (content: Buffer | string) => scanFile({ path: file(content), display: 'j', fileIndex: 0 });

  it('reads the whole event after zeros, a torn write or a lost newline, at that line, and counts the damaged line once', async () => {
    const torn = sub('r2');
    const out = await scan(Buffer.concat([Buffer.alloc(64), Buffer.from(`${sub('r1')}\n${torn.slice(0, 20)}${torn}\n${sub('r3')}${sub('r4')}\n`)]));
    expect(out.events.map((e) => [e.type === 'delegation_sub_run_started' && e.subRunId, e.line])).toEqual([
      ['r1', 1],
      ['r2', 2],
      ['r3', 3],
      ['r4', 3],
    ]);
    expect(out.stats.malformedLines).toBe(2); // the zeros and the torn start; two whole events on one line lose nothing
  });

  it('leaves a line alone when no part of it parses, and does not split a string that quotes a line', async () => {
    const out = await scan(`{"type":"delegation_sub_run_sta{"type":"delegation_sub_run_star\n${ev.subCompleted(T, { delegation_id: 'd', sub_run_id: 'r1', agent_id: 'a', status: 'completed', output_preview: '{"type":"x"}' })}\n`);
    expect(out.events.map((e) => e.line)).toEqual([2]);
    expect(out.stats.malformedLines).toBe(1);
  });
});

describe('a line of damaged bytes longer than SKIP_LONG_LINE_AFTER (a zero-filled journal)', () => {
  const ZEROS = SKIP_LONG_LINE_AFTER * 3 + 5;
  /** Zeros, then `after` on the same line, fed in pieces of `piece` bytes (an archive's come in pieces). */
  function feed(after: string, piece: number) {
    const bytes = Buffer.concat([Buffer.from(`${started}\n`), Buffer.alloc(ZEROS), Buffer.from(after)]);
    const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
    for (let i = 0; i < bytes.length; i += piece) s.push(bytes.subarray(i, i + piece));
    s.finish();
    return s;
  }

  it('is counted, not kept, and the events appended after the zeros are read, at its line, whatever the pieces', () => {
    // 7 and 65,537: the `{"type":"` of the event after the zeros is split across two pieces.
    for (const piece of [1 << 16, 65_537, 7 * 1024 + 3, 4096 * 1024]) {
      const s = feed(`${subStarted}${subDone}\n${completed}\n`, piece);
      expect(s.events.map((e) => [e.type, e.line]), String(piece)).toEqual([
        ['delegation_started', 1],
        ['delegation_sub_run_started', 2],
        ['delegation_sub_run_completed', 2],
        ['delegation_completed', 3],
      ]);
      expect(s.stats.malformedLines, String(piece)).toBe(1);
      expect(s.pendingBytes).toBe(0);
    }
  });

  it('keeps no event when the zeros end the line, and none from a tail that is itself longer than the limit', () => {
    expect(feed('\n', 1 << 16).events.map((e) => e.type)).toEqual(['delegation_started']);
    const huge = `{"type":"delegation_completed","x":"${'y'.repeat(SKIP_LONG_LINE_AFTER + 10)}"}\n`;
    const s = feed(huge, 1 << 16);
    expect(s.events.map((e) => e.type)).toEqual(['delegation_started']);
    expect(s.stats.malformedLines).toBe(1);
  });
});

describe('LineScanner.endsInPartialLine (follow mode, which waits for the newline, asks it for a stale report)', () => {
  it('says what finish() would count, without finishing', () => {
    const whole = `${ev.started('2025-01-01T00:00:00Z', { delegation_id: 'd', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] })}\n`;
    const tails = ['', '   \t', '\r', '{"type":"delegation_sub_run_comp', 'x', '\uFEFF', '\uFEFF{', ' {"ty'];
    for (const before of ['', whole]) {
      for (const tail of tails) {
        for (const piece of [1, 3, 1 << 16]) {
          const bytes = Buffer.from(before + tail);
          const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
          for (let i = 0; i < bytes.length; i += piece) s.push(bytes.subarray(i, i + piece));
          const says = s.endsInPartialLine;
          s.finish();
          expect(says, JSON.stringify({ before: before.length, tail, piece })).toBe(s.stats.partialLines > 0);
        }
      }
    }
  });

  it('statsAsFinished gives the counts finish() gives, copying only the head of a long carried line', () => {
    const whole = `${ev.started('2025-01-01T00:00:00Z', { delegation_id: 'd', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder'] })}\n`;
    // A kept event's line, long and not yet ended (an output preview being written): it stays carried in full.
    const torn = `{"type":"delegation_sub_run_completed","ts":"2025-01-01T00:00:09Z","metadata":{"output_preview":"${'z'.repeat(SKIP_LONG_LINE_AFTER - 200)}`;
    const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
    const bytes = Buffer.from(whole + torn);
    for (let i = 0; i < bytes.length; i += 1 << 16) s.push(bytes.subarray(i, i + (1 << 16)));
    const concat = vi.spyOn(Buffer, 'concat');
    let asFinished;
    try {
      asFinished = s.statsAsFinished();
      // Follow mode asks this of every open delegation's journals at each check: not a copy of the whole line each time.
      expect(Math.max(0, ...concat.mock.calls.map(([list, length]) => length ?? list.reduce((n, b) => n + b.length, 0)))).toBeLessThanOrEqual(256);
    } finally {
      concat.mockRestore();
    }
    s.finish();
    const pick = ({ partialLines, lastLine, lastTs, lastTime }: typeof s.stats) => ({ partialLines, lastLine, lastTs, lastTime });
    expect(pick(asFinished)).toEqual(pick(s.stats));
    expect(asFinished.lastTs).toBe('2025-01-01T00:00:09Z');
  });

  it('counts a long torn line it only skims', () => {
    const s = new LineScanner({ display: 'j.jsonl', fileIndex: 0 });
    s.push(Buffer.from('{"type":"llm_round","text":"'));
    s.push(Buffer.alloc(SKIP_LONG_LINE_AFTER, 'y'));
    expect(s.endsInPartialLine).toBe(true);
  });
});
