// A delegation chain nested hundreds deep (an agent that delegates to itself): the page indents the
// first levels only, so the deepest section is as wide as the sixth and says how deep it is.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LEVELS = 12;

/** d0 runs r0, which starts d1, which runs r1, … down to d11. */
function chain(): string {
  const lines: string[] = [];
  const T = (s: number) => new Date(Date.UTC(2025, 10, 7, 8) + s * 1000).toISOString();
  for (let k = 0; k < LEVELS; k++) {
    const parent = k === 0 ? 'top' : `r${k - 1}`;
    lines.push(ev.started(T(2 * k), { delegation_id: `d${k}`, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['a'] }));
    lines.push(ev.subStarted(T(2 * k + 1), { delegation_id: `d${k}`, sub_run_id: `r${k}`, parent_run_id: parent, agent_id: 'a' }));
  }
  for (let k = LEVELS - 1; k >= 0; k--) {
    const t = T(100 - k);
    lines.push(ev.subCompleted(t, { delegation_id: `d${k}`, sub_run_id: `r${k}`, agent_id: 'a', status: 'completed', output_preview: 'ok' }));
    lines.push(ev.completed(t, { delegation_id: `d${k}`, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }));
  }
  return journal(...lines);
}

describe.skipIf(!existsSync(CHROMIUM))('html of a deeply nested delegation chain', () => {
  let browser: Browser;
  let dir: string;
  let page: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run'] });
    dir = mkdtempSync(path.join(tmpdir(), 'td-html-deep-'));
    writeFileSync(path.join(dir, 'j.jsonl'), chain());
    const r = await runBin(['--sessions', dir, '--all', '--format', 'html', '--fail-on', 'none']);
    expect(r.code).toBe(0);
    page = path.join(dir, 'deep.html');
    writeFileSync(page, r.stdout);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('indents six levels, then lines deeper sections up with the sixth and names their level', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await context.newPage();
    await tab.goto(`file://${page}`);
    // The heading of each delegation's section, outermost first.
    const lefts = await tab.$$eval('section.delegation > header h2', (hs) => hs.map((h) => Math.round(h.getBoundingClientRect().left)));
    expect(lefts).toHaveLength(LEVELS);
    for (let k = 1; k <= 6; k++) expect(lefts[k]).toBeGreaterThan(lefts[k - 1]);
    for (let k = 7; k < LEVELS; k++) expect(lefts[k]).toBe(lefts[6]);
    const summaries = await tab.$$eval('details.nested > summary', (ss) => ss.map((s) => s.textContent ?? ''));
    expect(summaries[5]).not.toContain('nesting level');
    expect(summaries[6]).toContain('(nesting level 7)');
    expect(summaries[LEVELS - 2]).toContain(`(nesting level ${LEVELS - 1})`);
    // The overview indents the same way: the deepest rows as far as the sixth, with their level.
    const rows = await tab.$$eval('section.overview tbody tr td:first-child', (tds) =>
      tds.map((td) => {
        const indent = td.querySelector('.indent');
        return { pad: indent ? parseFloat(getComputedStyle(indent).paddingLeft) : 0, text: td.textContent ?? '' };
      }),
    );
    expect(rows[6].pad).toBeGreaterThan(rows[5].pad);
    expect(rows[LEVELS - 1].pad).toBe(rows[6].pad);
    expect(rows[6].text).toBe('↳ d6');
    expect(rows[LEVELS - 1].text).toBe('↳11 d11');
    await context.close();
  });
});
