// The HTML timeline as an engineer reads it: each retry on its own row (its status label is never
// under the next attempt's bar), a finding's run links to its own delegation's bars, and every
// error and output preview readable in full.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

/** A temporary tree holding one journal of these lines, removed after `use`. */
async function withJournal<T>(lines: string[], use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-html-'));
  try {
    writeFileSync(path.join(dir, 'j.jsonl'), journal(...lines));
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const html = async (sessions: string) => {
  const r = await runBin(['--sessions', sessions, '--all', '--format', 'html', '--fail-on', 'none']);
  expect(r.code).toBe(0);
  return r.stdout;
};

/** The y of each attempt bar's rect, by bar id (`d<i>-c<child>-a<attempt>`). */
function barRows(page: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of page.matchAll(/<g id="(d\d+-c\d+-a\d+)"[^>]*>(?:<title>[^<]*<\/title>)?<(?:rect|path) class="shape" (?:x="[^"]*" y="([\d.]+)"|d="M[\d.]+ ([\d.]+))/g)) out.set(m[1], Number(m[2] ?? m[3]));
  return out;
}

describe('html timeline layout', () => {
  it('draws each attempt of a retried child on its own row, below the one it retries', async () => {
    const rows = barRows(await html(path.join(FIXTURES, 'formats', 'retry-and-failure.jsonl')));
    const retried = [...rows.keys()].filter((id) => id.endsWith('-a1'));
    expect(retried.length).toBeGreaterThan(0);
    for (const id of retried) {
      const first = rows.get(id.replace(/-a1$/, '-a0'))!;
      expect(rows.get(id)!).toBeGreaterThan(first);
    }
    // No two bars share a row's y within one child.
    const byChild = new Map<string, number[]>();
    for (const [id, y] of rows) {
      const child = id.replace(/-a\d+$/, '');
      byChild.set(child, [...(byChild.get(child) ?? []), y]);
    }
    for (const ys of byChild.values()) expect(new Set(ys).size).toBe(ys.length);
  });

  it("links a finding's runs to its own delegation's bars when a run id also has bars elsewhere", async () => {
    const lines: string[] = [];
    for (const [d, parent, t] of [['d-one', 'p1', '2025-11-07T08:00:0'], ['d-two', 'p2', '2025-11-07T09:00:0']] as const) {
      lines.push(
        ev.started(`${t}0Z`, { delegation_id: d, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['a'] }),
        ev.subStarted(`${t}1Z`, { delegation_id: d, sub_run_id: 'shared-run', parent_run_id: parent, agent_id: 'a' }),
      );
      if (d === 'd-one') lines.push(ev.subCompleted(`${t}2Z`, { delegation_id: d, sub_run_id: 'shared-run', agent_id: 'a', status: 'completed', output_preview: 'ok' }));
      lines.push(ev.completed(`${t}3Z`, { delegation_id: d, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }));
    }
    const page = await withJournal(lines, html);
    const sections = page.split('<section class="delegation" id="').slice(1);
    expect(sections.length).toBe(2);
    let checked = 0;
    for (const section of sections) {
      const id = section.slice(0, section.indexOf('"'));
      for (const m of section.matchAll(/<li id="d\d+-f\d+"[^]*?<\/li>/g)) {
        for (const link of m[0].matchAll(/class="run-link" href="#([^"]+)"/g)) {
          expect(link[1].startsWith(`${id}-`), `${id}: ${link[1]}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('shows every error and output preview in full, selectable, under "Errors and outputs"', async () => {
    const trace = Array.from({ length: 200 }, (_, n) => `    at frame${n} (src/worker.rs:${n + 1}) <&>`).join('\n');
    const page = await withJournal(
      [
        ev.started('2025-11-07T08:00:00Z', { delegation_id: 'd-err', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
        ev.subStarted('2025-11-07T08:00:01Z', { delegation_id: 'd-err', sub_run_id: 'r-err', parent_run_id: 'p', agent_id: 'a' }),
        ev.subCompleted('2025-11-07T08:00:02Z', { delegation_id: 'd-err', sub_run_id: 'r-err', agent_id: 'a', status: 'failed', error: `panic: index out of range\n${trace}` }),
        ev.completed('2025-11-07T08:00:03Z', { delegation_id: 'd-err', pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed' }),
      ],
      html,
    );
    expect(page).toContain('<summary>Errors and outputs (1)</summary>');
    const escaped = `panic: index out of range\n${trace}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(page).toContain(`<pre class="otext">${escaped}</pre>`);
  });

  it('says so in the row of an attempt whose times do not parse, instead of leaving its lane empty', async () => {
    const page = await withJournal(
      [
        ev.started('2025-11-07T08:00:00Z', { delegation_id: 'd-u', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a', 'b'] }),
        ev.subStarted('2025-11-07T08:00:01Z', { delegation_id: 'd-u', sub_run_id: 'r-a', parent_run_id: 'p', agent_id: 'a' }),
        ev.subStarted('soon', { delegation_id: 'd-u', sub_run_id: 'r-b', parent_run_id: 'p', agent_id: 'b' }),
        ev.subCompleted('2025-11-07T08:00:02Z', { delegation_id: 'd-u', sub_run_id: 'r-a', agent_id: 'a', status: 'completed', output_preview: 'ok' }),
        ev.subCompleted('later', { delegation_id: 'd-u', sub_run_id: 'r-b', agent_id: 'b', status: 'failed', error: 'boom' }),
        ev.completed('2025-11-07T08:00:03Z', { delegation_id: 'd-u', pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' }),
      ],
      html,
    );
    expect(page).toMatch(/<g id="d0-c\d+-a0"[^>]*data-run="r-b"[^>]*><title>[^<]*<\/title><text class="note shape-note"[^>]*>r-b · failed · no journaled time parses<\/text><\/g>/);
  });

  it('has no link to an id the page lacks: fixture trees, and a delegation none of whose times parse', async () => {
    const untimed = [
      ev.started('never', { delegation_id: 'd-none', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted('never', { delegation_id: 'd-none', sub_run_id: 'r-n', parent_run_id: 'p', agent_id: 'a' }),
      ev.subCompleted('never', { delegation_id: 'd-none', sub_run_id: 'r-n', agent_id: 'a', status: 'failed', error: 'boom' }),
    ];
    const pages = [await withJournal(untimed, html)];
    for (const tree of [path.join(FIXTURES, 'sessions'), path.join(FIXTURES, 'formats'), path.join(FIXTURES, 'checks', 'missing-start')]) pages.push(await html(tree));
    for (const page of pages) {
      const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
      expect([...page.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]).filter((id) => !ids.has(id))).toEqual([]);
    }
  });

  it('leaves out the "start" label when the join line is too close to print its own beside it', async () => {
    const page = await withJournal(
      [
        ev.started('2025-11-07T08:00:00Z', { delegation_id: 'd-late', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
        ev.subStarted('2025-11-07T08:00:00.100Z', { delegation_id: 'd-late', sub_run_id: 'r-late', parent_run_id: 'p', agent_id: 'a' }),
        ev.completed('2025-11-07T08:00:01Z', { delegation_id: 'd-late', pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed' }),
        ev.subCompleted('2025-11-07T08:05:00Z', { delegation_id: 'd-late', sub_run_id: 'r-late', agent_id: 'a', status: 'completed', output_preview: 'late' }),
      ],
      html,
    );
    expect(page).toMatch(/<g class="start-line"[^>]*><line[^>]*\/><text[^>]*><\/text><\/g>/);
    expect(page).toMatch(/<g class="join-line"[^>]*><line[^>]*\/><text[^>]*>join \+1s<\/text><\/g>/);
    const roomy = await html(path.join(FIXTURES, 'formats', 'retry-and-failure.jsonl'));
    expect(roomy).toMatch(/<g class="start-line"[^>]*><line[^>]*\/><text[^>]*>start<\/text><\/g>/);
  });

  it('says which severity each overview count is, in text as well as colour', async () => {
    const r = await runBin(['--demo', '--all', '--format', 'html', '--fail-on', 'none']);
    const counts = [...r.stdout.matchAll(/<span class="count sev-(error|warning|info)" title="(\d+) (error|warning|info)">(\d+)([EWI])<\/span>/g)];
    expect(counts.length).toBeGreaterThan(0);
    for (const m of counts) {
      expect(m[3]).toBe(m[1]);
      expect(m[4]).toBe(m[2]);
      expect(m[5]).toBe(m[1][0].toUpperCase());
    }
  });
});
