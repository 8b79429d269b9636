// The overview's row filter (all / with errors or warnings / with errors) is CSS only, so it
// works with scripts off; its counts are the rows it leaves.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';

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
});
