// A page of many delegations opens fast: sections off screen are not laid out until they are
// scrolled to (content-visibility), yet links to their bars, the print layout and text search
// still reach them.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const N = 120;

/** N delegations, each with a failed child hidden in a fine-looking aggregate (a finding each). */
function manyDelegations(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    const t = (s: number) => new Date(Date.UTC(2026, 2, 10, 10, 0, 0) + i * 60_000 + s * 1000).toISOString();
    const d = `deleg-${String(i).padStart(3, '0')}`;
    lines.push(
      ev.started(t(0), { delegation_id: d, parent_run_id: `p-${i}`, pattern: 'fan_out', agent_ids: ['a', 'b'] }),
      ev.subStarted(t(1), { delegation_id: d, sub_run_id: `${d}-run-a`, parent_run_id: `p-${i}`, agent_id: 'a' }),
      ev.subStarted(t(1), { delegation_id: d, sub_run_id: `${d}-run-b`, parent_run_id: `p-${i}`, agent_id: 'b' }),
      ev.subCompleted(t(5), { delegation_id: d, sub_run_id: `${d}-run-a`, agent_id: 'a', status: 'completed', output_preview: `answer ${i}` }),
      ev.subCompleted(t(6), { delegation_id: d, sub_run_id: `${d}-run-b`, agent_id: 'b', status: 'failed', error: `boom ${i}` }),
      ev.completed(t(7), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'completed', aggregated_output_preview: `answer ${i}` }),
    );
  }
  return journal(...lines);
}

describe.skipIf(!haveChromium)('a long html page in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  let page: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run'] });
    dir = mkdtempSync(path.join(tmpdir(), 'td-html-long-'));
    const r = await runBin(['--stdin', '--all', '--format', 'html', '--fail-on', 'none'], { input: manyDelegations() });
    expect(r.code).toBe(0);
    page = path.join(dir, 'long.html');
    writeFileSync(page, r.stdout);
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('skips laying out the sections off screen, then lays one out when a link leads to its bar', async () => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await p.addInitScript(() => {
      const skipped = new Set<string>();
      (window as unknown as { skipped: Set<string> }).skipped = skipped;
      document.addEventListener('contentvisibilityautostatechange', (e) => ((e as Event & { skipped: boolean }).skipped ? skipped.add((e.target as Element).id) : skipped.delete((e.target as Element).id)), true);
    });
    await p.goto(`file://${page}`);
    const sections = p.locator('main > section.delegation');
    expect(await sections.count()).toBe(N);
    const skipped = () => p.evaluate(() => [...(window as unknown as { skipped: Set<string> }).skipped]);
    await p.waitForTimeout(200);
    expect(await p.evaluate(() => [...document.querySelectorAll('main > section.delegation')].every((s) => getComputedStyle(s).contentVisibility === 'auto'))).toBe(true);
    // Chromium says which sections it skips: all but the few in view.
    const before = await skipped();
    expect(before.length).toBeGreaterThan(N - 10);
    expect(before).toContain(`d${N - 1}`);
    // The last delegation's failed run, reached from the overview's link to its section.
    const last = `d${N - 1}`;
    await p.click(`section.overview a[href="#${last}"]`);
    await p.waitForTimeout(200);
    const box = await p.locator(`#${last}`).boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeLessThan(900);
    expect(box!.y + box!.height).toBeGreaterThan(0);
    const bar = await p.locator(`#${last} g[id] .shape`).first().boundingBox();
    expect(bar!.width).toBeGreaterThan(10);
    expect(await skipped()).not.toContain(last);
    expect(await skipped()).toContain('d0'); // scrolled away
    await p.close();
  });

  it('finds text of a section off screen, and prints every section', async () => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await p.goto(`file://${page}`);
    // window.find searches skipped content as the user's find-in-page does.
    expect(await p.evaluate(() => (window as unknown as { find: (s: string) => boolean }).find(`boom ${119}`))).toBe(true);
    await p.emulateMedia({ media: 'print' });
    expect(await p.evaluate(() => [...document.querySelectorAll('main > section.delegation')].every((s) => getComputedStyle(s).contentVisibility === 'visible'))).toBe(true);
    await p.close();
  });
});
