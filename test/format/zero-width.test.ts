// `run-1` and `run-1\u200b` look alike: a zero-width space, word joiner or a BOM inside journal
// text is spelled out (`\u200b`) in the text, HTML and GitHub formats, as control and bidi
// characters are. ZWJ stays: emoji sequences need it.
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const INPUT = journal(
  ev.started('2026-03-10T10:00:00Z', { delegation_id: 'd-zw', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['coder\u200b', 'coder'] }),
  ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: 'd-zw', sub_run_id: 'run-1\u200b', parent_run_id: 'p', agent_id: 'coder\u200b' }),
  ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: 'd-zw', sub_run_id: 'run-1', parent_run_id: 'p', agent_id: 'coder' }),
  // run-1 fails (its error shown in HTML); run-1\u200b never completes (named by a finding).
  ev.subCompleted('2026-03-10T10:00:02Z', { delegation_id: 'd-zw', sub_run_id: 'run-1', agent_id: 'coder', status: 'failed', error: 'bo\u2060om \ufeff 👨‍👩‍👧' }),
);
const run = (format: string) => runBin(['--stdin', '--all', '--format', format, '--fail-on', 'none'], { input: INPUT });

describe('zero-width characters in journal text', () => {
  it.each(['text', 'html', 'github'])('%s spells them out, and keeps an emoji sequence whole', async (format) => {
    const out = (await run(format)).stdout;
    expect(out).not.toMatch(/[\u200b\u2060\ufeff]/);
    expect(out).toContain('run-1\\u200b');
    if (format === 'html') expect(out).toContain('👨‍👩‍👧'); // the error text is shown there
  });
});
