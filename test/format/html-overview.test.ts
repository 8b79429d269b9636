// What the page claims about itself: the started column is marked sorted only when the rows are in
// start order, a clipped id shows whole on hover, and every bar colour has a legend entry.
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const T = (s: number) => `2025-11-03T09:15:${String(s).padStart(2, '0')}.000Z`;
const page = async (input: string) => {
  const r = await runMain(['--stdin', '--all', '--format', 'html', '--fail-on', 'none'], { input });
  expect(r.code).toBe(0);
  return r.stdout;
};
const LONG_ID = `d-${'x'.repeat(60)}`;
const started = (id: string, s: number) => [
  ev.started(T(s), { delegation_id: id, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
  ev.subStarted(T(s + 1), { delegation_id: id, sub_run_id: `${id}-r`, parent_run_id: 'p', agent_id: 'a' }),
  ev.subCompleted(T(s + 2), { delegation_id: id, sub_run_id: `${id}-r`, agent_id: 'a', status: 'stalled' }),
];

describe('html overview', () => {
  it('marks the started column sorted when every delegation has a start, and not otherwise', async () => {
    expect(await page(journal(...started('d-1', 1), ...started(LONG_ID, 10)))).toContain('<th data-sort="started" data-numeric aria-sort="ascending">');
    const startless = ev.subStarted(T(5), { delegation_id: 'd-lost', sub_run_id: 'r-lost', parent_run_id: 'p', agent_id: 'a' });
    const html = await page(journal(...started('d-1', 1), startless, ...started(LONG_ID, 10)));
    expect(html).toContain('<th data-sort="started" data-numeric>started</th>');
  });

  it('gives a clipped id its whole name on hover, and a legend entry to a status of no known colour', async () => {
    const html = await page(journal(...started('d-1', 1), ...started(LONG_ID, 10)));
    expect(html).toContain(`title="${LONG_ID}"><code>${LONG_ID.slice(0, 43)}…</code>`);
    expect(html).toContain('<li><span class="sw st-unknown"></span>other or no status</li>');
    expect(html).toMatch(/<details class="events"><summary>Journal events \(\d+\)<\/summary><div class="table-scroll"><table>/);
  });

  it("says a row's finding counts in words that agree with the number on hover (3 errors, 1 warning)", async () => {
    const r = await runMain(['--demo', '--all', '--format', 'html']);
    expect(r.stdout).toContain('<span class="count sev-error" title="3 errors">3E</span>');
    expect(r.stdout).toContain('<span class="count sev-warning" title="1 warning">1W</span>');
    expect(r.stdout).toContain('<span class="count sev-info" title="1 info">1I</span>');
  });
});
