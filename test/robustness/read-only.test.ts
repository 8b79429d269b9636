/** The tool only reads journals: after any command the sessions tree is exactly as it was. */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';
import { expectHealthy, LOCAL, removeTempDirs, SAMPLE, tempDir, writeTree } from './support.js';

afterAll(removeTempDirs);

/** Every entry under root with its kind, mode, size, mtime (ns) and content hash or link target. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      const st = lstatSync(p, { bigint: true });
      const rel = path.relative(root, p);
      const kind = st.isSymbolicLink() ? `link→${readlinkSync(p)}` : st.isDirectory() ? 'dir' : createHash('sha256').update(readFileSync(p)).digest('hex');
      out[rel] = `${kind} mode=${st.mode.toString(8)} size=${st.size} mtime=${st.mtimeNs} ctime=${st.ctimeNs}`;
      if (st.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

describe('read-only', () => {
  it('leaves every file, directory and link byte-for-byte and mtime unchanged, whatever the command', async () => {
    const root = tempDir('read-only');
    const d = 'f00dcafe-0000-4000-8000-000000000001';
    const open = journal(
      ev.started('2026-03-10T10:00:00Z', { delegation_id: d, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted('2026-03-10T10:00:01Z', { delegation_id: d, sub_run_id: 'run-a', parent_run_id: 'p', agent_id: 'a' }),
    ).replace(/\n$/, ''); // unterminated, as if still being written
    writeTree(root, {
      'legacy.jsonl': SAMPLE,
      [`${LOCAL}/open.jsonl`]: open,
      [`${LOCAL}/archived.jsonl.gz`]: gzipSync(SAMPLE),
      [`${LOCAL}/archived.jsonl`]: SAMPLE.split('\n').slice(0, 10).join('\n'),
      [`${LOCAL}/broken.jsonl.gz`]: Buffer.from('not gzip'),
      'notes/readme.txt': 'not a journal',
    });
    symlinkSync('legacy.jsonl', path.join(root, 'alias.jsonl'));
    // Old, distinct mtimes so that any rewrite or touch would show.
    const old = new Date('2024-01-02T03:04:05Z');
    for (const rel of ['legacy.jsonl', `${LOCAL}/open.jsonl`, `${LOCAL}/archived.jsonl.gz`, `${LOCAL}/archived.jsonl`, `${LOCAL}/broken.jsonl.gz`]) utimesSync(path.join(root, rel), old, old);
    const before = snapshot(root);

    const out = tempDir('read-only-out');
    const commands = [
      ...Object.keys(FORMATTERS).map((f) => ['--all', '--format', f]),
      ['--all', '--output', `json=${path.join(out, 'r.json')}`, '--output', `html=${path.join(out, 'r.html')}`],
      [], // last
      ['list'],
      ['list', '--events'],
      [d],
    ];
    for (const args of commands) {
      const r = await runMain(['--sessions', root, ...args]);
      expectHealthy(r, `read-only: ${args.join(' ')}`);
    }
    expect(snapshot(root)).toEqual(before);
  });
});
