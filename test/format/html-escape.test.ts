import { safeTerminalText } from '../../src/format/terminal.js';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { esc, jsonForScript, visible } from '../../src/format/html/escape.js';
import { runBin } from '../helpers/cli.js';
import { HOSTILE, HOSTILE_JOURNAL } from './hostile-journal.js';

interface Node {
  nodeName: string;
  tagName?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
  value?: string;
}

function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const c of node.childNodes ?? []) walk(c, visit);
  if (node.content) walk(node.content, visit);
}

const textOf = (n: Node): string => (n.nodeName === '#text' ? n.value ?? '' : (n.childNodes ?? []).map(textOf).join(''));

describe('html escaping helpers', () => {
  it('escapes markup and both quote styles', () => {
    expect(esc(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('spells out control characters and bidi overrides but keeps newlines', () => {
    expect(visible('a\u202eb\u0000c\nd')).toBe('a\\u202eb\\u0000c\nd');
    // Directional marks reorder neighbouring text too (RLM, LRM, the Arabic letter mark).
    expect(visible('a\u200fb\u200ec\u061cd')).toBe('a\\u200fb\\u200ec\\u061cd');
  });

  it('terminal text spells out the same controls, bidi overrides and marks', () => {
    expect(safeTerminalText('x\u202ey\u200fz\u061c\u001b[31m')).toBe('x\\u202ey\\u200fz\\u061c\\u001b[31m');
  });

  it('keeps JSON in a script block from closing or commenting the block, and round-trips', () => {
    const value = { s: '</script><!-- <script> & \u2028 \u0085 \ufffe \ufdd0' };
    const out = jsonForScript(value);
    // Nor a character the HTML parser calls an error (C1 controls, noncharacters).
    expect(out).not.toMatch(/[<>&\u2028\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]/);
    expect(JSON.parse(out)).toEqual(value);
  });

  it('spells out noncharacters, which the HTML parser calls errors', () => {
    expect(visible('a\ufffeb\uffffc\ufdd0d\ufdefe\ufffdf')).toBe('a\\ufffeb\\uffffc\\ufdd0d\\ufdefe\ufffdf');
  });
});

describe('--format html on hostile journal text', () => {
  it('renders every hostile string as text: no new elements, handlers or links', async () => {
    const r = await runBin(['--stdin', '--format', 'html', '--fail-on', 'none'], { input: HOSTILE_JOURNAL });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const html = r.stdout;
    expect(html).not.toContain('<script>window');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<iframe');

    const doc = parse(html) as unknown as Node;
    const tags = new Map<string, number>();
    const attrs: { name: string; value: string }[] = [];
    walk(doc, (n) => {
      if (!n.tagName) return;
      tags.set(n.tagName, (tags.get(n.tagName) ?? 0) + 1);
      attrs.push(...(n.attrs ?? []));
    });
    for (const bad of ['img', 'iframe', 'textarea']) expect(tags.get(bad) ?? 0).toBe(0);
    expect(tags.get('script')).toBe(2);
    expect(tags.get('style')).toBe(1);
    // Only the page's own svg roots: the journal's `<svg onload>` stayed text.
    const svgs = (html.match(/<svg /g) ?? []).length;
    expect(tags.get('svg')).toBe(svgs);
    expect(attrs.filter((a) => /^on/i.test(a.name))).toEqual([]);
    expect(attrs.filter((a) => a.name === 'href').every((a) => a.value.startsWith('#'))).toBe(true);
    expect(attrs.some((a) => a.name === 'data-run' && a.value === HOSTILE.runId)).toBe(true);

    // The page text holds the hostile strings literally (escaped, then decoded by the parser).
    const text = textOf(doc);
    expect(text).toContain(HOSTILE.delegationId);
    expect(text).toContain(HOSTILE.agent);
    expect(text).toContain(HOSTILE.aggregated);
  });

  it('embeds hover data as JSON that parses back to the journal strings', async () => {
    const r = await runBin(['--stdin', '--format', 'html', '--fail-on', 'none'], { input: HOSTILE_JOURNAL });
    const m = /<script type="application\/json" id="td-tips">([^<]*)<\/script>/.exec(r.stdout);
    expect(m).not.toBeNull();
    const tips = JSON.parse(m![1]) as Record<string, { title: string; rows: [string, string][] }>;
    const hostile = Object.values(tips).find((t) => t.title === `run ${HOSTILE.runId}`);
    expect(hostile).toBeDefined();
    const rows = new Map(hostile!.rows);
    expect(rows.get('error')).toBe(HOSTILE.error);
    expect(rows.get('output')).toBe(visible(HOSTILE.preview));
    expect(rows.get('agent')).toBe(HOSTILE.agent);
  });
});
