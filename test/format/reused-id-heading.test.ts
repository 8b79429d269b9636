import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
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
