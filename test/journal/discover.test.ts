import { chmodSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSessionRoots, discoverJournals, InputError, LAYOUT_PATTERNS, layoutJournals, stopOnDescriptorExhaustion, toJournalFile } from '../../src/journal/discover.js';
import { scanJournals } from '../../src/journal/scan.js';
import { ev, journal } from '../helpers/journal.js';

const root = mkdtempSync(path.join(tmpdir(), 'td-discover-'));
const sessions = path.join(root, 'sessions');
const LOCAL = 'v1/users/b64-bG9jYWw/sessions';
const OTHER = 'v1/users/b64-dXNyXzhjMmU0MQ/sessions';

const started = ev.started('2025-11-03T09:15:01Z', { delegation_id: 'd-1', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] });
const completed = ev.completed('2025-11-03T09:15:09Z', { delegation_id: 'd-1', pattern: 'fan_out', total_sub_runs: 0, succeeded: 0, failed: 0, aggregated_status: 'failed' });

function put(rel: string, content: string | Buffer = journal(started)) {
  const p = path.join(sessions, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
}

beforeAll(() => {
  put('legacy-1.jsonl');
  put('delegation.jsonl');
  put('old.jsonl.gz', gzipSync(journal(started)));
  put(`${LOCAL}/s-1.jsonl`);
  put(`${LOCAL}/s-2.jsonl`, journal(started));
  put(`${LOCAL}/s-2.jsonl.gz`, gzipSync(journal(started, completed)));
  put(`${OTHER}/s-3.jsonl`);
  // Siblings Astra writes that are not journals.
  put(`${LOCAL}/s-1/checkpoints/turn-1.json`, '{}');
  put(`${LOCAL}/s-1/workspace/notes.jsonl`);
  put(`${LOCAL}/.execution-locks/s-1.lock`, '');
  put('legacy-1/checkpoints/turn-1.jsonl');
  put('README.txt', 'not a journal');
  put('v1/users/b64-bG9jYWw/other/x.jsonl');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const rel = (files: { path: string }[]) => files.map((f) => path.relative(sessions, f.path).split(path.sep).join('/'));

describe('discoverJournals', () => {
  it('finds both layouts and their archives, and nothing else, in path order', async () => {
    const files = await discoverJournals([sessions], root);
    expect(rel(files)).toEqual([
      'delegation.jsonl',
      'legacy-1.jsonl',
      'old.jsonl.gz',
      `${LOCAL}/s-1.jsonl`,
      `${LOCAL}/s-2.jsonl`,
      `${LOCAL}/s-2.jsonl.gz`,
      `${OTHER}/s-3.jsonl`,
    ]);
  });

  it('names each file by session id and pairs <sid>.jsonl with <sid>.jsonl.gz', async () => {
    const files = await discoverJournals([sessions], root);
    const byRel = new Map(files.map((f) => [path.relative(sessions, f.path).split(path.sep).join('/'), f]));
    expect(byRel.get('old.jsonl.gz')!.sessionId).toBe('old');
    expect(byRel.get('delegation.jsonl')!.sessionId).toBe('delegation');
    expect(byRel.get(`${LOCAL}/s-2.jsonl`)!.pairKey).toBe(byRel.get(`${LOCAL}/s-2.jsonl.gz`)!.pairKey);
    expect(byRel.get(`${LOCAL}/s-1.jsonl`)!.pairKey).not.toBe(byRel.get(`${LOCAL}/s-2.jsonl`)!.pairKey);
  });

  it('shows paths relative to the working directory when inside it, absolute otherwise', async () => {
    const inside = await discoverJournals([sessions], root);
    expect(inside[0].display).toBe('sessions/delegation.jsonl');
    const outside = await discoverJournals([sessions], path.join(root, 'elsewhere'));
    expect(outside[0].display).toBe(path.join(sessions, 'delegation.jsonl'));
  });

  it('takes a file as is and expands globs relative to the working directory', async () => {
    const one = await discoverJournals([path.join(sessions, LOCAL, 's-1.jsonl')], root);
    expect(rel(one)).toEqual([`${LOCAL}/s-1.jsonl`]);
    const glob = await discoverJournals(['sessions/v1/users/*/sessions/*.jsonl'], root);
    expect(rel(glob)).toEqual([`${LOCAL}/s-1.jsonl`, `${LOCAL}/s-2.jsonl`, `${OTHER}/s-3.jsonl`]);
    // A folder it matches is a root: every owner's sessions folder, as the layouts read it.
    const folders = await discoverJournals(['sessions/v1/users/*/sessions'], root);
    expect(rel(folders)).toEqual(rel(await discoverJournals([path.join(sessions, 'v1', 'users', LOCAL.split('/')[2], 'sessions'), path.join(sessions, 'v1', 'users', OTHER.split('/')[2], 'sessions')], root)));
    expect(rel(folders)).toContain(`${OTHER}/s-3.jsonl`);
    // A glob that matches nothing is a user error, like a root that does not exist.
    await expect(discoverJournals(['sessions/nothing-*.jsonl'], root)).rejects.toThrow('sessions glob sessions/nothing-*.jsonl matches no file or folder');
  });

  it('lists a file once when several roots reach it', async () => {
    const files = await discoverJournals([sessions, path.join(sessions, 'legacy-1.jsonl'), 'sessions/*.jsonl'], root);
    expect(rel(files).filter((f) => f === 'legacy-1.jsonl')).toHaveLength(1);
    expect(files).toHaveLength(7);
  });

  // Root reads any directory, so this can only be observed as another user.
  it.skipIf(process.getuid?.() === 0)('a directory root that cannot be listed is an InputError, not an empty tree', async () => {
    const locked = path.join(root, 'locked');
    mkdirSync(locked, { mode: 0o000 });
    try {
      await expect(discoverJournals([locked], root)).rejects.toThrow('sessions root ' + locked + ' cannot be read (permission denied)');
    } finally {
      chmodSync(locked, 0o700);
    }
  });

  it('a missing root is an InputError that names it', async () => {
    await expect(discoverJournals(['no-such-dir'], root)).rejects.toThrow(InputError);
    await expect(discoverJournals(['no-such-dir'], root)).rejects.toThrow('sessions root no-such-dir does not exist');
  });
});

describe('reading a .jsonl / .jsonl.gz pair', () => {
  it('reads both and drops the lines the archive repeats', async () => {
    const files = await discoverJournals([path.join(sessions, LOCAL)], root);
    const { events, files: stats } = await scanJournals(files);
    const s2 = events.filter((e) => e.file.includes('s-2.jsonl'));
    expect(s2.map((e) => [e.type, path.basename(e.file)])).toEqual([
      ['delegation_started', 's-2.jsonl'],
      ['delegation_completed', 's-2.jsonl.gz'],
    ]);
    expect(stats.find((f) => f.file.endsWith('s-2.jsonl.gz'))!.duplicateLines).toBe(1);
    expect(stats.find((f) => f.file.endsWith('s-1.jsonl'))!.duplicateLines).toBe(0);
  });

  it('does not drop identical lines of different sessions', async () => {
    const { events } = await scanJournals(await discoverJournals([sessions], root));
    expect(events.filter((e) => e.type === 'delegation_started')).toHaveLength(6); // 7 files, one of them the s-2 archive
  });
});

describe('defaultSessionRoots', () => {
  it('uses ASTRA_SESSIONS_DIR, else ~/.astra/sessions', () => {
    expect(defaultSessionRoots({ ASTRA_SESSIONS_DIR: '/srv/astra' })).toEqual(['/srv/astra']);
    expect(defaultSessionRoots({})).toEqual([path.join(homedir(), '.astra', 'sessions')]);
  });
});

describe('toJournalFile', () => {
  it('derives the session id from <sid>.jsonl and <sid>.jsonl.gz', () => {
    expect(toJournalFile('/x/abc.jsonl.gz', '/y').sessionId).toBe('abc');
    expect(toJournalFile('/x/abc.jsonl', '/x')).toMatchObject({ sessionId: 'abc', display: 'abc.jsonl' });
    // Files named on the command line may have any name: only the journal suffixes are dropped, once.
    expect(toJournalFile('/x/abc.log', '/x').sessionId).toBe('abc.log');
    expect(toJournalFile('/x/abc.gz', '/x').sessionId).toBe('abc');
    expect(toJournalFile('/x/abc.jsonl.jsonl', '/x').sessionId).toBe('abc.jsonl');
    expect(toJournalFile('/x/.jsonl', '/x').sessionId).toBe('');
    // The journals of one session share a key: a journal and its archive, and a session in both
    // layouts (their repeated lines are read once); other sessions do not.
    expect(toJournalFile('/x/abc.jsonl.gz', '/x').pairKey).toBe(toJournalFile('/x/abc.jsonl', '/x').pairKey);
    expect(toJournalFile('/r/v1/users/b64-bG9jYWw/sessions/abc.jsonl', '/x').pairKey).toBe(toJournalFile('/r/abc.jsonl', '/x').pairKey);
    expect(toJournalFile('/x/abd.jsonl', '/x').pairKey).not.toBe(toJournalFile('/x/abc.jsonl', '/x').pairKey);
    // Display paths: relative below the working directory, as given elsewhere (as path.relative would say).
    for (const [p, cwd, shown] of [
      ['/x/v1/users/a/sessions/s.jsonl', '/x', 'v1/users/a/sessions/s.jsonl'],
      ['/x/s.jsonl', '/x/', 's.jsonl'],
      ['/a/s.jsonl', '/', 'a/s.jsonl'],
      ['/xy/s.jsonl', '/x', '/xy/s.jsonl'],
      ['/x', '/x', '/x'],
      ['/elsewhere/s.jsonl', '/x', '/elsewhere/s.jsonl'],
    ]) {
      expect(toJournalFile(p, cwd).display, `${p} from ${cwd}`).toBe(shown);
    }
  });
});

describe('layout listing', () => {
  it('lists a journal and a link to it once, under the journal\'s own name, however the tree is searched', async () => {
    const tree = mkdtempSync(path.join(tmpdir(), 'td-links-'));
    try {
      mkdirSync(path.join(tree, 'v1/users/o1/sessions'), { recursive: true });
      writeFileSync(path.join(tree, 'v1/users/o1/sessions/real.jsonl'), '{}\n');
      // Listed before its target (sorted, and in its own folder), and found by the listing, a glob and a file root.
      symlinkSync(path.join(tree, 'v1/users/o1/sessions/real.jsonl'), path.join(tree, 'a-link.jsonl'));
      symlinkSync('real.jsonl', path.join(tree, 'v1/users/o1/sessions/0-link.jsonl'));
      for (const roots of [[tree], [path.join(tree, '*.jsonl'), tree], [path.join(tree, 'a-link.jsonl'), path.join(tree, 'v1/users/o1/sessions/real.jsonl')]]) {
        const files = await discoverJournals(roots, tree);
        expect(files.map((f) => f.display), roots.join(' ')).toEqual(['v1/users/o1/sessions/real.jsonl']);
        expect(files[0].pairKey).toBe('real');
      }
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('lists a journal and a hard link to it once (the first path in order), and keeps a copy', async () => {
    const tree = mkdtempSync(path.join(tmpdir(), 'td-hardlinks-'));
    try {
      mkdirSync(path.join(tree, 'v1/users/o1/sessions'), { recursive: true });
      writeFileSync(path.join(tree, 'v1/users/o1/sessions/s-1.jsonl'), '{}\n');
      linkSync(path.join(tree, 'v1/users/o1/sessions/s-1.jsonl'), path.join(tree, 'backup.jsonl'));
      linkSync(path.join(tree, 'v1/users/o1/sessions/s-1.jsonl'), path.join(tree, 'v1/users/o1/sessions/s-1-again.jsonl'));
      writeFileSync(path.join(tree, 'copy.jsonl'), '{}\n'); // same bytes, another file: read
      const files = await discoverJournals([tree], tree);
      expect(files.map((f) => f.display)).toEqual(['backup.jsonl', 'copy.jsonl']);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('lists what fast-glob lists for the layout patterns, on a tree of look-alikes', async () => {
    const fg = (await import('fast-glob')).default;
    const tree = mkdtempSync(path.join(tmpdir(), 'td-layout-'));
    try {
      const file = (rel: string) => {
        mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
        writeFileSync(path.join(tree, rel), '{}\n');
      };
      for (const rel of ['a.jsonl', 'b.jsonl.gz', '.hidden.jsonl', 'A.JSONL', 'c.json', 'notes.jsonl.bak', 'v1/users/o1/sessions/s1.jsonl', 'v1/users/o1/sessions/s2.jsonl.gz', 'v1/users/.dot/sessions/s3.jsonl', 'v1/users/o2/other/s4.jsonl', 'v1/users/o2/sessions/deeper/s5.jsonl', 'elsewhere/sessions/s6.jsonl', 'elsewhere/t.jsonl'])
        file(rel);
      mkdirSync(path.join(tree, 'dir.jsonl'));
      mkdirSync(path.join(tree, 'v1/users/o1/sessions/dir.jsonl'));
      symlinkSync(path.join(tree, 'elsewhere'), path.join(tree, 'v1/users/linked')); // an owner folder that is a link
      symlinkSync(path.join(tree, 'elsewhere/t.jsonl'), path.join(tree, 'alias.jsonl'));
      symlinkSync(path.join(tree, 'nowhere.jsonl'), path.join(tree, 'dangling.jsonl'));
      symlinkSync(path.join(tree, 'elsewhere'), path.join(tree, 'dirlink.jsonl'));
      const globbed = await fg(LAYOUT_PATTERNS, { cwd: tree, absolute: true, onlyFiles: true, followSymbolicLinks: true, suppressErrors: true, deep: 5 });
      const listed = layoutJournals(tree);
      expect(listed.sort()).toEqual(globbed.sort());
      expect(listed.map((p) => path.relative(tree, p)).sort()).toEqual(['a.jsonl', 'alias.jsonl', 'b.jsonl.gz', 'v1/users/linked/sessions/s6.jsonl', 'v1/users/o1/sessions/s1.jsonl', 'v1/users/o1/sessions/s2.jsonl.gz']);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});

describe('out of file descriptors', () => {
  it('stops the run with one sentence instead of reading less', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(() => stopOnDescriptorExhaustion(err('EMFILE'))).toThrow(InputError);
    expect(() => stopOnDescriptorExhaustion(err('ENFILE'))).toThrow(/raise the limit \(ulimit -n\)/);
    expect(() => stopOnDescriptorExhaustion(err('ENOENT'))).not.toThrow();
    expect(() => stopOnDescriptorExhaustion(undefined)).not.toThrow();
  });
});
