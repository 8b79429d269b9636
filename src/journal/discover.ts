import { accessSync, constants as fsConstants, lstatSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import type FastGlob from 'fast-glob';
import { createRequire } from 'node:module';

/** The two layouts Astra has written, plus their gzip archives (journal-format.md §1.1). */
export const LAYOUT_PATTERNS = ['*.jsonl', '*.jsonl.gz', 'v1/users/*/sessions/*.jsonl', 'v1/users/*/sessions/*.jsonl.gz'];

/** fast-glob, loaded for user globs only: the layouts are listed with readdir (≈ 30 ms less start-up). */
let fgModule: typeof FastGlob | undefined;
const fastGlob = (): typeof FastGlob => (fgModule ??= createRequire(import.meta.url)('fast-glob') as typeof FastGlob);

export interface JournalFile {
  path: string;
  /** How the file is named in evidence: relative to the working directory when inside it. */
  display: string;
  /** Session id from the file name (`<sid>.jsonl[.gz]`). */
  sessionId: string;
  /** Key shared by the journals of one session (`<sid>.jsonl`, `<sid>.jsonl.gz`, in either layout): their repeated lines are read once. */
  pairKey: string;
}

/** Input the run cannot use (a missing root, a glob that matches nothing, no file descriptors left): the CLI's exit 2. */
export class InputError extends Error {
  override name = 'InputError';
}

/**
 * Out of file descriptors is not a property of one file or folder: carrying on would silently
 * read less (no journals found, groups dropped), so the run stops with one sentence instead.
 */
export function stopOnDescriptorExhaustion(err: unknown): void {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EMFILE' || code === 'ENFILE')
    throw new InputError(`too many open files (${code}): the process ran out of file descriptors; raise the limit (ulimit -n) and run again`);
}

/** `~` or `~/…` as the shell would expand it, from $HOME (a quoted path, or a variable, reaches us unexpanded). */
export function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  if (p !== '~' && !p.startsWith('~/')) return p;
  const home = homeFolder(env, `cannot expand ~ in ${p}: HOME is not set and the user has no home folder; give the path without ~`);
  return p === '~' ? home : path.join(home, p.slice(2));
}

/**
 * $HOME, or the user's home from the password database when HOME is unset or empty (an empty
 * HOME would make `~/.astra` a path relative to the working directory). Asked only when needed.
 */
function homeFolder(env: NodeJS.ProcessEnv, missing = 'cannot find the home folder (HOME is not set and the user has none): name the journals with --sessions or ASTRA_SESSIONS_DIR'): string {
  if (env.HOME) return env.HOME;
  let home = '';
  try {
    home = userInfo().homedir;
  } catch {
    // A uid with no passwd entry (docker run --user 12345): no home to expand.
  }
  if (!home) throw new InputError(missing);
  return home;
}

/** device:inode of an existing file or folder (links and other spellings of one path agree), or null. */
export function pathIdentity(p: string): string | null {
  try {
    return statIdentity(statSync(p));
  } catch {
    return null;
  }
}

/** device:inode of what a stat describes (an open descriptor's too). */
export const statIdentity = (st: { dev: number; ino: number }): string => `${st.dev}:${st.ino}`;

export function defaultSessionRoots(env: NodeJS.ProcessEnv): string[] {
  return [env.ASTRA_SESSIONS_DIR ? expandHome(env.ASTRA_SESSIONS_DIR, env) : path.join(homeFolder(env), '.astra', 'sessions')];
}

/**
 * The roots to read: those named, else the default one, with where it came from (for the hint
 * after a missing root the user did not name).
 */
export function sessionRoots(named: string[] | undefined, env: NodeJS.ProcessEnv): { roots: string[]; defaultOrigin?: string } {
  if (named?.length) return { roots: named };
  return { roots: defaultSessionRoots(env), defaultOrigin: env.ASTRA_SESSIONS_DIR ? 'from ASTRA_SESSIONS_DIR' : 'the default' };
}

// Without one of these characters a path cannot be a pattern, and fast-glob need not be loaded.
const isGlob = (s: string) => /[*?[\]{}()!+@]/.test(s) && fastGlob().isDynamicPattern(s.replace(/\\/g, '/'));

/**
 * Expands each `--sessions` entry: a directory is searched in both layouts, a file is taken as
 * is, anything else is a glob. A root that does not exist is a user error (exit 2). Only regular
 * files are listed (never a FIFO, socket, device or directory named `*.jsonl`), and a journal
 * reached by several paths (symbolic links, overlapping roots) is listed once. Layout folders
 * that exist but cannot be listed are added to `unreadable` (display paths).
 */
export async function discoverJournals(roots: string[], cwd = process.cwd(), unreadable: string[] = [], defaultOrigin?: string): Promise<JournalFile[]> {
  // A library caller's `sessions: '/path'` would be read as its characters, one root each.
  if (!Array.isArray(roots) || roots.some((r) => typeof r !== 'string')) throw new InputError(`sessions must be a list of paths, such as ['/path/to/sessions'], not ${JSON.stringify(roots)}`);
  // `--sessions "$DIR"` with DIR unset would otherwise read the working directory.
  if (roots.some((r) => r.trim() === '')) throw new InputError('a sessions root is empty (an unset variable?): name a folder, file or glob, or . for the working directory');
  const display = displayPaths(cwd);
  const found = new Map<string, string>(); // real path → the path it is read under
  const realDirs = new Map<string, string>();
  // Whether a layout entry is a link, as its folder listing said; other paths need an lstat to tell.
  const listedLink = new Map<string, boolean>();
  const linked = (p: string) => listedLink.get(p) ?? isLink(p);
  for (const root of roots) {
    const abs = path.resolve(cwd, root);
    let paths: string[];
    if (isGlob(root)) {
      const denied = (dir: string) => unreadable.push(display(dir));
      const matched = await expandGlob(root.replace(/\\/g, '/'), cwd, denied);
      // A typo'd or unexpanded glob would otherwise read nothing and pass.
      if (matched.files.length === 0 && matched.folders.length === 0) throw new InputError(`sessions glob ${root} matches no file or folder`);
      paths = matched.files;
      // A folder it matches (`…/v1/users/*/sessions`) is read as a root is: both layouts under it.
      for (const folder of matched.folders) {
        const links = new Set<string>();
        for (const p of layoutJournals(folder, denied, links)) {
          listedLink.set(p, links.has(p));
          paths.push(p);
        }
      }
    } else {
      const kind = statKind(abs);
      if (kind === 'missing') throw new InputError(`sessions root ${root} does not exist${defaultOrigin ? ` (${defaultOrigin}; name the journals with --sessions or ASTRA_SESSIONS_DIR, or read the bundled ones with --demo)` : ''}`);
      if (kind === 'unreadable') throw new InputError(`sessions root ${root} cannot be read (permission denied)`);
      if (kind === 'loop') throw new InputError(`sessions root ${root} is a loop of symbolic links`);
      // The layouts have a fixed depth, so following links cannot loop forever.
      if (kind === 'file') paths = [abs];
      else {
        const links = new Set<string>();
        paths = layoutJournals(abs, (dir) => unreadable.push(display(dir)), links);
        for (const p of paths) listedLink.set(p, links.has(p));
      }
    }
    for (const p of paths) {
      const real = realPathOf(p, linked(p), realDirs);
      const kept = found.get(real);
      // Prefer the file's own entry over a link to it, so evidence names the real journal.
      if (kept === undefined || (linked(kept) && !linked(p))) found.set(real, p);
    }
  }
  return withoutHardLinks([...found.values()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), linked).map((p) => toJournalFile(p, cwd, display));
}

/**
 * One path per file: a hard link is the same journal under a second name (`cp -l`, a snapshot
 * tree), which real paths do not tell apart. One stat a journal (≈ 1 µs from the cache); the
 * file's own entry is kept over a symbolic link to it, else the first path in order.
 */
function withoutHardLinks(paths: readonly string[], linked: (p: string) => boolean): string[] {
  const byFile = new Map<string, number>(); // device:inode → position in `out`
  const out: string[] = [];
  for (const p of paths) {
    let id: string | null = null;
    try {
      const st = statSync(p);
      if (st.nlink > 1) id = statIdentity(st); // a file with one link has no other name (links were resolved above)
    } catch {
      // gone or unreadable since it was listed: the scan says so
    }
    const at = id === null ? undefined : byFile.get(id);
    if (at === undefined) {
      if (id !== null) byFile.set(id, out.length);
      out.push(p);
    } else if (linked(out[at]) && !linked(p)) out[at] = p;
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A user glob. With `**`, following directory links could recurse through a link loop
 * exponentially, so directories are walked without following links (like bash globstar) and
 * links to regular files are still taken.
 */
async function expandGlob(pattern: string, cwd: string, denied: (dir: string) => void): Promise<{ files: string[]; folders: string[] }> {
  const fg = fastGlob();
  if (!pattern.includes('**')) {
    // Files, and folders read as roots. (With `**` every folder below also matches: its files are the journals.)
    const matches = await fg(pattern, { cwd, absolute: true, onlyFiles: false, followSymbolicLinks: true, suppressErrors: true, objectMode: true });
    const files: string[] = [];
    const folders: string[] = [];
    for (const e of matches) {
      const link = e.dirent.isSymbolicLink();
      if (e.dirent.isFile() || (link && isRegularFile(e.path))) files.push(e.path);
      else if (e.dirent.isDirectory() || (link && isDirectory(e.path))) folders.push(e.path);
    }
    return { files, folders };
  }
  const entries = await fg(pattern, { cwd, absolute: true, onlyFiles: false, followSymbolicLinks: false, suppressErrors: true, objectMode: true });
  // fast-glob skips a folder it cannot list without a word (suppressErrors): the folders under the
  // last ** are walked once more to say so, as the layouts do.
  const folders = await fg(pattern.slice(0, pattern.lastIndexOf('**') + 2), { cwd, absolute: true, onlyDirectories: true, followSymbolicLinks: false, suppressErrors: true });
  for (const dir of folders) if (!canList(dir)) denied(dir);
  return { files: entries.filter((e) => e.dirent.isFile() || (e.dirent.isSymbolicLink() && isRegularFile(e.path))).map((e) => e.path), folders: [] };
}

/** The Limits line for a layout folder that cannot be listed (discoverJournals' `unreadable`). */
export const unreadableFolderNote = (dir: string) => `folder ${dir} cannot be read (permission denied): its journals were not scanned.`;

/**
 * The journals of both layouts under `root` (LAYOUT_PATTERNS): `<root>/*.jsonl[.gz]` and
 * `<root>/v1/users/<owner>/sessions/*.jsonl[.gz]`, following links, regular files only, no dot
 * files (as the glob `*` would). A folder that exists but cannot be listed goes to `denied`
 * (the outermost one: `v1`, `users`, the owner's folder or its `sessions`). Entries that are
 * symbolic links are added to `links`.
 */
export function layoutJournals(root: string, denied: (dir: string) => void = () => {}, links = new Set<string>()): string[] {
  const out: string[] = [];
  journalsIn(root, out, denied, links);
  const v1 = path.join(root, 'v1');
  const users = path.join(v1, 'users');
  for (const owner of listing(users, () => denied(canList(v1) ? users : v1))) {
    if (owner.name.startsWith('.')) continue;
    const dir = path.join(users, owner.name);
    if (owner.isDirectory() || (owner.isSymbolicLink() && isDirectory(dir))) {
      const sessions = path.join(dir, 'sessions');
      journalsIn(sessions, out, () => denied(canList(dir) ? sessions : dir), links);
    }
  }
  return out;
}

const JOURNAL_NAME = /\.jsonl(\.gz)?$/;

function journalsIn(dir: string, out: string[], denied: (dir: string) => void, links: Set<string>): void {
  // `dir` is resolved, so joining by concatenation is path.join without its per-call normalize.
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  for (const e of listing(dir, () => denied(dir))) {
    if (e.name.startsWith('.') || !JOURNAL_NAME.test(e.name)) continue;
    const p = prefix + e.name;
    if (e.isFile()) out.push(p);
    else if (e.isSymbolicLink() && isRegularFile(p)) {
      out.push(p);
      links.add(p);
    }
  }
}

/** A folder's entries; none when it is absent, and `onDenied` when it may not be listed. */
function listing(dir: string, onDenied: () => void): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    stopOnDescriptorExhaustion(err);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') onDenied();
    return [];
  }
}

function canList(dir: string): boolean {
  try {
    accessSync(dir, fsConstants.R_OK | fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A file's size and modification time, or null when it cannot be stat'ed now. */
export function sizeAndMtime(path: string): { size: number; mtimeMs: number } | null {
  try {
    const st = statSync(path);
    return { size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return null;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isRegularFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false; // dangling link or link loop: not a journal
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The real path of a journal. A file that is not itself a link is its real folder plus its name:
 * one realpath per folder, instead of realpath's lookup of every path component of every file.
 * (Whether it is a link comes from the folder's listing, or from an lstat for globs and files:
 * fast-glob's entries cannot tell, since following links it reports the target's type.)
 */
function realPathOf(p: string, link: boolean, realDirs: Map<string, string>): string {
  if (link) return realPath(p);
  const cut = p.lastIndexOf(path.sep);
  const dir = p.slice(0, cut);
  let real = realDirs.get(dir);
  if (real === undefined) {
    real = realPath(dir || path.sep);
    realDirs.set(dir, real);
  }
  return (real.endsWith(path.sep) ? real : real + path.sep) + p.slice(cut + 1);
}

function realPath(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p; // vanished since listing: scanning it reports the error
  }
}

function statKind(p: string): 'missing' | 'unreadable' | 'loop' | 'file' | 'dir' {
  try {
    const st = statSync(p);
    if (!st.isDirectory()) {
      // A journal named as the root that cannot be read is the user's input error, as a folder is.
      accessSync(p, fsConstants.R_OK);
      return 'file';
    }
    // stat works on a directory we may not list; fast-glob would then find nothing, silently.
    accessSync(p, fsConstants.R_OK | fsConstants.X_OK);
    return 'dir';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return 'loop';
    return code === 'EACCES' || code === 'EPERM' ? 'unreadable' : 'missing';
  }
}

/** `<dir>/<sid>.jsonl[.gz]` → `<sid>`: Astra names each journal after its session. */
/** Gen A's tracker journal (`delegation.jsonl`) holds every session's delegations: its name names no session. */
export const TRACKER_STEM = 'delegation';

/** Whether a journal is Gen A's shared tracker file, which every session writes. */
export const isTrackerJournal = (p: string): boolean => sessionIdOfPath(p) === TRACKER_STEM;

export function sessionIdOfPath(p: string): string {
  return withoutJournalSuffix(path.basename(p));
}

/** `x.jsonl.gz` and `x.jsonl` → `x` (by slicing: regexes cost every start ≈ 1 ms over a tree's paths). */
function withoutJournalSuffix(p: string): string {
  const stem = p.endsWith('.gz') ? p.slice(0, -3) : p;
  return stem.endsWith('.jsonl') ? stem.slice(0, -6) : stem;
}

export function toJournalFile(p: string, cwd: string, display = displayPaths(cwd)): JournalFile {
  // The session id: the same for a journal and its archive, and for one session's journals in
  // both layouts (a legacy <sid>.jsonl copied into v1/users/…/sessions/ on migration). Their
  // exactly repeated lines are read once.
  const sessionId = sessionIdOfPath(p);
  return { path: p, display: display(p), sessionId, pairKey: sessionId };
}

/**
 * A file's display path: relative to `cwd` (with `/`) when below it, else as given. What
 * path.relative gives for a file below cwd, by a prefix test: path.relative resolves both
 * paths on every call, and a tree holds thousands of journals.
 */
export function displayPaths(cwd: string): (p: string) => string {
  const dir = path.resolve(cwd);
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return (p) => {
    const abs = path.isAbsolute(p) ? p : path.resolve(dir, p);
    return abs.startsWith(prefix) && abs.length > prefix.length ? abs.slice(prefix.length).split(path.sep).join('/') : p;
  };
}
