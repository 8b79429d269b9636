// Whole-document formats (html, sarif, …) of a whole tree or a named target are rendered from
// report blocks built through the event index, not from every event in memory: same bytes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import * as analysis from '../../src/analyze.js';
import { FIXTURES, ROOT, runMain } from '../helpers/cli.js';

// Spied on, to tell which road a run took (the bytes are the same on both).
vi.mock('../../src/analyze.js', async (original) => {
  const m = await original<typeof import('../../src/analyze.js')>();
  return { ...m, prepareStreamedAll: vi.fn(m.prepareStreamedAll), prepareStreamedTarget: vi.fn(m.prepareStreamedTarget) };
});

const FORMATS = ['html', 'sarif', 'junit', 'markdown', 'github', 'otlp', 'chrome-trace'];
const ENV = { TRACE_DELEGATION_NOW: '2030-01-01T00:00:00Z' };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'td-docfmt-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('whole-document formats through the event index', () => {
  it('--all reports as in memory in every format, on stdout and through --output', async () => {
    for (const tree of ['sessions', 'join', 'safe', 'checks/totals-mismatch', 'checks/failed-in-aggregate', 'hostile'].map((t) => path.join(FIXTURES, t))) {
      for (const format of FORMATS) {
        const out = (mode: string) => path.join(tmp, `${path.basename(tree)}-${format}-${mode}`);
        const args = (mode: string) => ['--sessions', tree, '--all', '--format', format, '-o', `json=${out(mode)}`];
        vi.mocked(analysis.prepareStreamedAll).mockClear();
        const indexed = await runMain(args('indexed'), { env: ENV });
        expect(analysis.prepareStreamedAll, `${tree} ${format}`).toHaveBeenCalledOnce();
        const inMemory = await runMain(args('memory'), { env: { ...ENV, TRACE_DELEGATION_INDEXED: '0' } });
        expect(indexed.stdout.length, `${tree} ${format}`).toBeGreaterThan(0);
        expect(indexed, `${tree} ${format}`).toEqual(inMemory);
        const steady = (file: string) => readFileSync(file, 'utf8').replace(/"durationMs": \d+/, '"durationMs": 0');
        expect(steady(out('indexed'))).toBe(steady(out('memory')));
      }
    }
  });

  it('a named target (id, prefix, parent run, unknown) reports as in memory', async () => {
    const tree = path.join(FIXTURES, 'sessions');
    const { report } = await analysis.analyze({ cwd: ROOT, sessions: [tree], all: true });
    const targets = new Set<string>(['no-such-delegation']);
    for (const d of report.delegations.slice(0, 6)) {
      targets.add(d.id).add(d.id.slice(0, 4));
      if (d.parentRunId) targets.add(d.parentRunId);
    }
    for (const target of targets) {
      for (const format of ['html', 'sarif', 'junit']) {
        const args = ['--sessions', tree, target, '--format', format];
        vi.mocked(analysis.prepareStreamedTarget).mockClear();
        const indexed = await runMain(args, { env: ENV });
        expect(analysis.prepareStreamedTarget, `${target} ${format}`).toHaveBeenCalledOnce();
        const inMemory = await runMain(args, { env: { ...ENV, TRACE_DELEGATION_INDEXED: '0' } });
        expect(indexed, `${target} ${format}`).toEqual(inMemory);
      }
    }
  });
});
