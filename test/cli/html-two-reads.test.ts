// `--format html` of a tree is written from two reads of its delegations (src/cli/html-page.ts):
// small facts from the first, each section from the second as it is due. Same bytes as the page
// of the whole report in memory, without holding the report's blocks.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze, prepareAnalysis, prepareStreamedAll, type AnalyzeOptions, type ReportSource } from '../../src/analyze.js';
import { readForHtml } from '../../src/cli/html-page.js';
import { formatHtml, pagePieces } from '../../src/format/html.js';
import { PageFacts } from '../../src/format/html/facts.js';
import type { ReportItem } from '../../src/model/component-stream.js';
import { FIXED_NOW, FIXTURES, ROOT, runMain } from '../helpers/cli.js';

const ctx = { color: false, failOn: 'error' as const };
const registry = { PageFacts, pagePieces };
const options = (tree: string): AnalyzeOptions => ({ cwd: ROOT, sessions: [tree], all: true, checkOptions: { nowMs: Date.parse(FIXED_NOW) } });
const ENV = { TRACE_DELEGATION_NOW: FIXED_NOW };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'td-html-two-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every sessions tree of the fixtures: each folder holding journals (a `v1/users/…` layout counts as its root). */
function fixtureTrees(): string[] {
  const trees = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.jsonl(\.gz)?$/.test(name)) trees.add(dir.replace(/\/v1\/users\/.*$/, ''));
    }
  };
  walk(FIXTURES);
  return [...trees].sort();
}

/** The same source, counting the items its reads have handed out. */
function counted(source: ReportSource): ReportSource & { taken: number[] } {
  const taken: number[] = [];
  return {
    ...source,
    taken,
    items: function* () {
      const read = taken.push(0) - 1;
      for (const item of source.items()) {
        taken[read]++;
        yield item;
      }
    },
  };
}

describe('html from two reads', () => {
  it('is the page of the whole report, on every fixture tree, through the event index and from memory', async () => {
    const trees = fixtureTrees();
    expect(trees.length).toBeGreaterThan(40);
    for (const tree of trees) {
      const { report } = await analyze(options(tree));
      const whole = formatHtml(report, ctx);
      for (const source of [await prepareStreamedAll(options(tree)), await prepareAnalysis(options(tree))]) {
        const two = readForHtml(source, options(tree), 'error', registry, { keepBlocks: false });
        expect(two.report.delegations, tree).toEqual([]); // no blocks kept
        expect([...two.html()].join(''), tree).toBe(whole);
        expect([...two.html()].join(''), `${tree}, read a third time`).toBe(whole);
      }
    }
  });

  it('writes a section as soon as the second read has its delegation, not after reading them all', async () => {
    const tree = path.join(FIXTURES, 'safe');
    const source = counted(await prepareStreamedAll(options(tree)));
    const two = readForHtml(source, options(tree), 'error', registry, { keepBlocks: false });
    const total = source.taken[0];
    expect(total).toBe(42);
    let atFirstSection = -1;
    for (const piece of two.html()) if (atFirstSection < 0 && piece.startsWith('<section class="delegation"')) atFirstSection = source.taken[1];
    expect(atFirstSection).toBeGreaterThan(0);
    expect(atFirstSection).toBeLessThan(4);
    expect(source.taken[1]).toBe(total);
  });

  it('a delegation the second read no longer has gets a section that says so, and its Limits line', async () => {
    const tree = path.join(FIXTURES, 'sessions');
    const source = await prepareAnalysis(options(tree));
    let reads = 0;
    const changing: ReportSource = {
      ...source,
      // The second read misses the nested delegation (its journal changed meanwhile) and says why.
      items: function* (): Generator<ReportItem> {
        reads++;
        for (const item of source.items()) if (reads === 1 || item.delegation.key !== 'b3e8c027-4f1d-4e63-9b58-0a7d2e6c1f94') yield item;
      },
      lateNotes: () => (reads > 1 ? ['1 delegation line changed on disk between the scan and the report; those events are left out: run again.'] : []),
    };
    const page = [...readForHtml(changing, options(tree), 'error', registry, { keepBlocks: false }).html()].join('');
    const { report } = await analyze(options(tree));
    const i = report.delegations.findIndex((d) => d.key === 'b3e8c027-4f1d-4e63-9b58-0a7d2e6c1f94');
    expect(page).toContain(`<section class="delegation" id="d${i}" aria-labelledby="d${i}-h"><header class="dhead"><h2 id="d${i}-h"><span class="kind">Delegation</span> <code class="did">b3e8c027-4f1d-4e63-9b58-0a7d2e6c1f94</code>`);
    expect(page).toContain('Its journal lines changed on disk while the page was written (see Scan limits): run again to see this delegation.');
    expect(page).toMatch(/<h3>Scan limits<\/h3><ul class="limits"><li>1 delegation line changed on disk between the scan and the report; those events are left out: run again.<\/li><\/ul>/);
    // Still one page of balanced sections: the others as they were.
    expect(page.match(/<section[ >]/g)!.length).toBe(page.match(/<\/section>/g)!.length);
    expect(page.match(/<details class="nested"/g)!.length).toBe(1);
    const whole = formatHtml(report, ctx);
    const others = (p: string) => p.replace(/<section class="delegation" id="d5"[\s\S]*?<\/section><\/details>/, '').replace(/<script type="application\/json" id="td-tips">[\s\S]*<\/script>\n<script>/, '').replace(/<h3>Scan limits<\/h3><ul class="limits">.*?<\/ul>/, '');
    expect(i).toBe(5);
    expect(others(page)).toBe(others(whole));
  });

  it('the CLI writes the page on stdout and to --output next to other formats, which keep their own bytes and exit code', async () => {
    for (const tree of ['sessions', 'safe'].map((t) => path.join(FIXTURES, t))) {
      const { report } = await analyze(options(tree));
      const page = formatHtml(report, ctx);
      const html = await runMain(['--sessions', tree, '--all', '--format', 'html', '-o', `html=${path.join(tmp, 'a.html')}`], { env: ENV });
      expect(html.stdout).toBe(page);
      expect(readFileSync(path.join(tmp, 'a.html'), 'utf8')).toBe(page);
      for (const other of ['json', 'sarif', 'markdown']) {
        const alone = await runMain(['--sessions', tree, '--all', '--format', other], { env: ENV });
        const file = path.join(tmp, `${other}.html`);
        const both = await runMain(['--sessions', tree, '--all', '--format', other, '-o', `html=${file}`], { env: ENV });
        const steady = (s: string) => s.replace(/"durationMs": \d+/, '"durationMs": 0');
        expect(steady(both.stdout), `${tree} ${other}`).toBe(steady(alone.stdout));
        expect(both.code, `${tree} ${other}`).toBe(alone.code);
        expect(readFileSync(file, 'utf8'), `${tree} ${other}`).toBe(page);
      }
      // The exit code follows --fail-on without the blocks: sessions has an error finding, safe a warning at most.
      const failing = report.delegations.some((d) => d.findings.some((f) => f.severity === 'error'));
      expect(html.code).toBe(failing ? 1 : 0);
      expect((await runMain(['--sessions', tree, '--all', '--format', 'html', '--fail-on', 'none'], { env: ENV })).code).toBe(0);
    }
    expect(existsSync(path.join(tmp, 'a.html'))).toBe(true);
  });
});
