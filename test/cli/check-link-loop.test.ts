// `check` on a loop of symbolic links names the loop: "does not exist" or "no expectations file" (advising an --update that cannot write there) misled.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runMain } from '../helpers/cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-check-loop-'));
  cpSync(path.join(FIXTURES, 'formats', 'join-late.jsonl'), path.join(dir, 'join-late.jsonl'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(process.platform === 'win32')('check and loops of symbolic links', () => {
  it('an X.expected.json that links to itself is named as a loop, by check and check --update alike', async () => {
    symlinkSync('join-late.jsonl.expected.json', path.join(dir, 'join-late.jsonl.expected.json'));
    const message = 'trace-delegation: join-late.jsonl.expected.json is a loop of symbolic links, not a regular file, so it cannot hold expectations; move it away (check --update then records the current findings)\n';
    for (const args of [['check', 'join-late.jsonl'], ['check', '--update', 'join-late.jsonl']]) {
      const r = await runMain(args, { cwd: dir, env: { CI: '' } });
      expect(r.stderr, args.join(' ')).toBe(message);
      expect(r.stdout).toBe('');
      expect(r.code).toBe(2);
    }
  });

  it("a folder's case whose X.expected.json is a loop names the loop in words, not Node's ELOOP", async () => {
    symlinkSync('join-late.jsonl.expected.json', path.join(dir, 'join-late.jsonl.expected.json'));
    const r = await runMain(['check', '.'], { cwd: dir, env: { CI: '' } });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^trace-delegation: the expectations file \S*join-late\.jsonl\.expected\.json cannot be read \(a loop of symbolic links\)\n$/);
  });

  it('a journal argument that is a loop is named as one, not as missing', async () => {
    symlinkSync('b.jsonl', path.join(dir, 'a.jsonl'));
    symlinkSync('a.jsonl', path.join(dir, 'b.jsonl'));
    const r = await runMain(['check', 'a.jsonl'], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'trace-delegation: a.jsonl is a loop of symbolic links\n']);
  });
});
