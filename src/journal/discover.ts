import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';

/** The two layouts Astra has written, plus their gzip archives (journal-format.md §1.1). */
export const LAYOUT_PATTERNS = ['*.jsonl', '*.jsonl.gz', 'v1/users/*/sessions/*.jsonl', 'v1/users/*/sessions/*.jsonl.gz'];

export interface JournalFile {
  path: string;
  /** How the file is named in evidence: relative to the working directory when inside it. */
  display: string;
  /** Session id from the file name (`<sid>.jsonl[.gz]`). */
  sessionId: string;
  /** Key shared by `<sid>.jsonl` and `<sid>.jsonl.gz` in the same folder. */
  pairKey: string;
}

export class InputError extends Error {}

export function defaultSessionRoots(env: NodeJS.ProcessEnv): string[] {
  if (env.ASTRA_SESSIONS_DIR) return [env.ASTRA_SESSIONS_DIR];
  return [path.join(homedir(), '.astra', 'sessions')];
}

const isGlob = (s: string) => fg.isDynamicPattern(s.replace(/\\/g, '/'));

/**
 * Expands each `--sessions` entry: a directory is searched in both layouts, a file is taken as
 * is, anything else is a glob. A root that does not exist is a user error (exit 2).
 */
export async function discoverJournals(roots: string[], cwd = process.cwd()): Promise<JournalFile[]> {
  const found = new Map<string, JournalFile>();
  for (const root of roots) {
    const abs = path.resolve(cwd, root);
    let paths: string[];
    if (isGlob(root)) {
      paths = await fg(root.replace(/\\/g, '/'), { cwd, absolute: true, onlyFiles: true, followSymbolicLinks: true, suppressErrors: true });
    } else {
      const kind = statKind(abs);
      if (kind === 'missing') throw new InputError(`sessions root ${root} does not exist`);
      if (kind === 'unreadable') throw new InputError(`sessions root ${root} cannot be read (permission denied)`);
      paths = kind === 'file' ? [abs] : await fg(LAYOUT_PATTERNS, { cwd: abs, absolute: true, onlyFiles: true, followSymbolicLinks: true, suppressErrors: true, deep: 5 });
    }
    for (const p of paths) found.set(p, toJournalFile(p, cwd));
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function statKind(p: string): 'missing' | 'unreadable' | 'file' | 'dir' {
  try {
    const st = statSync(p);
    return st.isDirectory() ? 'dir' : 'file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'unreadable' : 'missing';
  }
}

export function toJournalFile(p: string, cwd: string): JournalFile {
  const rel = path.relative(cwd, p);
  const display = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
  const base = path.basename(p).replace(/\.gz$/, '').replace(/\.jsonl$/, '');
  return { path: p, display, sessionId: base, pairKey: path.join(path.dirname(p), base) };
}
