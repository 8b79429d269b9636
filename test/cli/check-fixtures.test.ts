// The project's own fixtures, checked the way a CI pipeline would: every journal file or session
// folder with an X.expected.json beside it must produce exactly the findings it lists.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin } from '../helpers/cli.js';

const expectationFiles = readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.expected.json') && !f.split('/').some((p) => p.startsWith('.')));

describe('trace-delegation check fixtures', () => {
  it('passes every case (the real binary, "now" pinned to 2030-01-01)', async () => {
    const r = await runBin(['check', 'fixtures']);
    const failing = r.stdout.split('\n').filter((l) => !l.startsWith('PASS '));
    // On failure the diff itself is the message: which case, which expectation, which finding.
    expect(failing.join('\n')).toBe(`${expectationFiles.length} passed, 0 failed\n`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('PASS '))).toHaveLength(expectationFiles.length);
  });
});
