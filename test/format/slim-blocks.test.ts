// A run writing only sarif, junit or github keeps slim report blocks (no children, limits or
// aggregate preview, one timeline entry): the documents must be the ones the full blocks give.
import path from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { buildTraceReport, prepareAnalysis } from '../../src/analyze.js';
import { blockKeeperFor, FORMATTERS } from '../../src/format/index.js';
import { FIXTURES, ROOT, runMain } from '../helpers/cli.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const trees = ['sessions', 'checks', 'formats', 'join', 'safe', 'hostile'].map((t) => path.join(FIXTURES, t));

describe('slim report blocks', () => {
  it('are kept only when every format of the run reads no more than they hold', () => {
    for (const formats of [['sarif'], ['junit'], ['github'], ['sarif', 'junit', 'github']]) expect(blockKeeperFor(formats), formats.join()).toBeTypeOf('function');
    for (const formats of [['json'], ['sarif', 'html'], ['junit', 'markdown'], ['github', 'otlp'], ['chrome-trace'], ['text'], ['ndjson']]) expect(blockKeeperFor(formats), formats.join()).toBeUndefined();
  });

  it('drop what those formats do not read', async () => {
    const opts = { cwd: ROOT, sessions: [path.join(FIXTURES, 'sessions')], all: true, checkOptions: { nowMs: NOW } };
    const prepared = await prepareAnalysis(opts);
    const full = buildTraceReport(prepared.scan, prepared, opts, prepared).delegations;
    const slim = full.map(blockKeeperFor(['sarif'])!);
    expect(full.some((d) => d.children.length > 0 && d.timeline.length > 1 && d.limits.length > 0 && d.status.aggregatedOutputPreview)).toBe(true);
    for (const d of slim) expect([d.children, d.limits, d.timeline.length, d.status.aggregatedOutputPreview]).toEqual([[], [], Math.min(1, d.timeline.length), null]);
    expect(slim.map((d) => d.findings)).toEqual(full.map((d) => d.findings));
  });

  for (const format of ['sarif', 'junit', 'github'] as const) {
    it(`${format}: the document from slim blocks is the one from full blocks, on every fixture tree and threshold`, async () => {
      const keep = blockKeeperFor([format])!;
      for (const tree of trees) {
        const opts = { cwd: ROOT, sessions: [tree], all: true, checkOptions: { nowMs: NOW } };
        const prepared = await prepareAnalysis(opts);
        const report = buildTraceReport(prepared.scan, prepared, opts, prepared);
        for (const failOn of ['error', 'info', 'none'] as const) {
          const ctx = { color: false, failOn };
          expect(FORMATTERS[format]({ ...report, delegations: report.delegations.map(keep) }, ctx), `${tree} ${failOn}`).toBe(FORMATTERS[format](report, ctx));
        }
      }
    });
  }

  it('the CLI writes the same bytes with slim blocks (sarif alone) as with full ones (sarif beside json)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'td-slim-'));
    try {
      const env = { TRACE_DELEGATION_NOW: '2030-01-01T00:00:00Z' };
      for (const tree of trees) {
        const slim = await runMain(['--sessions', tree, '--all', '--format', 'sarif', '-o', `junit=${path.join(dir, 'a.xml')}`], { env });
        const full = await runMain(['--sessions', tree, '--all', '--format', 'sarif', '-o', `junit=${path.join(dir, 'b.xml')}`, '-o', `json=${path.join(dir, 'b.json')}`], { env });
        expect(slim, tree).toEqual(full);
        expect(readFileSync(path.join(dir, 'a.xml'), 'utf8'), tree).toBe(readFileSync(path.join(dir, 'b.xml'), 'utf8'));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--format github and the scan limits', () => {
  it('says on stderr what the scan could not read, streamed or beside an --output (an unreadable tree does not pass for a clean one)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'td-github-limits-'));
    try {
      writeFileSync(path.join(dir, 'b.jsonl.gz'), Buffer.from('1f8b0800', 'hex'));
      for (const extra of [[], ['-o', `json=${path.join(dir, 'out.json')}`]]) {
        const r = await runMain(['--sessions', dir, '--all', '--format', 'github', ...extra]);
        expect([r.code, r.stdout], extra.join(' ')).toEqual([0, '']);
        expect(r.stderr, extra.join(' ')).toMatch(/^trace-delegation: scan limit: .*b\.jsonl\.gz: corrupt gzip data \(.*\); not read\.\n$/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
