import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { InputError } from '../journal/discover.js';
import { describeError } from '../journal/scan-file.js';

export const EXPECTED_SUFFIX = '.expected.json';

/** A journal file or session folder checked against the expectations file beside it. */
export interface CheckCase {
  /** Absolute path of the journal file or folder. */
  target: string;
  /** Absolute path of `<target>.expected.json` (it may not exist yet under --update). */
  expectedFile: string;
  /** How the case is named in output: relative to the working directory when inside it. */
  display: string;
  /** What the case reads: the folder, or the journal with its `.jsonl`/`.jsonl.gz` partner when there is one (one session, read as a pair). */
  sessions: string[];
}

const isJournalName = (name: string) => name.endsWith('.jsonl') || name.endsWith('.jsonl.gz');

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** statSync fails with ELOOP: a loop of symbolic links exists, so "does not exist" / "no expectations file" would mislead. */
function isLinkLoop(p: string): boolean {
  try {
    statSync(p);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ELOOP';
  }
}

function display(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
}

/** `x.jsonl` ↔ `x.jsonl.gz` beside it. */
const partnerPath = (p: string): string => (p.endsWith('.gz') ? p.slice(0, -3) : `${p}.gz`);

function toCase(target: string, cwd: string): CheckCase {
  const partner = isJournalName(target) ? partnerPath(target) : null;
  const sessions = partner && statOrNull(partner)?.isFile() ? [target, partner] : [target];
  return { target, expectedFile: target + EXPECTED_SUFFIX, display: display(target, cwd), sessions };
}

/** Whether a session-folder case rooted at `root` reads the journals of `dir`: its own, or an owner's `v1/users/<owner>/sessions`. */
function readsFolder(root: string, dir: string): boolean {
  if (dir === root) return true;
  const rel = path.relative(root, dir).split(path.sep);
  return rel.length === 4 && rel[0] === 'v1' && rel[1] === 'users' && rel[3] === 'sessions';
}

/** A folder the search could not list: the cases in it, if any, were not found. */
export interface UnreadableFolder {
  /** As cases are named: relative to the working directory when inside it. */
  display: string;
  /** Why, in words (`permission denied`). */
  reason: string;
  /** The target of the session-folder case that reads its journals, if one does: that case is not checked either. */
  readBy?: string;
}

/** What a folder search finds besides its cases: journals no case covers, expectations files whose journal is gone, folders it could not list. */
interface Strays {
  /** Journal files with no expectations file beside them, outside every session-folder case. */
  uncovered: string[];
  /** `X.expected.json` files with no X beside them. */
  orphans: string[];
  unreadable: UnreadableFolder[];
}

/** What a path that is not a regular file is, in words. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The error for an `X.expected.json` that exists but is no file: --update cannot write over it either. */
export function notAFileError(name: string, st: Stats): InputError {
  return new InputError(`${name} is ${fileKind(st)}, not a regular file, so it cannot hold expectations; move it away (check --update then records the current findings)`);
}

/**
 * Every journal file or folder under `dir` (at any depth) with an expectations file beside it,
 * and what is left out (strays): a journal is covered by its own expectations, its pair
 * partner's (`x.jsonl` / `x.jsonl.gz`: one case reads both), or a session-folder case that reads
 * its folder (`caseRoots`: the cases enclosing `dir`). Each real folder is searched once: links
 * back up the tree made the search endless.
 */
function casesUnder(dir: string, cwd: string, out: CheckCase[], strays: Strays, caseRoots: readonly string[], searched = new Set<string>()): void {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    real = dir;
  }
  if (searched.has(real)) return;
  searched.add(real);
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (err) {
    // Noted, not thrown: the other folders' cases still run. A case folder says so as its own case.
    const readBy = caseRoots.find((root) => readsFolder(root, dir));
    if (readBy !== dir) strays.unreadable.push({ display: display(dir, cwd), reason: describeError(err), ...(readBy !== undefined && { readBy }) });
    return;
  }
  const names = new Set(entries);
  const folderRead = caseRoots.some((root) => readsFolder(root, dir));
  for (const name of entries) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = path.join(dir, name);
    if (name.endsWith(EXPECTED_SUFFIX)) {
      if (!names.has(name.slice(0, -EXPECTED_SUFFIX.length))) strays.orphans.push(full);
      continue;
    }
    const st = statOrNull(full);
    if (!st) continue;
    const hasExpectations = names.has(name + EXPECTED_SUFFIX);
    if (st.isDirectory()) {
      if (hasExpectations) out.push(toCase(full, cwd));
      casesUnder(full, cwd, out, strays, hasExpectations ? [...caseRoots, full] : caseRoots, searched);
      continue;
    }
    if (!isJournalName(name)) continue;
    // A FIFO or socket named as a journal, with expectations: its case says it is no file, rather than vanish.
    if (!st.isFile()) {
      if (hasExpectations) out.push(toCase(full, cwd));
      continue;
    }
    const partner = path.basename(partnerPath(full));
    if (hasExpectations) {
      // One case a session: a partner with expectations of its own is left to its case.
      if (!(name.endsWith('.gz') && names.has(partner + EXPECTED_SUFFIX))) out.push(toCase(full, cwd));
      continue;
    }
    // A pair with no expectations is one stray (named by its .jsonl).
    const partnerCovers = names.has(partner + EXPECTED_SUFFIX) || (name.endsWith('.gz') && names.has(partner));
    if (!folderRead && !partnerCovers) strays.uncovered.push(full);
  }
}

/** The session-folder cases a folder is inside (ancestors with X.expected.json): the journals they read are theirs. */
function enclosingCases(dir: string): string[] {
  const roots: string[] = [];
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) if (statOrNull(d + EXPECTED_SUFFIX)?.isFile()) roots.push(d);
  return roots;
}

/** Expectations written in another format are not read: say so, instead of "has no expectations". */
function otherFormatNote(journals: string[], cwd: string): string {
  for (const j of journals) {
    for (const ext of ['.expected.yaml', '.expected.yml']) {
      if (statOrNull(j + ext)?.isFile()) return ` (${display(j + ext, cwd)} is not read: expectations are JSON, in X${EXPECTED_SUFFIX})`;
    }
  }
  return '';
}

/** At most this many paths are named in an error; the rest are counted. */
const NAMED = 10;

function named(paths: string[], cwd: string): string {
  const shown = paths.slice(0, NAMED).map((p) => display(p, cwd));
  return paths.length > NAMED ? `${shown.join(', ')} and ${paths.length - NAMED} more` : shown.join(', ');
}

/**
 * Resolves `check` arguments to cases. A folder is searched for cases; a journal file or folder
 * that has an expectations file beside it is one case, as is an `X.expected.json` itself. With
 * `allowNew` (--update), a journal file without expectations, or a folder that holds no case, is
 * a case to create.
 */
export function discoverCases(args: string[], cwd: string, allowNew = false, unreadable: UnreadableFolder[] = []): CheckCase[] {
  const found = new Map<string, CheckCase>();
  for (const arg of args) {
    let abs = path.resolve(cwd, arg);
    if (abs.endsWith(EXPECTED_SUFFIX)) {
      const own = statOrNull(abs);
      if (own && !own.isFile()) throw notAFileError(arg, own);
      if (own) {
        abs = abs.slice(0, -EXPECTED_SUFFIX.length);
        if (!statOrNull(abs)) throw new InputError(`${arg} has no journal or folder ${path.basename(abs)} beside it: restore it, or delete the expectations file`);
      }
    }
    const st = statOrNull(abs);
    if (!st) throw new InputError(isLinkLoop(abs) ? `${arg} is a loop of symbolic links` : `${arg} does not exist`);
    const beside = statOrNull(abs + EXPECTED_SUFFIX);
    if (!beside && isLinkLoop(abs + EXPECTED_SUFFIX)) throw new InputError(`${display(abs + EXPECTED_SUFFIX, cwd)} is a loop of symbolic links, not a regular file, so it cannot hold expectations; move it away (check --update then records the current findings)`);
    // "No expectations file" would advise an --update that cannot write there.
    if (beside && !beside.isFile()) throw notAFileError(display(abs + EXPECTED_SUFFIX, cwd), beside);
    const hasExpectations = !!beside;
    if (st.isDirectory()) {
      const under: CheckCase[] = hasExpectations ? [toCase(abs, cwd)] : [];
      const strays: Strays = { uncovered: [], orphans: [], unreadable: [] };
      casesUnder(abs, cwd, under, strays, [...enclosingCases(abs), ...(hasExpectations ? [abs] : [])]);
      // Under --update, a folder holding no case that reads every journal left (its own, its
      // owners') is itself a new session-folder case; otherwise each journal no case covers is a
      // new case. Without --update, both mean the suite lost coverage.
      // A folder not listed may hold cases: it is not recorded as one empty case.
      const blind = strays.unreadable.length > 0;
      unreadable.push(...strays.unreadable);
      const asOneCase = !under.length && !(blind && !strays.uncovered.length) && strays.uncovered.every((j) => readsFolder(abs, path.dirname(j)));
      if (allowNew && asOneCase) under.push(toCase(abs, cwd));
      else if (allowNew) for (const j of strays.uncovered) under.push(toCase(j, cwd));
      // An orphaned expectations file first: --update (the other hint) would refuse it too.
      if (strays.orphans.length) throw new InputError(`${plural(strays.orphans.length, 'expectations file has', 'expectations files have')} no journal or folder beside ${strays.orphans.length === 1 ? 'it' : 'them'} under ${arg}: ${named(strays.orphans, cwd)}; restore the journal, or delete the expectations file`);
      if (!under.length && !strays.uncovered.length && !blind) throw new InputError(`no checkable cases under ${arg}: a case is a *.jsonl or *.jsonl.gz file, or a session folder, with an X.expected.json file beside it (check --update ${arg} records the folder as one case)`);
      if (strays.uncovered.length && !allowNew) throw new InputError(`${plural(strays.uncovered.length, 'journal has', 'journals have')} no expectations under ${arg}: ${named(strays.uncovered, cwd)}${otherFormatNote(strays.uncovered, cwd)}; write X.expected.json beside each, or run check --update ${arg} to record their current findings${asOneCase ? ` (it records the folder as one case, ${display(abs + EXPECTED_SUFFIX, cwd)})` : ''}`);
      for (const c of under) found.set(c.target, c);
    } else if (hasExpectations || (allowNew && isJournalName(abs))) {
      found.set(abs, toCase(abs, cwd));
    } else if (isJournalName(abs)) {
      throw new InputError(`${arg} has no expectations file beside it (${path.basename(abs)}${EXPECTED_SUFFIX})${otherFormatNote([abs], cwd)}; write one, or run check --update ${arg} to record the current findings`);
    } else {
      throw new InputError(`${arg} is not a journal file (*.jsonl, *.jsonl.gz), a session folder or an expectations file`);
    }
  }
  return [...found.values()].sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
