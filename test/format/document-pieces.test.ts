// OTLP and chrome-trace documents are handed to the writer in pieces (a span or an event each),
// indented exactly as one JSON.stringify of the whole document would indent them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { chromeTracePieces } from '../../src/format/chrome-trace.js';
import { otlpPieces } from '../../src/format/otlp.js';
import { FIXTURES, ROOT, runMain } from '../helpers/cli.js';

const ctx = { color: false, failOn: 'error' as const };
const reportOf = async (tree: string) => (await analyze({ cwd: ROOT, sessions: [path.join(FIXTURES, tree)], all: true, checkOptions: { nowMs: Date.parse('2030-01-01T00:00:00Z') } })).report;

describe('documents in pieces', () => {
  it('otlp: a piece per span, and the whole is JSON.stringify(…, null, 2) of itself', async () => {
    for (const tree of ['sessions', 'join', 'hostile', 'safe']) {
      const pieces = [...otlpPieces(await reportOf(tree), ctx)];
      const text = pieces.join('');
      const body = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
      const spans = body.resourceSpans[0].scopeSpans[0].spans.length;
      expect(spans, tree).toBeGreaterThan(0);
      expect(pieces.length, tree).toBe(spans + 2);
      expect(text, tree).toBe(`${JSON.stringify(body, null, 2)}\n`);
    }
  });

  it('otlp: no span, an empty envelope', async () => {
    const report = { ...(await reportOf('sessions')), delegations: [] };
    expect([...otlpPieces(report, ctx)].join('')).toBe('{\n  "resourceSpans": []\n}\n');
  });

  it('chrome-trace: a piece per event', async () => {
    for (const tree of ['sessions', 'join', 'hostile']) {
      const pieces = [...chromeTracePieces(await reportOf(tree), ctx)];
      const trace = JSON.parse(pieces.join('')) as { traceEvents: unknown[] };
      expect(pieces.length, tree).toBe(trace.traceEvents.length + 2);
    }
  });

  it('the CLI writes the pieces as the formatter joins them', async () => {
    for (const format of ['otlp', 'chrome-trace', 'html']) {
      const r = await runMain(['--sessions', path.join(FIXTURES, 'join'), '--all', '--format', format, '--fail-on', 'none']);
      const { FORMATTERS } = await import('../../src/format/index.js');
      expect(r.code).toBe(0);
      expect(Buffer.from(r.stdout), format).toEqual(Buffer.from(FORMATTERS[format as 'otlp'](await reportOf('join'), ctx)));
    }
  });
});
