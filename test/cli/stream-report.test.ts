// text, json, ndjson and github reports are written delegation by delegation; the bytes must be exactly what
// the formatters return for the whole report, on every fixture tree and target kind.
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { buildTraceReport, prepareAnalysis, type AnalyzeOptions } from '../../src/analyze.js';
import { writeReportStream } from '../../src/cli/stream-report.js';
import { FORMATTERS } from '../../src/format/index.js';
import { FIXTURES, ROOT } from '../helpers/cli.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');

/** The duration is measured, so two runs differ only there. */
const steady = (s: string) => s.replace(/"durationMs": \d+/, '"durationMs": 0');

async function both(options: AnalyzeOptions, format: string, failOn: 'error' | 'warning' | 'none' = 'error') {
  const opts = { cwd: ROOT, checkOptions: { nowMs: NOW }, ...options };
  const ctx = { color: format === 'text', failOn };
  const prepared = await prepareAnalysis(opts);
  const whole = FORMATTERS[format](buildTraceReport(prepared.scan, prepared, opts, prepared), ctx);
  const sink = new PassThrough({ highWaterMark: 64 }); // a slow reader: the writer must wait for drain
  const chunks: Buffer[] = [];
  sink.on('data', (d: Buffer) => chunks.push(d));
  const code = await writeReportStream(sink, format, await prepareAnalysis(opts), opts, ctx);
  // Compared as the UTF-8 bytes a reader gets (hostile journals hold lone surrogates).
  const bytes = (s: string) => Buffer.from(s).toString('latin1');
  return { whole: steady(bytes(whole)), streamed: steady(Buffer.concat(chunks).toString('latin1')), code };
}

const trees = ['sessions', 'checks', 'formats', 'join', 'safe', 'hostile'].map((t) => path.join(FIXTURES, t));

describe('streamed report', () => {
  for (const format of ['json', 'ndjson', 'text', 'github']) {
    it(`${format}: --all on every fixture tree is byte for byte the formatter's output`, async () => {
      for (const tree of trees) {
        const { whole, streamed } = await both({ sessions: [tree], all: true }, format);
        expect(streamed, tree).toBe(whole);
      }
    });

    it(`${format}: last, a session, and a tree without delegations`, async () => {
      const demo = path.join(FIXTURES, 'sessions');
      const last = await both({ sessions: [demo] }, format);
      expect(last.streamed).toBe(last.whole);
      const prepared = await prepareAnalysis({ sessions: [demo], cwd: ROOT, all: true });
      const session = prepared.delegations[0].sessions[0];
      const bySession = await both({ sessions: [demo], target: session }, format);
      expect(bySession.streamed).toBe(bySession.whole);
      const none = await both({ sessions: [path.join(FIXTURES, 'contracts', 'plans')], all: true }, format);
      expect(none.streamed).toBe(none.whole);
    });
  }

  it('returns the exit code the findings call for', async () => {
    const demo = path.join(FIXTURES, 'sessions');
    const failing = await both({ sessions: [demo], all: true }, 'json', 'warning');
    const { summary } = JSON.parse(Buffer.from(failing.whole, 'latin1').toString());
    expect(failing.code).toBe(summary.error + summary.warning > 0 ? 1 : 0);
    expect((await both({ sessions: [demo], all: true }, 'json', 'none')).code).toBe(0);
  });
});

describe('the report duration', () => {
  it('is 0, never negative, when the report has no start time (follow mode builds it so)', async () => {
    const opts = { cwd: ROOT, sessions: [path.join(FIXTURES, 'sessions')], checkOptions: { nowMs: NOW } };
    const prepared = await prepareAnalysis(opts);
    // A clock that moves 1 ms at every reading: a duration read as "now − (start ?? now)" with
    // two readings comes out −1.
    let tick = 0n;
    const clock = vi.spyOn(process.hrtime, 'bigint').mockImplementation(() => (tick += 1_000_000n));
    try {
      const report = buildTraceReport(prepared.scan, prepared, opts, {});
      expect(report.stats.durationMs).toBe(0);
    } finally {
      clock.mockRestore();
    }
  });
});
