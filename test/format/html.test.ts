// Browser test of `--format html`: the real binary writes the page, headless Chromium renders it.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, runBin } from '../helpers/cli.js';
import { HOSTILE, HOSTILE_JOURNAL } from './hostile-journal.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test', 'artifacts');
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`Skipping the HTML browser test: Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

/** Runs the binary with --format html and saves the page under test/artifacts/. */
async function writePage(name: string, args: string[], input?: string): Promise<string> {
  const r = await runBin([...args, '--format', 'html', '--fail-on', 'none'], { input });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.html`);
  writeFileSync(file, r.stdout);
  return file;
}

interface Loaded {
  page: Page;
  requests: string[];
  errors: string[];
}

describe.skipIf(!haveChromium)('--format html in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function load(file: string): Promise<Loaded> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (req) => requests.push(req.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`file://${file}`);
    return { page, requests, errors };
  }

  /** Lane agents in drawing order, and each bar's run, status, classes and pixel extent. */
  const layout = (page: Page, section = 'section.delegation') =>
    page.evaluate((sel) => {
      const root = document.querySelector(sel)!;
      const svg = root.querySelector('svg.swimlane')!;
      const lanes = [...svg.querySelectorAll('.lane')].map((l) => ({ agent: l.getAttribute('data-agent'), bars: [...l.querySelectorAll('.bar')].map((b) => b.getAttribute('data-run')) }));
      const bars = [...svg.querySelectorAll('.bar')].map((b) => {
        const r = b.querySelector('.shape')!.getBoundingClientRect();
        return { id: b.id, run: b.getAttribute('data-run'), status: b.getAttribute('data-status'), cls: b.getAttribute('class'), left: r.left, right: r.right, width: r.width };
      });
      const x = (q: string) => {
        const l = svg.querySelector(q);
        return l ? l.getBoundingClientRect().left : null;
      };
      return { lanes, bars, join: x('.join-line line'), start: x('.start-line line') };
    }, section);

  it('join contract: lanes, bars, findings, and the late APAC bar right of the join line', async () => {
    const file = await writePage('html-join-late', ['--sessions', path.join(FIXTURES, 'formats', 'join-late.jsonl'), '--all']);
    const { page, requests, errors } = await load(file);
    const l = await layout(page);
    expect(l.lanes.map((x) => x.agent)).toEqual(['eu', 'us', 'apac']);
    expect(l.bars.map((b) => [b.run, b.status])).toEqual([
      ['r42-eu', 'completed'],
      ['r42-us', 'failed'],
      ['r42-apac', 'completed'],
    ]);
    const bar = Object.fromEntries(l.bars.map((b) => [b.run, b]));
    expect(l.join).not.toBeNull();
    expect(l.start).not.toBeNull();
    // Every bar starts after the start line; EU and US end before the join, APAC after it.
    for (const b of l.bars) expect(b.left).toBeGreaterThanOrEqual(l.start! - 1);
    expect(bar['r42-eu'].right).toBeLessThan(l.join!);
    expect(bar['r42-us'].right).toBeLessThan(l.join!);
    expect(bar['r42-apac'].right).toBeGreaterThan(l.join! + 20);
    expect(bar['r42-apac'].cls).toContain('late');
    expect(bar['r42-eu'].cls).not.toContain('late');
    // Time is linear: EU ends at 8 s, US at 12 s, join at 20 s, APAC at 25 s (start line at 0 s).
    const perSecond = (l.join! - l.start!) / 20;
    expect(bar['r42-eu'].right).toBeCloseTo(l.start! + 8 * perSecond, -0.5);
    expect(bar['r42-apac'].right).toBeCloseTo(l.start! + 25 * perSecond, -0.5);

    // The late-result finding is listed and links to the APAC bar; following the link targets it.
    const late = page.locator('li.finding', { has: page.locator('.fid', { hasText: 'late-result' }) });
    await expect(late.count()).resolves.toBe(1);
    const link = late.locator('a.run-link');
    await expect(link.getAttribute('href')).resolves.toBe(`#${bar['r42-apac'].id}`);
    await link.click();
    await expect(page.evaluate(() => document.querySelector(':target')?.getAttribute('data-run'))).resolves.toBe('r42-apac');

    // Hovering shows the card: run id, times, late note and output preview.
    await page.hover(`#${bar['r42-apac'].id} .shape`);
    const tip = page.locator('#td-tip');
    await expect(tip.isVisible()).resolves.toBe(true);
    const text = await tip.innerText();
    expect(text).toContain('run r42-apac');
    expect(text).toContain('2025-11-03T10:00:25.000000000+00:00');
    expect(text).toContain('+5s after the join');
    expect(text).toContain('APAC price 110 (run r42)');
    await page.hover(`#${bar['r42-us'].id} .shape`);
    await expect(tip.innerText()).resolves.toContain('upstream price feed returned 503');

    await page.mouse.move(5, 5);
    await page.screenshot({ path: path.join(ARTIFACTS, 'html-join-late.png'), fullPage: true });
    expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('retries share a lane, open runs reach the last event, nested delegations are linked children', async () => {
    const file = await writePage('html-nested-retry', ['--sessions', path.join(FIXTURES, 'formats', 'nested-retry.jsonl'), '--all']);
    const { page, errors } = await load(file);
    await expect(page.locator('section.overview tbody tr').count()).resolves.toBe(2);
    const l = await layout(page);
    expect(l.lanes).toEqual([
      { agent: 'planner', bars: ['run-planner'] },
      { agent: 'coder', bars: ['run-coder-1', 'run-coder-2'] },
      { agent: 'reviewer', bars: ['run-reviewer'] },
      { agent: 'tester', bars: [] },
    ]);
    await expect(page.locator('section.delegation >> nth=0').locator('svg .lane[data-agent="tester"] .note').textContent()).resolves.toContain('never started');
    const bar = Object.fromEntries(l.bars.map((b) => [b.run, b]));
    expect(bar['run-coder-1'].status).toBe('verification_failed');
    expect(bar['run-coder-2'].left).toBeGreaterThan(bar['run-coder-1'].right - 1);
    await expect(page.locator('svg .retry-link').count()).resolves.toBe(1);
    // The reviewer never completed: an open bar that runs to the last event seen (the join at 17 s).
    expect(bar['run-reviewer'].cls).toContain('open');
    expect(Math.abs(bar['run-reviewer'].right - l.join!)).toBeLessThan(2);
    // The nested delegation is an expandable child section, linked from a span under the planner bar.
    const nested = page.locator('details.nested section.delegation');
    await expect(nested.count()).resolves.toBe(1);
    const nestedId = await nested.getAttribute('id');
    await expect(page.locator(`#${bar['run-planner'].id} a.nested-span`).getAttribute('href')).resolves.toBe(`#${nestedId}`);
    const inner = await layout(page, `#${nestedId}`);
    expect(inner.lanes.map((x) => x.agent)).toEqual(['researcher', 'writer']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'html-nested-retry.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('hostile journal text renders as text and runs nothing', async () => {
    const file = await writePage('html-hostile', ['--stdin'], HOSTILE_JOURNAL);
    const { page, errors } = await load(file);
    const dom = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      imgs: document.querySelectorAll('img, iframe, textarea').length,
      scripts: document.querySelectorAll('script').length,
      bodyVisible: getComputedStyle(document.body).display !== 'none',
    }));
    expect(dom).toEqual({ pwned: undefined, imgs: 0, scripts: 2, bodyVisible: true });
    const bar = page.locator('svg .bar').filter({ has: page.locator('.shape') }).first();
    await expect(bar.getAttribute('data-run')).resolves.toBe(HOSTILE.runId);
    await bar.locator('.shape').hover();
    const text = await page.locator('#td-tip').innerText();
    expect(text).toContain('<script>window.__pwned = 1</script>');
    expect(text).toContain(HOSTILE.error);
    await expect(page.locator('h2 code.did').innerText()).resolves.toBe(HOSTILE.delegationId);
    expect(errors).toEqual([]);
    await page.close();
  });
});
