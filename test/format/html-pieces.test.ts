// The HTML page is handed to the writer in pieces (a section per top-level delegation), so a
// large --all is never one string; the CLI writes exactly the page formatHtml returns.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { formatHtml, htmlPieces } from '../../src/format/html.js';
import { FIXTURES, ROOT, runMain } from '../helpers/cli.js';

const ctx = { color: false, failOn: 'error' as const };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'td-html-pieces-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('html in pieces', () => {
  it('comes as a piece per top-level section, none holding two sections, and the tips as JSON.stringify writes them', async () => {
    for (const tree of ['sessions', 'join', 'hostile', 'safe']) {
      const { report } = await analyze({ cwd: ROOT, sessions: [path.join(FIXTURES, tree)], all: true, checkOptions: { nowMs: Date.parse('2030-01-01T00:00:00Z') } });
      const pieces = [...htmlPieces(report, ctx)];
      const page = pieces.join('');
      expect(page).toBe(formatHtml(report, ctx));
      const tops = report.delegations.filter((d) => !d.parentDelegation || !report.delegations.some((p) => p.key === d.parentDelegation)).length;
      expect(pieces.length, tree).toBeGreaterThanOrEqual(tops + 3);
      // A section starts each piece it is in: no piece carries a second top-level section.
      for (const p of pieces) expect((p.match(/^\n?<section class="delegation"/) ? 1 : 0) + (p.slice(1).match(/\n<section class="delegation"/g) ?? []).length, tree).toBeLessThanOrEqual(1);
      const tips = /<script type="application\/json" id="td-tips">(.*?)<\/script>/s.exec(page)![1];
      expect(tips).toBe(JSON.stringify(JSON.parse(tips)).replace(/[<>&\u2028\u2029\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    }
  });

  it('a report whose nesting is not a tree (a delegation nested in two, a loop) gets each section where the page nests it, and each bar card once', async () => {
    const { report } = await analyze({ cwd: ROOT, sessions: [path.join(FIXTURES, 'sessions')], all: true, checkOptions: { nowMs: Date.parse('2030-01-01T00:00:00Z') } });
    // Reports the tool builds nest each delegation once; a library user's may not: a nests b and c, b nests c; d and e nest each other.
    const [a, b, c, d, e] = report.delegations;
    a.nested = [b.key, c.key, ...a.nested];
    b.nested = [c.key, ...b.nested];
    b.parentDelegation = a.key;
    c.parentDelegation = b.key;
    d.nested = [e.key];
    e.nested = [d.key];
    d.parentDelegation = e.key;
    e.parentDelegation = d.key;
    const page = [...htmlPieces(report, ctx)].join('');
    expect(page.match(/<section class="delegation" id="d2"/g)).toHaveLength(2); // inside b, and inside a after b
    expect(page.match(/<section class="delegation" id="d[34]"/g)).toHaveLength(2); // the loop, once each
    expect(page.match(/<section[ >]/g)!.length).toBe(page.match(/<\/section>/g)!.length);
    const tips = /<script type="application\/json" id="td-tips">(.*?)<\/script>/s.exec(page)![1];
    const ids = [...tips.matchAll(/"(d\d+-c\d+-a\d+)":\{/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(JSON.parse(tips))).toEqual(ids);
  });

  it('the CLI writes the page formatHtml returns, on stdout and to an --output file', async () => {
    const file = path.join(tmp, 'r.html');
    const r = await runMain(['--sessions', path.join(FIXTURES, 'hostile'), '--all', '--format', 'html', '-o', `html=${file}`, '--fail-on', 'none']);
    const { report } = await analyze({ cwd: ROOT, sessions: [path.join(FIXTURES, 'hostile')], all: true, checkOptions: { nowMs: Date.parse('2030-01-01T00:00:00Z') } });
    expect(r.code).toBe(0);
    // As bytes: the hostile journal's lone surrogates are written as U+FFFD.
    expect(Buffer.from(r.stdout)).toEqual(Buffer.from(formatHtml(report, ctx)));
    expect(readFileSync(file, 'utf8')).toBe(r.stdout);
  });
});
