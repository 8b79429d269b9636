import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { formatMarkdown, MARKDOWN_MAX_BYTES } from '../../src/format/markdown.js';
import { ev, journal } from '../helpers/journal.js';
import { runMain } from '../helpers/cli.js';
import { HOSTILE_TEXT, RETRY_AND_FAILURE, SAMPLE, reportFor, runFormat } from './ci-run.js';

const mermaidBlocks = (md: string) => [...md.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]);

// The only statements the formatter may emit inside a gantt block; anything else is an escape.
const GANTT_LINE = /^(gantt|    title [^#:;%`\n]+|    dateFormat x|    axisFormat %H:%M:%S|    section [^#:;%`\n]+|    attempt \d+ [^#:;%`\n]+ :(?:(?:crit|done|active), )?r\d+, \d+, \d+)$/u;

describe('--format markdown', () => {
  it('matches the reviewed report for the shared sample', async () => {
    const r = await runFormat('markdown', SAMPLE);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/sample.md');
  });

  it('draws one gantt per delegation: a section per agent, failed runs crit, retries as their own bars', async () => {
    const r = await runFormat('markdown', RETRY_AND_FAILURE);
    expect(r.code).toBe(1);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/retry-and-failure.md');
    const [gantt, ...more] = mermaidBlocks(r.stdout);
    expect(more).toEqual([]);
    const lines = gantt.split('\n');
    for (const line of lines) expect(line).toMatch(GANTT_LINE);
    expect(lines.filter((l) => l.startsWith('    section ')).map((l) => l.slice(12))).toEqual(['coder', 'tester', 'writer']);
    const report = await reportFor(RETRY_AND_FAILURE);
    const coder = report.delegations[0].children.find((c) => c.agentId === 'coder')!;
    // The rejected first attempt is crit and the retry names the run it retries.
    expect(gantt).toContain(`    attempt 1 coder verification_failed :crit, r1, ${Math.round(coder.attempts[0].startMs!)}, ${Math.round(coder.attempts[0].endMs!)}`);
    expect(gantt).toMatch(/\n {4}attempt 2 coder retry of 1c0de000 completed :done, r2, \d+, \d+\n/);
    expect(gantt).toMatch(/\n {4}attempt 1 tester failed :crit, r3, \d+, \d+\n/);
    // The writer never reported back: an open bar up to the delegation's completion.
    expect(gantt).toContain(`    attempt 1 writer open :active, r4, ${Math.round(report.delegations[0].children[2].attempts[0].startMs!)}, ${Math.round(report.delegations[0].completedMs!)}`);
  });

  it("counts a row's findings in words that agree with the number (3 errors, 1 warning, 2 info)", async () => {
    const r = await runMain(['--demo', '--all', '--format', 'markdown']);
    const row = (id: string) => r.stdout.split('\n').find((l) => l.startsWith(`| ${id}`))!;
    expect(row('2e6b8f47-9a1c-4d05-b3e6-5f0a7c9d1e28')).toMatch(/\| 🔴 3 errors \|$/);
    expect(row('9d41a6c8-7e2f-4053-8b9a-3c5e1f7d2a86')).toMatch(/\| 🟡 1 warning \|$/);
    expect(row('e62f4b19-0c7a-4d83-b5e1-9a4c6d2f8e07')).toMatch(/\| 🔵 1 info \|$/);
  });

  it('keeps model-written text inert: no HTML, links, mentions or chart statements come from the journal', async () => {
    const r = await runFormat('markdown', HOSTILE_TEXT);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/hostile-text.md');
    for (const line of mermaidBlocks(r.stdout).join('\n').split('\n')) expect(line).toMatch(GANTT_LINE);
    // linkify: GitHub links bare URLs (GFM extended autolinks) as markdown-it's linkify does.
    const html = new MarkdownIt({ html: true, linkify: true }).render(r.stdout);
    expect(html).not.toMatch(/<script|<b>|<\/b>|<a /);
    expect(r.stdout).not.toMatch(/:\/\/|www\./i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The finding's table row stayed one row of four cells.
    const row = html.split('</tr>').find((tr) => tr.includes('timeout-as-failure'))!;
    expect(row.match(/<td>/g)).toHaveLength(4);
    // GitHub links @name and #12; a zero-width space after @ and # keeps them plain text.
    expect(r.stdout).not.toMatch(/@octocat|#12/);
    expect(r.stdout).toContain('@&#8203;octocat');
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
  });
});

/** The report of one journal of `lines`, read from a temporary folder. */
async function reportOfLines(lines: string[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-md-'));
  try {
    writeFileSync(path.join(dir, 's.jsonl'), journal(...lines));
    return (await analyze({ sessions: [dir], all: true, checkOptions: { nowMs: Date.parse('2030-01-01T00:00:00Z') } })).report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('--format markdown on a large tree', () => {
  it("stays under GitHub's 1 MiB job-summary limit: clean sections go first, flagged ones stay, and a line says so", async () => {
    const lines: string[] = [];
    const at = (i: number, s: number) => new Date(Date.parse('2025-11-03T09:00:00Z') + i * 60_000 + s * 1000).toISOString();
    for (let i = 0; i < 1500; i++) {
      const id = `d-${String(i).padStart(4, '0')}`;
      const bad = i % 500 === 499; // three delegations whose totals disagree: an error each
      lines.push(
        ev.started(at(i, 0), { delegation_id: id, parent_run_id: `p-${id}`, pattern: 'fan_out', agent_ids: ['coder'] }),
        ev.subStarted(at(i, 1), { delegation_id: id, sub_run_id: `r-${id}`, parent_run_id: `p-${id}`, agent_id: 'coder' }),
        ev.subCompleted(at(i, 2), { delegation_id: id, sub_run_id: `r-${id}`, agent_id: 'coder', status: 'completed', output_preview: 'ok' }),
        ev.completed(at(i, 3), { delegation_id: id, pattern: 'fan_out', total_sub_runs: bad ? 2 : 1, succeeded: 1, failed: bad ? 1 : 0, aggregated_status: 'completed', aggregated_output_preview: 'ok' }),
      );
    }
    const report = await reportOfLines(lines);
    const md = formatMarkdown(report, { color: false, failOn: 'error' });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
    for (const id of ['d-0499', 'd-0999', 'd-1499']) expect(md).toContain(`### Delegation ${id}\n`);
    expect(md).toMatch(/\*\d+ delegation sections left out \(the least severe first\) to stay under GitHub's 1 MiB limit for a job summary: the JSON or HTML output has every delegation\.\*/);
    expect(md.match(/^\| d/gm)).toHaveLength(1500); // every row of the table still fits
    const small = formatMarkdown({ ...report, delegations: report.delegations.slice(0, 10) }, { color: false, failOn: 'error' });
    expect(small).not.toContain('left out');
    // Every delegation with a warning, the last with an error too: the one that fails the job is kept first.
    const [errorFinding] = report.delegations[499].findings;
    const warning = { ...errorFinding, severity: 'warning' as const };
    const warned = report.delegations.map((d, i) => ({ ...d, findings: i === 1499 ? [warning, errorFinding] : [warning] }));
    const ranked = formatMarkdown({ ...report, delegations: warned }, { color: false, failOn: 'error' });
    expect(Buffer.byteLength(ranked)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
    expect(ranked).toContain('### Delegation d-1499\n');
    expect(ranked).toContain('### Delegation d-0000\n'); // then the warnings, in report order
  });
});

describe('--format markdown on one very large delegation', () => {
  it('leaves out a chart Mermaid would refuse on GitHub, and shows the first 20 evidence locations of a finding', async () => {
    const at = (s: number) => new Date(Date.parse('2025-11-03T09:00:00Z') + s).toISOString();
    const lines = [ev.started(at(0), { delegation_id: 'wide', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] })];
    for (let i = 0; i < 1000; i++) lines.push(ev.subStarted(at(1 + i), { delegation_id: 'wide', sub_run_id: `r${i}`, parent_run_id: 'p', agent_id: 'a' }));
    for (let i = 0; i < 1000; i++) lines.push(ev.subCompleted(at(2000 + i), { delegation_id: 'wide', sub_run_id: `r${i}`, agent_id: 'a', status: 'completed', output_preview: 'ok' }));
    const md = formatMarkdown(await reportOfLines(lines), { color: false, failOn: 'error' });
    expect(md).not.toContain('```mermaid');
    expect(md).toMatch(/\*The chart would take [\d,]+ characters, more than the 50,000 Mermaid draws on GitHub: the HTML output draws it\.\*/);
    const row = md.split('\n').find((l) => l.includes('`agent-set-mismatch`'))!;
    expect(row.match(/s\.jsonl:\d+/g)).toHaveLength(20);
    expect(row).toMatch(/, … \(\d+ more: the JSON output lists them\) \|$/);
  });
});
