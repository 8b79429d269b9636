import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

/** An output stream whose write throws a plain Error: a stand-in for a bug inside the tool. */
async function runWithBrokenStdout(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  const err = new PassThrough();
  let stderr = '';
  err.setEncoding('utf8').on('data', (d) => (stderr += d));
  const out = new PassThrough();
  out.write = () => {
    throw new Error('boom');
  };
  const code = await main({ argv: ['rules'], stdout: out, stderr: err, stdin: Readable.from(['']), env });
  return { code, stderr };
}

describe('an internal error (README "Exit codes", docs/reliability.md)', () => {
  it('is one line on stderr and exit 2; TRACE_DELEGATION_DEBUG=1 adds the stack trace', async () => {
    const plain = await runWithBrokenStdout({});
    expect(plain).toEqual({ code: 2, stderr: 'trace-delegation: internal error: boom (set TRACE_DELEGATION_DEBUG=1 for details)\n' });
    const debug = await runWithBrokenStdout({ TRACE_DELEGATION_DEBUG: '1' });
    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(/^trace-delegation: internal error: boom\nError: boom\n\s+at /);
  });
});
