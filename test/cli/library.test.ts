// The library entry as the README's Library section uses it: the CLI's text and exit code from a
// report, and one clear error for sessions given as a string.
import { describe, expect, it } from 'vitest';
import { analyze, exitCodeForFindings, FORMATTERS, InputError } from '../../src/index.js';
import { FIXTURES, runMain } from '../helpers/cli.js';
import path from 'node:path';

describe('library', () => {
  it("gives the CLI's text and exit code from analyze()", async () => {
    const sessions = [path.join(FIXTURES, 'sessions')];
    const { report } = await analyze({ sessions, all: true });
    const cli = await runMain(['--sessions', sessions[0], '--all']);
    expect(exitCodeForFindings(report.delegations, 'error')).toBe(cli.code);
    expect(FORMATTERS.text(report, { color: false, failOn: 'error' }).split('\n')[0]).toBe(cli.stdout.split('\n')[0]);
  });

  it('refuses sessions given as a string, in one sentence', async () => {
    const err = await analyze({ sessions: FIXTURES as unknown as string[] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`sessions must be a list of paths, such as ['/path/to/sessions'], not ${JSON.stringify(FIXTURES)}`);
  });
});
