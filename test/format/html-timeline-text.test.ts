// The timeline's text as rendered in Chromium: readable on a phone and at 200% zoom (never drawn
// under the page's 11 px small text), lane names kept in view when the figure scrolls sideways,
// and a long status cut to fit its place instead of running over the run id or off the SVG.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

const T = (s: number) => `2026-03-10T10:0${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}Z`;
const HUGE = `UPSTREAM_GATEWAY_REPORTED_${'an unexpected status that goes on and on '.repeat(5)}END`;
const LONG = 'provider_returned_an_unrecognised_terminal_state_while_draining';

/** Long statuses where a label has little room: at the right edge, in short bars, on a diamond. */
const LONG_STATUS = journal(
  ev.started(T(0), { delegation_id: 'long', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a', 'b', 'c', 'd', 'e', 'f'] }),
  ...['a', 'b', 'c', 'e', 'f'].map((x) => ev.subStarted(T({ a: 0, b: 0, c: 95, e: 0, f: 50 }[x]!), { delegation_id: 'long', sub_run_id: `run-${x}-0123456789abcdef`, parent_run_id: 'p', agent_id: x })),
  ev.subCompleted(T(30), { delegation_id: 'long', sub_run_id: 'run-e-0123456789abcdef', agent_id: 'e', status: 'WAITING_FOR_EXTERNAL_APPROVAL_FROM_HUMAN' }),
  ev.subCompleted(T(99), { delegation_id: 'long', sub_run_id: 'run-b-0123456789abcdef', agent_id: 'b', status: LONG }),
  ev.subCompleted(T(99), { delegation_id: 'long', sub_run_id: 'run-c-0123456789abcdef', agent_id: 'c', status: LONG }),
  ev.subCompleted(T(99), { delegation_id: 'long', sub_run_id: 'run-d-0123456789abcdef', agent_id: 'd', status: LONG }),
  ev.subCompleted(T(99), { delegation_id: 'long', sub_run_id: 'run-f-0123456789abcdef', agent_id: 'f', status: HUGE }),
  ev.subCompleted(T(100), { delegation_id: 'long', sub_run_id: 'run-a-0123456789abcdef', agent_id: 'a', status: 'cancelled_by_parent_timeout' }),
  ev.completed(T(100), { delegation_id: 'long', pattern: 'fan_out', total_sub_runs: 6, succeeded: 0, failed: 6, aggregated_status: 'failed' }),
);

describe.skipIf(!haveChromium)('html timeline text in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  const pages: Record<string, string> = {};
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run'] });
    dir = mkdtempSync(path.join(tmpdir(), 'td-html-text-'));
    const write = async (name: string, args: string[], input?: string) => {
      const r = await runBin([...args, '--all', '--format', 'html', '--fail-on', 'none'], { input });
      expect(r.code).toBe(0);
      pages[name] = path.join(dir, `${name}.html`);
      writeFileSync(pages[name], r.stdout);
    };
    await write('demo', ['--demo']);
    await write('nested', ['--sessions', path.join(FIXTURES, 'formats', 'nested-retry.jsonl')]);
    await write('long', ['--stdin'], LONG_STATUS);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(name: string, viewport: { width: number; height: number }, deviceScaleFactor = 1, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await browser.newContext({ viewport, deviceScaleFactor, colorScheme });
    const page = await context.newPage();
    await page.goto(`file://${pages[name]}`);
    return page;
  }

  /** The smallest font size drawn in any timeline, in CSS px as rendered (SVG text times the SVG's scale). */
  const smallestText = (page: Page) =>
    page.evaluate(() => {
      let min = Infinity;
      let which = '';
      for (const el of document.querySelectorAll('figure.timeline *')) {
        if (![...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '')) continue;
        const svg = (el as SVGElement).ownerSVGElement;
        const scale = svg ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
        const px = parseFloat(getComputedStyle(el).fontSize) * scale;
        if (px < min) [min, which] = [px, `${el.getAttribute('class')}: ${el.textContent}`];
      }
      return { min, which };
    });

  for (const [label, viewport, dpr] of [
    ['a 360 px phone', { width: 360, height: 800 }, 1],
    ['1280 px at 200% zoom', { width: 640, height: 900 }, 2],
    ['1280 px at deviceScaleFactor 2', { width: 1280, height: 900 }, 2],
  ] as const) {
    it(`draws no timeline text under 11 px on ${label}`, async () => {
      for (const name of ['demo', 'nested', 'long']) {
        const page = await open(name, viewport, dpr);
        const { min, which } = await smallestText(page);
        expect(min, `${name}: ${which}`).toBeGreaterThanOrEqual(11);
        await page.context().close();
      }
    });
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`keeps every lane name in view, over the bars, when a timeline is scrolled sideways (${colorScheme})`, async () => {
      const page = await open('demo', { width: 360, height: 800 }, 1, colorScheme);
      const figures = await page.$$('figure.timeline');
      let scrolled = 0;
      for (const fig of figures) {
        const wide = await fig.evaluate((f) => f.scrollWidth > f.clientWidth + 50);
        if (!wide) continue;
        await fig.scrollIntoViewIfNeeded();
        for (const to of [0.5, 1]) {
          const r = await fig.evaluate((f, to) => {
            f.scrollLeft = (f.scrollWidth - f.clientWidth) * to;
            const box = f.getBoundingClientRect();
            const labels = [...f.querySelectorAll('.lane-label')].map((l) => {
              const b = l.getBoundingClientRect();
              const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
              const lane = l.closest('.lane-name')!;
              const bg = f.querySelector(`svg .lane[data-agent="${CSS.escape(lane.getAttribute('data-agent')!)}"] .lane-bg`)!;
              return { text: l.textContent, left: b.left, right: b.right, width: b.width, onTop: !!hit && l.contains(hit), bg: getComputedStyle(lane).backgroundColor, laneBg: getComputedStyle(bg).fill };
            });
            const column = f.querySelector('.lane-names')!.getBoundingClientRect().width;
            return { left: box.left, right: box.right, scrollLeft: f.scrollLeft, labels, column, visible: f.clientWidth };
          }, to);
          expect(r.scrollLeft).toBeGreaterThan(50);
          // The names leave most of the visible width to the bars.
          expect(r.column).toBeLessThanOrEqual(r.visible / 3);
          expect(r.labels.length).toBeGreaterThan(0);
          for (const l of r.labels) {
            expect(l.width, l.text!).toBeGreaterThan(10);
            expect(l.left, l.text!).toBeGreaterThanOrEqual(r.left - 0.5);
            expect(l.right, l.text!).toBeLessThanOrEqual(r.right + 0.5);
            expect(l.onTop, `${l.text} is drawn over by the scrolled bars`).toBe(true);
            // The name's band matches its lane's stripe in either colour scheme.
            expect(l.bg, l.text!).toBe(l.laneBg);
          }
        }
        scrolled++;
      }
      expect(scrolled).toBeGreaterThan(0);
      await page.context().close();
    });
  }

  it('keeps lane names beside their bars: each name is centred on its lane\'s first bar row', async () => {
    for (const viewport of [{ width: 360, height: 800 }, { width: 1280, height: 900 }]) {
      const page = await open('nested', viewport);
      const rows = await page.$$eval('figure.timeline .lane-name', (names) =>
        names.map((n) => {
          const svg = n.closest('.tl')!.querySelector('svg')!;
          const lane = svg.querySelector(`.lane[data-agent="${CSS.escape(n.getAttribute('data-agent')!)}"]`)!;
          const bg = lane.querySelector('.lane-bg')!.getBoundingClientRect();
          const label = n.querySelector('.lane-label')!.getBoundingClientRect();
          const bar = lane.querySelector('.bar .shape')?.getBoundingClientRect();
          return { agent: n.getAttribute('data-agent'), top: bg.top, bottom: bg.bottom, mid: (label.top + label.bottom) / 2, bar: bar ? (bar.top + bar.bottom) / 2 : null };
        }),
      );
      expect(rows.length).toBeGreaterThan(3);
      for (const r of rows) {
        expect(r.mid, r.agent!).toBeGreaterThan(r.top);
        expect(r.mid, r.agent!).toBeLessThan(r.bottom);
        if (r.bar !== null) expect(Math.abs(r.mid - r.bar), r.agent!).toBeLessThan(2);
      }
      await page.context().close();
    }
  });

  it('fits a long status to its bar: no overlap with the run id, nothing past the SVG, the whole status in a title', async () => {
    for (const name of ['long', 'demo']) {
      for (const viewport of [{ width: 1280, height: 900 }, { width: 360, height: 800 }]) {
        const page = await open(name, viewport);
        const bars = await page.$$eval('svg.swimlane .bar', (bs) =>
          bs.map((b) => {
            const svg = (b as SVGGElement).ownerSVGElement!.getBoundingClientRect();
            const box = (q: string) => {
              const e = b.querySelector(q);
              if (!e) return null;
              const r = e.getBoundingClientRect();
              return { left: r.left, right: r.right };
            };
            const label = b.querySelector('.end-label');
            return {
              run: b.getAttribute('data-run'),
              status: b.getAttribute('data-status'),
              aria: b.getAttribute('aria-label') ?? '',
              inside: !!label?.classList.contains('inside'),
              text: label ? [...label.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('') : null,
              title: label?.querySelector('title')?.textContent ?? null,
              svg: { left: svg.left, right: svg.right },
              shape: box('.shape'),
              label: box('.end-label'),
              runText: box('.bar-text'),
            };
          }),
        );
        for (const b of bars) {
          if (!b.label || !b.shape) continue;
          const where = `${name} ${viewport.width}px ${b.run}: ${b.text}`;
          expect(b.label.left, where).toBeGreaterThanOrEqual(b.svg.left - 0.5);
          expect(b.label.right, where).toBeLessThanOrEqual(b.svg.right + 0.5);
          if (b.runText) expect(b.runText.right <= b.label.left + 0.5 || b.runText.left >= b.label.right - 0.5, where).toBe(true);
          if (b.inside) {
            expect(b.label.left, where).toBeGreaterThanOrEqual(b.shape.left);
            expect(b.label.right, where).toBeLessThanOrEqual(b.shape.right);
          } else expect(b.label.right <= b.shape.left + 0.5 || b.label.left >= b.shape.right - 0.5, where).toBe(true);
          // A cut label names its whole text in a title; the bar's own label has the status either way.
          if (b.text!.endsWith('…')) expect(b.title, where).toMatch(new RegExp(`^${b.status!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · `));
          else expect(b.title, where).toBeNull();
          if (b.status !== 'open' && b.status !== 'unknown') expect(b.aria, where).toContain(`status: ${b.status}`);
        }
        if (name === 'long') {
          const statuses = bars.map((b) => b.title ?? b.text ?? '');
          for (const s of ['cancelled_by_parent_timeout', LONG, HUGE]) expect(statuses.some((t) => t.startsWith(`${s} · `)), s).toBe(true);
          expect(bars.some((b) => b.text!.endsWith('…'))).toBe(true);
        }
        await page.context().close();
      }
    }
  });
});
