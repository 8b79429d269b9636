import { describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain } from '../helpers/cli.js';

describe('--help', () => {
  it('names every registered output format, so help stays in step with the registry', async () => {
    const r = await runMain(['--help']);
    expect(r.code).toBe(0);
    const line = r.stdout.replace(/\s+/g, ' ');
    for (const name of Object.keys(FORMATTERS)) expect(line).toContain(name);
  });

  it('documents the exit codes', async () => {
    const r = await runMain(['--help']);
    expect(r.stdout).toContain('Exit codes: 0 no finding at or above --fail-on, 1 such findings, 2 usage, input or output error.');
  });
});
