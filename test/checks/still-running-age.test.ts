// "Still running" says how old the newest line is; with --now before it, how far in the future it is.
import { expect, it } from 'vitest';
import { stableMessage } from '../../src/format/stable-message.js';
import { runMain } from '../helpers/cli.js';

it('a --now before the newest line gives no negative age, and the stable message drops it too', async () => {
  const before = await runMain(['--demo', 'c8f05d3a', '--now', '2025-11-08T09:05:00Z', '--format', 'json', '--fail-on', 'none']);
  const after = await runMain(['--demo', 'c8f05d3a', '--now', '2025-11-08T10:05:00Z', '--format', 'json', '--fail-on', 'none']);
  const message = (r: { stdout: string }) => JSON.parse(r.stdout).delegations[0].findings.find((f: { id: string }) => f.id === 'delegation-incomplete').message as string;
  expect(message(before)).toContain('still running (the newest line in its files is 3530s in the future)');
  expect(message(after)).toContain('still running (the newest line in its files is 70s old)');
  expect(stableMessage(message(before))).toContain('is Ns in the future');
  expect(stableMessage(message(after))).toContain('is Ns old');
});
