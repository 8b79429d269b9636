// A runaway error or output preview (a model that printed megabytes): the page repeats each text in
// the hover card, the bar's title and the outputs list, so it shows a capped part and says so.
import { describe, expect, it } from 'vitest';
import { capText } from '../../src/format/html/escape.js';
import { runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const T = (s: number) => `2025-11-03T09:15:0${s}.000000000+00:00`;
const LONG = 300_000;

describe('capText', () => {
  it('keeps a text within the limit and cuts a longer one, saying how much is left out', () => {
    expect(capText('abc', 3)).toBe('abc');
    expect(capText('abcdef', 4)).toBe('abcd… (2 more characters; the json report has the whole text)');
  });

  it('never cuts a surrogate pair in half', () => {
    const s = 'ab\u{1F600}cd'; // the emoji is two UTF-16 units at 2 and 3
    expect(capText(s, 3)).toBe('ab… (4 more characters; the json report has the whole text)');
    expect(capText(s, 4)).toBe('ab\u{1F600}… (2 more characters; the json report has the whole text)');
  });
});

describe('--format html with a runaway output', () => {
  it('caps the error, the output preview and the aggregate preview; json keeps them whole', async () => {
    const d = 'd-long';
    const input = journal(
      ev.started(T(1), { delegation_id: d, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(T(2), { delegation_id: d, sub_run_id: 'r-1', parent_run_id: 'p', agent_id: 'a' }),
      ev.subCompleted(T(3), { delegation_id: d, sub_run_id: 'r-1', agent_id: 'a', status: 'failed', error: 'E'.repeat(LONG), output_preview: 'O'.repeat(LONG) }),
      ev.completed(T(4), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed', aggregated_output_preview: 'A'.repeat(LONG) }),
    );
    const html = await runMain(['--stdin', '--format', 'html', '--fail-on', 'none'], { input });
    expect([html.code, html.stderr]).toEqual([0, '']);
    // Each text at most 100 000 characters on the page, once; 2 000 in each card copy.
    expect(html.stdout.length).toBeLessThan(3 * 100_000 + 4 * 2_000 + 100_000);
    expect(html.stdout).toContain(`${'E'.repeat(2000)}… (${LONG - 2000} more characters; the json report has the whole text)`);
    expect(html.stdout).toContain(`${'O'.repeat(100_000)}… (${LONG - 100_000} more characters; the json report has the whole text)`);
    expect(html.stdout).toContain(`${'A'.repeat(100_000)}… (${LONG - 100_000} more characters`);
    const json = await runMain(['--stdin', '--format', 'json', '--fail-on', 'none'], { input });
    expect(json.stdout).toContain('O'.repeat(LONG));
    expect(json.stdout).toContain('A'.repeat(LONG));
  });
});
