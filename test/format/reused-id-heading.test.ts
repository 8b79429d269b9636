import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { FIXTURES, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

// One id started on Monday (completed) and again on Tuesday: two blocks that only the key tells apart.
const ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const INPUT = journal(
  ev.started('2025-11-03T09:15:00Z', { delegation_id: ID, parent_run_id: 'run-monday', pattern: 'fan_out', agent_ids: ['a'] }),
  ev.completed('2025-11-03T09:16:00Z', { delegation_id: ID, pattern: 'fan_out', total_sub_runs: 0, succeeded: 0, failed: 0, aggregated_status: 'completed' }),
  ev.started('2025-11-04T09:15:00Z', { delegation_id: ID, parent_run_id: 'run-tuesday', pattern: 'fan_out', agent_ids: ['a'] }),
);
const run = (format: string) => runBin(['--stdin', '--all', '--format', format, '--fail-on', 'none'], { input: INPUT });

describe('a reused delegation id in the report headings', () => {
  it('text: the first use keeps the bare id, the second names the key that targets it', async () => {
    const r = await run('text');
    expect(r.stdout.split('\n').filter((l) => l.startsWith('Delegation Trace:'))).toEqual([`Delegation Trace: ${ID}`, `Delegation Trace: ${ID} (key ${ID}#2)`]);
    // The key shown is a target that names exactly that block.
    const t = await runBin(['--stdin', `${ID}#2`, '--fail-on', 'none'], { input: INPUT });
    expect(t.stdout).toContain('Parent run: run-tuesday');
    expect(t.stdout).not.toContain('run-monday');
  });

  it('markdown: the summary row and the section heading carry the key', async () => {
    const r = await run('markdown');
    // `#2` is written `#&#8203;2` in Markdown so GitHub does not link it to issue 2.
    const key = `${ID} (key ${ID}#&#8203;2)`;
    expect(r.stdout).toContain(`### Delegation ${key}`);
    expect(r.stdout.match(/^\| 0a1b2c3d.*$/gm)!.map((row) => row.split(' | ')[0])).toEqual([`| ${ID}`, `| ${key}`]);
  });

  it('html: the heading and the index row show the #2', async () => {
    const r = await run('html');
    expect(r.stdout).toContain(`<code class="did">${ID} (key ${ID}#2)</code>`);
    expect(r.stdout).toContain(`<code>${ID}#2</code>`);
  });
});

// `build` started by three parent runs, beside delegations whose own ids are `build#2` and `build#4`.
describe('a reused id beside ids of the reuse-key shape (fixtures/formats/reuse-key-shaped-ids.jsonl)', () => {
  const FIXTURE = path.join(FIXTURES, 'formats', 'reuse-key-shaped-ids.jsonl');
  const runOn = (args: string[]) => runBin(['--sessions', FIXTURE, '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z', ...args]);

  it('json: every block has its own key; the reuse keys skip the journaled ids', async () => {
    const r = JSON.parse((await runOn(['--all', '--format', 'json'])).stdout) as { delegations: { id: string; key: string; parentRunId: string }[] };
    expect(r.delegations.map((d) => [d.id, d.key, d.parentRunId])).toEqual([
      ['build', 'build', 'run-p1'],
      ['build#2', 'build#2', 'run-p3'],
      ['build', 'build#3', 'run-p2'],
      ['build#4', 'build#4', 'run-p5'],
      ['build', 'build#5', 'run-p4'],
    ]);
  });

  it('chrome-trace process names and markdown chart titles tell the uses apart by their keys', async () => {
    const trace = JSON.parse((await runOn(['--all', '--format', 'chrome-trace'])).stdout) as { traceEvents: { name: string; args?: { name?: string } }[] };
    const names = trace.traceEvents.filter((e) => e.name === 'process_name').map((e) => e.args!.name!.split(' · ')[0]);
    expect(names).toEqual(['delegation build', 'delegation build#2', 'delegation build#3', 'delegation build#4', 'delegation build#5']);
    const md = (await runOn(['--all', '--format', 'markdown'])).stdout;
    const titles = md.match(/^ {4}title .*$/gm)!;
    expect(titles).toHaveLength(5);
    expect(new Set(titles).size).toBe(5); // Mermaid drops the `#`, not the number
  });

  it('a key names one block: build#2 is the delegation of that id, build#3 the second use of build', async () => {
    const own = (await runOn(['build#2'])).stdout;
    expect(own.match(/^(Delegation Trace|Parent run): .*$/gm)).toEqual(['Delegation Trace: build#2', 'Parent run: run-p3']);
    const second = (await runOn(['build#3'])).stdout;
    expect(second.match(/^Delegation Trace: .*$/gm)).toEqual(['Delegation Trace: build (key build#3)']);
  });

  it('otlp, chrome-trace and html keep all five delegations apart', async () => {
    const otlp = JSON.parse((await runOn(['--all', '--format', 'otlp'])).stdout) as { resourceSpans: { scopeSpans: { spans: { parentSpanId?: string }[] }[] }[] };
    const spans = otlp.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.filter((s) => !s.parentSpanId)).toHaveLength(5); // one root span per delegation
    const trace = JSON.parse((await runOn(['--all', '--format', 'chrome-trace'])).stdout) as { traceEvents: { pid: number }[] };
    expect(new Set(trace.traceEvents.map((e) => e.pid)).size).toBe(5);
    const html = (await runOn(['--all', '--format', 'html'])).stdout;
    expect(html.match(/<section class="delegation" id="d\d+"/g)).toEqual([0, 1, 2, 3, 4].map((i) => `<section class="delegation" id="d${i}"`));
  });
});
