/**
 * Journal text is untrusted: the hostile fixture goes through every registered format (formats
 * added later are picked up from the registry) and each output is checked with that format's
 * own parser or rules: nothing in a preview, error, id or reason may become markup or a command.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { parse as parseHtml } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain, type CliResult } from '../helpers/cli.js';
import { A1, A2, A3, DA, DB, DC, HOSTILE_FIXTURE, hostileJournal, P, R_HOST } from './hostile-fixture.js';
import { expectHealthy, removeTempDirs, tempDir } from './support.js';
import { parseXmlDocument, type XmlNode } from '../helpers/xml.js';

afterAll(removeTempDirs);

// A file name is journal-controlled too (session ids come from it): make it hostile as well.
const HOSTILE_NAME = `x"><img src=x onerror=alert(1)>|\`\u001b[31m%0A:,'#.jsonl`;

interface Finding {
  id: string;
  severity: string;
  message: string;
  delegation: string;
}
interface Doc {
  delegations: { id: string; key: string; findings: Finding[] }[];
}

const outputs = new Map<string, CliResult>();
let doc: Doc;
let dir: string;

/** Every string value inside a parsed JSON value. */
function strings(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') out.add(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

/** The journal's own strings: metadata values, timestamps and session ids. */
function journalStrings(): Set<string> {
  const out = new Set<string>();
  for (const l of readFileSync(HOSTILE_FIXTURE, 'utf8').trim().split('\n')) {
    const e = JSON.parse(l) as { ts: string; session_id: string; metadata: unknown };
    out.add(e.ts);
    out.add(e.session_id);
    strings(e.metadata, out);
  }
  return out;
}

// Raw characters that must never reach a terminal or a page: C0 (but tab and newline), DEL, C1, bidi overrides, isolates and directional marks.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
// Anything any output may never contain raw: ESC (terminal sequences) and NUL.
// eslint-disable-next-line no-control-regex
const NEVER = /[\u0000\u001b]/;

const describeChar = (s: string, re: RegExp) => {
  const m = re.exec(s);
  return m ? `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: …${JSON.stringify(s.slice(Math.max(0, m.index - 40), m.index + 20))}…` : 'none';
};

const allFindings = () => doc.delegations.flatMap((d) => d.findings);

beforeAll(async () => {
  dir = tempDir('hostile');
  copyFileSync(HOSTILE_FIXTURE, path.join(dir, HOSTILE_NAME));
  for (const format of Object.keys(FORMATTERS)) outputs.set(format, await runMain(['--sessions', '.', '--all', '--format', format], { cwd: dir }));
  doc = JSON.parse(outputs.get('json')!.stdout) as Doc;
});

describe('the hostile fixture', () => {
  it('is the one hostileJournal() builds, and carries every payload', () => {
    if (process.env.UPDATE_HOSTILE_FIXTURE) writeFileSync(HOSTILE_FIXTURE, hostileJournal());
    expect(readFileSync(HOSTILE_FIXTURE, 'utf8')).toBe(hostileJournal());
    const texts = [...journalStrings()].join('\n');
    for (const [name, payload] of Object.entries(P)) expect(texts.includes(payload), name).toBe(true);
  });

  it('yields the delegations and findings the payloads sit in', () => {
    expect(doc.delegations.map((d) => d.id).sort()).toEqual([DA, DB, DC].sort());
    const messages = allFindings().map((f) => f.message).join('\n');
    // Findings quote agents, run ids and errors: the text each format must then neutralize.
    for (const s of [A1, A3, P.img]) expect(messages.includes(s), JSON.stringify(s)).toBe(true);
    // The hostile run's completion has a hostile status, no sub-run state: a Limits line quotes both.
    const limits = doc.delegations.flatMap((d) => (d as unknown as { limits: string[] }).limits).join('\n');
    const line = limits.split('\n').find((l) => l.startsWith(`Sub-run ${R_HOST}: its completion's status `));
    expect(line).toContain(JSON.stringify(P.img).slice(1, -1));
  });
});

// --------------------------------------------------------------------------------------------
// One checker per format; a format without one gets the generic checks for its kind of output.

type Checker = (out: string) => void;

function checkTerminalText(out: string): void {
  expect(describeChar(out, RAW_CONTROL)).toBe('none');
  // Escaped, not dropped: the sequences are shown as text.
  expect(out).toContain('\\u001b[31m');
  const lines = out.split('\n');
  expect(lines.filter((l) => l.startsWith('::'))).toEqual([]);
  expect(lines.filter((l) => /^- \[(error|warning|info)\] /.test(l))).toHaveLength(allFindings().length);
}

/** JSON documents must parse, and carry the journal's strings exactly (lone surrogates and NUL included). */
function checkJsonRoundTrip(values: unknown[], exempt: (s: string) => boolean): void {
  const found = strings(values);
  const missing = [...journalStrings()].filter((s) => !exempt(s) && !found.has(s));
  expect(missing).toEqual([]);
}

const isTs = (s: string) => /^2026-03-10T/.test(s) || s.startsWith('<script>alert("ts")');
const STARTED_ONLY = new Set(['running']); // the status of a sub-run start is not part of any report

function checkJson(out: string): void {
  checkJsonRoundTrip([JSON.parse(out)], (s) => STARTED_ONLY.has(s));
}

function checkNdjson(out: string): void {
  const lines = out.split('\n');
  expect(lines.pop()).toBe('');
  expect(lines).toHaveLength(doc.delegations.length); // no record was split by a newline in the text
  checkJsonRoundTrip(lines.map((l) => JSON.parse(l)), (s) => STARTED_ONLY.has(s));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function checkOtlp(out: string): void {
  // Times are exported as nanoseconds, so only the ts strings themselves are absent; protobuf
  // strings are UTF-8, so a lone surrogate arrives as U+FFFD and every other character exactly.
  const found = strings([JSON.parse(out)]);
  for (const s of found) expect(s, JSON.stringify(s)).not.toMatch(LONE_SURROGATE);
  const missing = [...journalStrings()].filter((s) => !STARTED_ONLY.has(s) && !isTs(s) && !found.has(s.replace(LONE_SURROGATE, '\uFFFD')));
  expect(missing).toEqual([]);
}

function checkChromeTrace(out: string): void {
  // Well-formed like OTLP: a lone surrogate arrives as U+FFFD, every other character exactly.
  const found = strings(JSON.parse(out));
  for (const s of found) expect(s, JSON.stringify(s)).not.toMatch(LONE_SURROGATE);
  for (const s of [DA, DB, DC, 'r-a1', 'r-a2b', R_HOST, A1, A2, A3, P.ansi, P.xml, `agent execution timeout: ${P.img} ${P.mermaid}`]) expect(found.has(s.replace(LONE_SURROGATE, '\uFFFD')), JSON.stringify(s)).toBe(true);
}

function checkSarif(out: string): void {
  const log = JSON.parse(out) as { runs: { results: { message: { text: string }; properties: { delegation: string; runs: string[] } }[] }[] };
  const results = log.runs[0].results;
  expect(results).toHaveLength(allFindings().length);
  for (const r of results) {
    expect(describeChar(r.message.text, RAW_CONTROL)).toBe('none');
    // `[text](n)` is a link in SARIF messages: every bracket must be escaped.
    expect(r.message.text).not.toMatch(/(^|[^\\])(\\\\)*[[\]]/);
  }
  const found = strings(results.map((r) => r.properties));
  for (const s of [DA, DB, DC, R_HOST]) expect(found.has(s), JSON.stringify(s)).toBe(true);
}

const parseXml = parseXmlDocument;

const xmlNodes = (n: XmlNode): XmlNode[] => [n, ...n.children.flatMap(xmlNodes)];

function checkJunit(out: string): void {
  expect(describeChar(out, /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u)).toBe('none');
  const nodes = xmlNodes(parseXml(out)); // strict XML 1.0: throws on any well-formedness error
  const names = new Set(nodes.map((n) => n.name));
  for (const injected of ['script', 'img', 'svg', 'b']) expect(names.has(injected), injected).toBe(false);
  // The markup in the journal arrives as attribute and text values, not as elements.
  const values = nodes.flatMap((n) => [n.text, ...Object.values(n.attributes)]).join('\n');
  expect(values).toContain(P.script);
  expect(values).toContain(P.img);
}

function checkGithub(out: string): void {
  const lines = out.split('\n');
  expect(lines.pop()).toBe('');
  // One command per finding: no text could start a line of its own.
  expect(lines).toHaveLength(allFindings().length);
  for (const l of lines) {
    const m = /^::(error|warning|notice) ([^:]*)::(.*)$/.exec(l);
    expect(m, l).not.toBeNull();
    const [, , props, data] = m!;
    for (const p of props.split(',')) expect(p, l).toMatch(/^(file|line|title|col|endLine|endColumn)=[^,:\r\n]*$/);
    expect(data, l).not.toMatch(/\r/);
    expect(describeChar(l, RAW_CONTROL)).toBe('none');
    // The runner decodes only these escapes; any other `%` must itself be encoded.
    expect(l.replace(/%(25|0D|0A|3A|2C)/g, ''), l).not.toContain('%');
  }
  const fileProps = lines.map((l) => /file=([^,]*)/.exec(l)?.[1]).filter(Boolean);
  expect(fileProps.length).toBeGreaterThan(0);
  for (const f of fileProps) expect(decodeURIComponent(f!.replace(/%0A/g, '\n'))).toContain('x"><img src=x onerror=alert(1)>');
}

type HtmlNode = { nodeName: string; tagName?: string; attrs?: { name: string; value: string }[]; childNodes?: HtmlNode[]; value?: string; content?: HtmlNode };

function htmlNodes(n: HtmlNode): HtmlNode[] {
  const kids = [...(n.childNodes ?? []), ...(n.content ? [n.content] : [])];
  return [n, ...kids.flatMap(htmlNodes)];
}

const textOf = (n: HtmlNode): string => (n.nodeName === '#text' ? n.value ?? '' : (n.childNodes ?? []).map(textOf).join(''));

function checkHtml(out: string): void {
  expect(describeChar(out, RAW_CONTROL)).toBe('none');
  const nodes = htmlNodes(parseHtml(out) as unknown as HtmlNode);
  const elements = nodes.filter((n) => n.tagName);
  for (const injected of ['img', 'iframe', 'object', 'embed', 'b', 'base', 'form', 'math']) expect(elements.filter((e) => e.tagName === injected), injected).toEqual([]);
  for (const e of elements) {
    for (const a of e.attrs ?? []) {
      expect(a.name.startsWith('on'), `<${e.tagName} ${a.name}="${a.value}">`).toBe(false);
      if (/^(href|src|xlink:href|action|formaction)$/.test(a.name)) expect(a.value, `<${e.tagName} ${a.name}>`).toMatch(/^#[\w-]*$|^url\(#/);
    }
  }
  // Scripts: JSON data that parses, or the page's own code, which never holds journal text.
  for (const s of elements.filter((e) => e.tagName === 'script')) {
    const code = textOf(s);
    if (s.attrs?.some((a) => a.name === 'type' && a.value === 'application/json')) expect(() => JSON.parse(code)).not.toThrow();
    else expect(code).not.toMatch(/alert\(|evil\.example|onerror/);
  }
  // Every <details> and <svg> is the page's own, however many `</details>` the journal holds.
  const body = textOf(nodes.find((n) => n.tagName === 'body')!);
  for (const s of [P.script, P.img, DC]) expect(body, JSON.stringify(s)).toContain(s);
  expect(elements.filter((e) => e.tagName === 'svg').every((e) => e.attrs?.some((a) => a.name === 'class' && a.value === 'swimlane'))).toBe(true);
}

/** Unescaped `|` in a Markdown table row (a backslash escapes the next character). */
function pipes(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '|') n++;
  }
  return n;
}

// Lines of a Mermaid gantt the formatter may write: nothing from the journal outside the name charset.
const MERMAID_LINE = /^(gantt|    title [^:;#%`\n]+|    dateFormat x|    axisFormat %H:%M:%S|    section [^:;#%`\n]+|    attempt \d+ [^:;#%`\n]+ :((active|done|crit), )?r\d+, -?\d+, -?\d+)$/;

function checkMarkdown(out: string): void {
  expect(describeChar(out, RAW_CONTROL)).toBe('none');
  const md = new MarkdownIt({ html: true });
  const tokens = md.parse(out, {});
  const flat = tokens.flatMap((t) => [t, ...(t.children ?? [])]);
  // Raw HTML: only the formatter's own collapsible timeline and line breaks.
  const html = flat.filter((t) => t.type === 'html_block' || t.type === 'html_inline').map((t) => t.content.trim());
  for (const h of html) expect(['<details><summary>Timeline</summary>', '</details>', '<br>'], h).toContain(h);
  expect(html.filter((h) => h.startsWith('<details>')).length).toBe(html.filter((h) => h === '</details>').length);
  expect(flat.filter((t) => t.type === 'link_open' || t.type === 'image').map((t) => t.attrGet('href') ?? t.attrGet('src'))).toEqual([]);
  // Text a PR comment would turn into a mention or an issue link (an agent id holds `@octocat #1`).
  expect(out).toContain('octocat');
  expect(out).not.toMatch(/@[A-Za-z0-9]|(^|[^&])#\d/); // `&#8203;` is the zero-width space that defuses them
  // Headings: the report's own, one per delegation.
  const headings = tokens.flatMap((t, i) => (t.type === 'heading_open' ? [tokens[i + 1].content] : []));
  for (const h of headings) expect(h).toMatch(/^(trace-delegation report|Delegation .+|Scan limits)$/);
  expect(headings.filter((h) => h.startsWith('Delegation '))).toHaveLength(doc.delegations.length);
  // Fences: only Mermaid charts, each line of which stays inside the gantt grammar.
  for (const f of flat.filter((t) => t.type === 'fence' || t.type === 'code_block')) {
    expect(f.info).toBe('mermaid');
    for (const l of f.content.replace(/\n$/, '').split('\n')) expect(l).toMatch(MERMAID_LINE);
  }
  // Tables: every row has its header's cell count, and there is one row per delegation / finding.
  const lines = out.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('|') || (i > 0 && lines[i - 1].startsWith('|'))) continue;
    const width = pipes(lines[i]);
    for (let j = i; j < lines.length && lines[j].startsWith('|'); j++) expect(pipes(lines[j]), lines[j]).toBe(width);
  }
  const bodyRows = tokens.filter((t, i) => t.type === 'tr_open' && tokens.slice(0, i).some((x) => x.type === 'tbody_open') && tokens.slice(0, i).reverse().find((x) => x.type === 'tbody_open' || x.type === 'tbody_close')?.type === 'tbody_open');
  expect(bodyRows).toHaveLength(doc.delegations.length + allFindings().length);
}

/** Output kinds for formats without a checker of their own (e.g. added after this test). */
function genericChecker(out: string): void {
  const head = out.trimStart();
  if (head.startsWith('<?xml')) return checkJunit(out);
  if (/^<!doctype html/i.test(head)) return checkHtml(out);
  try {
    JSON.parse(out);
    return checkJson(out);
  } catch {
    expect(describeChar(out, RAW_CONTROL)).toBe('none');
  }
}

const CHECKERS: Record<string, Checker> = {
  text: checkTerminalText,
  json: checkJson,
  ndjson: checkNdjson,
  markdown: checkMarkdown,
  sarif: checkSarif,
  junit: checkJunit,
  github: checkGithub,
  html: checkHtml,
  otlp: checkOtlp,
  'chrome-trace': checkChromeTrace,
};

describe('hostile text in every format', () => {
  for (const format of Object.keys(FORMATTERS)) {
    it(`${format}: renders every hostile string inertly`, () => {
      const r = outputs.get(format)!;
      expectHealthy(r, `hostile fixture as ${format}`);
      expect(describeChar(r.stdout, NEVER)).toBe('none');
      (CHECKERS[format] ?? genericChecker)(r.stdout);
    });
  }

  it('list and list --events show control characters escaped', async () => {
    for (const args of [['list'], ['list', '--events']]) {
      const r = await runMain(['--sessions', '.', ...args], { cwd: dir });
      expectHealthy(r, args.join(' '));
      expect(describeChar(r.stdout, RAW_CONTROL), args.join(' ')).toBe('none');
      expect(r.stdout.split('\n').filter((l) => l.startsWith('::'))).toEqual([]);
    }
  });
});
