// The overview's row filter (all / with errors or warnings / with errors) is CSS only, so it
// works with scripts off; its counts are the rows it leaves.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)('html overview filter in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    dir = mkdtempSync(path.join(tmpdir(), 'td-html-filter-'));
    file = path.join(dir, 'demo.html');
    writeFileSync(file, (await runBin(['--demo', '--all', '--format', 'html', '--fail-on', 'none'])).stdout);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const javaScriptEnabled of [true, false]) {
    it(`shows only the rows each choice names, as counted in its label (scripts ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const json = JSON.parse((await runBin(['--demo', '--all', '--format', 'json', '--fail-on', 'none'])).stdout);
      const has = (sevs: string[]) => json.delegations.filter((d: { findings: { severity: string }[] }) => d.findings.some((f) => sevs.includes(f.severity))).length;
      const context = await browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      await page.goto(`file://${file}`);
      const visible = () => page.$$eval('section.overview tbody tr', (rows) => rows.filter((r) => (r as HTMLElement).offsetParent !== null).length);
      const label = (id: string) => page.$eval(`label:has(#${id})`, (l) => Number(/\((\d+)\)/.exec(l.textContent ?? '')?.[1]));
      expect(await visible()).toBe(json.delegations.length);
      await page.check('#rows-warning');
      expect(await visible()).toBe(has(['error', 'warning']));
      expect(await label('rows-warning')).toBe(has(['error', 'warning']));
      await page.check('#rows-error');
      expect(await visible()).toBe(has(['error']));
      expect(await label('rows-error')).toBe(has(['error']));
      expect(has(['error'])).toBeGreaterThan(0);
      await page.check('#rows-all');
      expect(await visible()).toBe(json.delegations.length);
      await context.close();
    });
  }

  it('sorts the overview by a column: worst findings first, nested rows kept under their delegation, start order back', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`file://${file}`);
    const rows = () =>
      page.$$eval('section.overview tbody tr', (rs) => rs.map((r) => ({ group: Number(r.getAttribute('data-group')), findings: Number(r.getAttribute('data-k-findings')), nested: !!r.querySelector('.indent') })));
    const start = await rows();
    expect(start.some((r) => r.nested)).toBe(true); // the demo has a nested delegation to keep in place
    const groupsInOrder = (rs: { group: number }[]) => rs.map((r) => r.group).filter((g, i, a) => a.indexOf(g) === i);
    const contiguous = (rs: { group: number }[]) => groupsInOrder(rs).length === new Set(rs.map((r) => r.group)).size && rs.every((r, i) => i === 0 || r.group === rs[i - 1].group || !rs.slice(0, i).some((x) => x.group === r.group));
    // Each group's worst findings (errors weigh most), as the page sorts them.
    const worst = new Map<number, number>();
    for (const r of start) worst.set(r.group, Math.max(worst.get(r.group) ?? 0, r.findings));
    await page.click('th[data-sort="findings"] button');
    const byFindings = await rows();
    expect(await page.getAttribute('th[data-sort="findings"]', 'aria-sort')).toBe('descending');
    expect(contiguous(byFindings)).toBe(true);
    const keys = groupsInOrder(byFindings).map((g) => worst.get(g)!);
    expect(keys).toEqual([...keys].sort((a, b) => b - a));
    expect(keys[0]).toBeGreaterThanOrEqual(1e12); // a delegation with an error comes first
    // Nested rows still follow their outer row.
    for (let i = 0; i < byFindings.length; i++) if (byFindings[i].nested) expect(byFindings[i - 1].group).toBe(byFindings[i].group);
    await page.click('th[data-sort="findings"] button');
    expect(await page.getAttribute('th[data-sort="findings"]', 'aria-sort')).toBe('ascending');
    expect(await page.getAttribute('th[data-sort="started"]', 'aria-sort')).toBeNull();
    await page.click('th[data-sort="started"] button');
    expect(await rows()).toEqual(start);
    // The filter still applies to the sorted rows.
    await page.click('th[data-sort="findings"] button');
    await page.check('#rows-error');
    const shown = await page.$$eval('section.overview tbody tr', (rs) => rs.filter((r) => (r as HTMLElement).offsetParent !== null).length);
    expect(shown).toBe(start.filter((r) => r.findings >= 1e12).length);
    await page.check('#rows-all');
    // Ties keep start order, whatever order the previous sort left: by pattern, then by status.
    await page.click('th[data-sort="pattern"] button');
    await page.click('th[data-sort="status"] button');
    const byStatus = await page.$$eval('section.overview tbody tr', (rs) => rs.map((r) => ({ group: Number(r.getAttribute('data-group')), status: r.getAttribute('data-k-status') })));
    const firsts = byStatus.filter((r, i) => i === 0 || r.group !== byStatus[i - 1].group);
    const ties = firsts.filter((r, i) => i > 0 && r.status === firsts[i - 1].status);
    expect(ties.length).toBeGreaterThan(0);
    for (let i = 1; i < firsts.length; i++) if (firsts[i].status === firsts[i - 1].status) expect(firsts[i].group).toBeGreaterThan(firsts[i - 1].group);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sorts the succeeded/failed/total column by failed sub-runs first, then by total', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`file://${file}`);
    await page.click('th[data-sort="totals"] button');
    expect(await page.getAttribute('th[data-sort="totals"]', 'aria-sort')).toBe('descending');
    // Outer rows only: nested ones follow their group, whatever their own counts.
    const cells = await page.$$eval('section.overview tbody tr', (rs) => rs.filter((r) => !r.querySelector('.indent')).map((r) => r.cells[3].textContent ?? ''));
    const counted = cells.filter((c) => /^\d+\/\d+\/\d+$/.test(c)).map((c) => c.split('/').map(Number));
    expect(counted.length).toBeGreaterThan(2);
    expect(new Set(counted.map(([, failed]) => failed)).size).toBeGreaterThan(1); // the demo has both
    const order = counted.map(([, failed, total]) => failed * 1e6 + total);
    expect(order).toEqual([...order].sort((a, b) => b - a));
    await context.close();
  });

  it('keeps a 360 px wide page from scrolling sideways: nested delegations\' facts and long Limits lines wrap', async () => {
    for (const fixture of ['formats/nested-retry.jsonl', 'hostile']) {
      const html = (await runBin(['--sessions', path.join('fixtures', fixture), '--all', '--format', 'html', '--fail-on', 'none'])).stdout;
      const f = path.join(dir, `${path.basename(fixture)}.html`);
      writeFileSync(f, html);
      const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
      const page = await context.newPage();
      await page.goto(`file://${f}`);
      await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, fixture).toBeLessThanOrEqual(360);
      await context.close();
    }
    // The overview's ids keep their line (the table scrolls sideways), nested arrows included.
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    await page.goto(`file://${file}`);
    const heights = await page.$$eval('section.overview tbody td:first-child', (cells) => cells.map((c) => (c as HTMLElement).getBoundingClientRect().height));
    // The legend stays in view when a timeline is scrolled sideways: it is outside the scrolling figure.
    expect(await page.$$eval('figure.timeline ul.legend', (ls) => ls.length)).toBe(0);
    expect(await page.$$eval('section.delegation > ul.legend', (ls) => ls.length)).toBeGreaterThan(0);
    const line = await page.$eval('section.overview thead th', (th) => (th as HTMLElement).getBoundingClientRect().height);
    expect(Math.max(...heights)).toBeLessThan(1.5 * line); // one line each (wrapped ids took six)
    await context.close();
  });

  it('keeps a filtered nested row under its parent: the parent stays, muted, when only the nested one matches', async () => {
    const T = (x: number) => `2026-03-10T10:00:${String(x).padStart(2, '0')}Z`;
    const input = journal(
      ev.started(T(0), { delegation_id: 'outer', parent_run_id: 'root', pattern: 'fan_out', agent_ids: ['planner'] }),
      ev.subStarted(T(1), { delegation_id: 'outer', sub_run_id: 'p1', parent_run_id: 'root', agent_id: 'planner' }),
      ev.started(T(2), { delegation_id: 'inner', parent_run_id: 'p1', pattern: 'fan_out', agent_ids: ['writer'] }),
      ev.subStarted(T(3), { delegation_id: 'inner', sub_run_id: 'w1', parent_run_id: 'p1', agent_id: 'writer' }),
      ev.subCompleted(T(4), { delegation_id: 'inner', sub_run_id: 'w1', agent_id: 'writer', status: 'failed', error: 'boom' }),
      ev.completed(T(5), { delegation_id: 'inner', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }), // totals-mismatch: an error
      ev.subCompleted(T(6), { delegation_id: 'outer', sub_run_id: 'p1', agent_id: 'planner', status: 'completed', output_preview: 'planned it all' }),
      ev.completed(T(7), { delegation_id: 'outer', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'planned it all' }),
      ev.started(T(8), { delegation_id: 'other', parent_run_id: 'root2', pattern: 'fan_out', agent_ids: ['x'] }),
    );
    const f = path.join(dir, 'nested-filter.html');
    writeFileSync(f, (await runBin(['--stdin', '--all', '--format', 'html', '--fail-on', 'none'], { input })).stdout);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`file://${f}`);
    await page.check('#rows-error');
    const shown = await page.$$eval('section.overview tbody tr', (rs) => rs.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => [r.querySelector('code')!.textContent, getComputedStyle(r).opacity]));
    expect(shown).toEqual([['outer', '0.55'], ['inner', '1']]);
    expect(await page.$eval('label:has(#rows-error)', (l) => l.textContent)).toContain('with errors (1)');
    await context.close();
  });

  it('cuts lane labels by their width, so wide capitals and fullwidth names stay inside the label column', async () => {
    const T = (x: number) => `2026-03-10T10:00:${String(x).padStart(2, '0')}Z`;
    const agents = ['MMMMMMMMMMMMMMMMMM', 'ＦＵＬＬＷＩＤＴＨ－ＡＧＥＮＴ', 'a-plain-lowercase-agent-name'];
    const input = journal(
      ev.started(T(0), { delegation_id: 'wide', parent_run_id: 'p', pattern: 'fan_out', agent_ids: agents }),
      ...agents.map((a, i) => ev.subStarted(T(1), { delegation_id: 'wide', sub_run_id: `r${i}`, parent_run_id: 'p', agent_id: a })),
    );
    const f = path.join(dir, 'wide-labels.html');
    writeFileSync(f, (await runBin(['--stdin', '--all', '--format', 'html', '--fail-on', 'none'], { input })).stdout);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`file://${f}`);
    // The estimate cuts them, not the column's CSS ellipsis: the name's text fits its box whole.
    const labels = await page.$$eval('.lane-label', (ls) =>
      ls.map((l) => {
        const name = l.querySelector('.lane-agent') as HTMLElement;
        return { text: name.textContent, left: l.getBoundingClientRect().left, column: l.closest('.lane-names')!.getBoundingClientRect().left, overflow: name.scrollWidth - name.clientWidth };
      }),
    );
    expect(labels).toHaveLength(3);
    for (const l of labels) {
      expect(l.left, l.text!).toBeGreaterThanOrEqual(l.column);
      expect(l.overflow, l.text!).toBeLessThanOrEqual(0);
    }
    await context.close();
  });
});
