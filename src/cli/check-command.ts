import { accessSync, closeSync, constants as fsConstants, fstatSync, ftruncateSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { analyze } from '../analyze.js';
import type { Finding } from '../checks/types.js';
import { discoverCases, fileKind, notAFileError, type CheckCase, type UnreadableFolder } from '../expectations/cases.js';
import { compareFindings, type Problem } from '../expectations/compare.js';
import { expectationsFor, parseExpectations, serializeExpectations, type Expectation, type Pins } from '../expectations/file.js';
import { InputError } from '../journal/discover.js';
import { describeError, OPEN_FLAGS, stoppedByDamagedData } from '../journal/scan-file.js';
import { paint, safeTerminalText as safe } from '../format/terminal.js';
import { addAnalysisOptions, resolveSettings, useColor, type ScanFlags } from './common.js';
import { EXIT, isCI, UsageError, type CliIO } from './io.js';

export interface CheckFlags extends Pick<ScanFlags, 'rule' | 'config' | 'maxFanout' | 'maxTree' | 'maxAttempts' | 'staleAfter' | 'clockSkew' | 'now'> {
  subset?: boolean;
  update?: boolean;
  pin?: string;
  quiet?: boolean;
  color?: boolean;
}

/** The analysis options a check run honours (the journal set comes from the cases). */
export function addCheckOptions(cmd: Command): Command {
  return addAnalysisOptions(cmd)
    .option('--subset', 'let findings that no expectation mentions pass (default: exact)')
    .option('--update', 'write or rewrite the expectations of failing and new cases from the current findings (refused when CI is set)')
    .option('--pin <keys>', 'with --update: also pin each finding\'s runs and/or evidence (runs, evidence or runs,evidence; a file that pins them keeps them)')
    .option('-q, --quiet', 'print only failing cases and the summary')
    .option('--no-color', 'never colour the output (NO_COLOR is honoured too)');
}


/** The expectations beside a case; null when there is none yet. */
function readExpectations(c: CheckCase, update: boolean): Expectation[] | null {
  const name = `${c.display}.expected.json`;
  let text: string;
  let fd: number;
  try {
    // Non-blocking: a FIFO there would otherwise wait for a writer forever.
    fd = openSync(c.expectedFile, OPEN_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    const st = statOrNull(c.expectedFile);
    if (st && !st.isFile()) throw notAFileError(name, st);
    throw new InputError(`the expectations file ${name} cannot be read (${describeError(err)})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notAFileError(name, st);
    text = readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`the expectations file ${name} cannot be read (${describeError(err)})`);
  } finally {
    closeSync(fd);
  }
  // An empty file holds nothing anyone wrote: --update records the findings in it.
  if (update && text.trim() === '') return null;
  try {
    return parseExpectations(text, name);
  } catch (err) {
    // Rewriting it would lose what a person wrote there (an absence check, a note) without a word.
    if (update && err instanceof InputError) throw new InputError(`${err.message}; --update does not overwrite a file it cannot read: fix it, or delete it to record the current findings`);
    throw err;
  }
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** Writes an expectations file; why not, in words, when it cannot (never waits on a FIFO, never writes into a folder). */
function writeExpectations(file: string, text: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_WRONLY | fsConstants.O_CREAT | (fsConstants.O_NONBLOCK ?? 0), 0o666);
  } catch (err) {
    const st = statOrNull(file);
    return st && !st.isFile() ? `it is ${fileKind(st)}, not a regular file` : describeError(err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return `it is ${fileKind(st)}, not a regular file`;
    ftruncateSync(fd);
    writeFileSync(fd, text);
    return null;
  } catch (err) {
    return describeError(err);
  } finally {
    closeSync(fd);
  }
}

/**
 * Why a case cannot be checked before it is analyzed (a journal or folder it cannot read, a
 * journal that is no file), or null: analyzing it would stop the run at it.
 */
function unreadableCase(c: CheckCase): string | null {
  for (const p of c.sessions) {
    const st = statOrNull(p);
    const subject = p !== c.target ? path.basename(p) : st?.isDirectory() ? 'the folder' : 'the journal';
    if (st?.isDirectory()) {
      try {
        accessSync(p, fsConstants.R_OK | fsConstants.X_OK);
      } catch (err) {
        return `${subject} cannot be read (${describeError(err)})`;
      }
      continue;
    }
    let fd: number;
    try {
      fd = openSync(p, OPEN_FLAGS);
    } catch (err) {
      return st && !st.isFile() ? `${subject} is ${fileKind(st)}, not a regular file` : `${subject} cannot be read (${describeError(err)})`;
    }
    try {
      const opened = fstatSync(fd);
      if (!opened.isFile()) return `${subject} is ${fileKind(opened)}, not a regular file`;
    } finally {
      closeSync(fd);
    }
  }
  return null;
}

/** `--pin runs,evidence` */
function parsePins(v: string | undefined, update: boolean): Pins {
  const pins: Pins = { runs: false, evidence: false };
  if (v === undefined) return pins;
  if (!update) throw new UsageError('--pin only applies to --update (it says what the written expectations pin)');
  for (const k of v.split(',').map((x) => x.trim())) {
    if (k !== 'runs' && k !== 'evidence') throw new UsageError(`--pin takes runs, evidence or runs,evidence, not ${JSON.stringify(v)}`);
    pins[k] = true;
  }
  return pins;
}

/** A case's evidence as an expectations file pins it: `file:line`, the file relative to the case. */
function caseEvidence(c: CheckCase, cwd: string): (f: Finding) => string[] {
  const base = statSync(c.target).isDirectory() ? c.target : path.dirname(c.target);
  return (f) => f.evidence.map((l) => `${path.relative(base, path.resolve(cwd, l.file)).split(path.sep).join('/')}:${l.line}`);
}

/** The command that records the current findings with the same settings (flags that change findings). */
function updateCommand(paths: string[], flags: CheckFlags): string {
  const args: string[] = ['check', '--update'];
  for (const r of flags.rule ?? []) args.push('--rule', r);
  const valued: [string, string | undefined][] = [
    ['--config', flags.config],
    ['--max-fanout', flags.maxFanout],
    ['--max-tree', flags.maxTree],
    ['--max-attempts', flags.maxAttempts],
    ['--stale-after', flags.staleAfter],
    ['--clock-skew', flags.clockSkew],
    ['--now', flags.now],
  ];
  for (const [name, v] of valued) if (v !== undefined) args.push(name, v);
  // A path that starts with "-" would be read as an option.
  if (paths.some((p) => p.startsWith('-'))) args.push('--');
  return ['trace-delegation', ...args, ...paths].map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: quoted only when it needs to be. */
const shellWord = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

const where = (f: Finding) => (f.evidence.length ? ` (${f.evidence.map((e) => `${safe(e.file)}:${e.line}`).join(', ')})` : '');
const findingLine = (f: Finding) => `[${f.severity}] ${f.id} in ${safe(f.delegation)}: ${safe(f.message)}${where(f)}`;

function selector(e: Expectation): string {
  const parts = [safe(e.id), e.delegation ? `in ${safe(e.delegation)}` : 'in any delegation'];
  if (e.severity) parts.push(`at ${e.severity}`);
  if (e.runs) parts.push(`with runs [${e.runs.map(safe).join(', ')}]`);
  if (e.evidence) parts.push(`with evidence [${e.evidence.map(safe).join(', ')}]`);
  return parts.join(' ');
}

const wanted = (e: Expectation) => (e.count === undefined ? 'at least 1' : String(e.count));

/** A problem as indented lines: what was expected, what was found, and where. `off` says why a check cannot report. */
function problemLines(p: Problem, keys: ReadonlySet<string>, off: (id: string) => string | undefined): string[] {
  switch (p.kind) {
    case 'missing': {
      // A delegation the case does not have (a prefix, a typo) can never match: say so.
      const d = p.expectation.delegation;
      const none = d !== undefined && !keys.has(d) ? ` (the case has no delegation ${safe(d)}: "delegation" is a whole id, or a key such as <id>#2)` : '';
      const why = off(p.expectation.id);
      const disabled = why ? ` (the check is off: ${why})` : '';
      return [`missing: ${selector(p.expectation)}: expected ${wanted(p.expectation)}, found ${p.found.length}${none}${disabled}`, ...p.found.map((f) => `  found ${findingLine(f)}`)];
    }
    case 'too-many':
      return [`too many: ${selector(p.expectation)}: expected ${wanted(p.expectation)}, found ${p.found.length}`, ...p.found.map((f) => `  found ${findingLine(f)}`)];
    case 'severity':
      return [
        `different severity: ${selector({ ...p.expectation, severity: undefined })}: expected ${p.expectation.severity}, found ${[...new Set(p.other.map((f) => f.severity))].join(', ')}`,
        ...[...p.found, ...p.other].map((f) => `  found ${findingLine(f)}`),
      ];
    case 'unexpected':
      return [`unexpected: ${findingLine(p.finding)}`];
  }
}

/** `check`: compare each case's findings with its expectations file; exit 1 on any failure. */
export async function runCheck(paths: string[], flags: CheckFlags, io: CliIO): Promise<number> {
  const env = io.env ?? process.env;
  if (flags.update && isCI(env)) throw new UsageError('--update is refused when CI is set: record expectations locally, review them and commit them');
  const cwd = io.cwd ?? process.cwd();
  // `check "$DIR"` with DIR unset must not check (or --update) the working folder instead.
  if (paths.some((p) => p.trim() === '')) throw new UsageError('a path is empty (an unset variable?): name fixture folders, journals or expectations files, or . for the working folder');
  const pins = parsePins(flags.pin, !!flags.update);
  const folders: UnreadableFolder[] = [];
  const cases = discoverCases(paths, cwd, !!flags.update, folders);
  // Folders no case of this run reads: their line says what was not run.
  const loose = folders.filter((f) => !cases.some((c) => c.target === f.readBy));
  const { options } = resolveSettings(flags, io);
  const ruleFlags = new Set((flags.rule ?? []).map((r) => r.split('=')[0]));
  const off = (id: string) => (options.rules?.[id] !== 'off' ? undefined : ruleFlags.has(id) ? `--rule ${id}=off` : `"${id}": "off" in ${flags.config ?? 'trace-delegation.config.json'}`);
  // Every expectations file is validated before any case runs, so a typo is exit 2, not a half run.
  const loaded = cases.map((c) => ({ c, expected: readExpectations(c, !!flags.update) }));
  for (const { c, expected } of loaded) {
    if (expected === null && !flags.update) throw new InputError(`${c.display} has no expectations file; run check --update ${c.display} to record the current findings`);
  }
  const color = useColor(io, flags.color);
  const out = (s: string) => io.stdout.write(`${s}\n`);
  let passed = 0;
  let failed = 0;
  let written = 0;
  // Cases that could not be checked (unreadable, unwritable): failed, and the run exits 2, as --update cannot fix them.
  let broken = 0;
  const notChecked = (c: CheckCase, why: string) => {
    out(`${paint(color, 'red', 'FAIL')} ${safe(c.display)}: ${safe(why)}`);
    failed++;
    broken++;
  };
  for (const { c, expected } of loaded) {
    const hidden = folders.find((f) => f.readBy === c.target);
    const unreadable = unreadableCase(c) ?? (hidden && `the folder ${hidden.display} cannot be read (${hidden.reason})`);
    if (unreadable) {
      notChecked(c, `${unreadable}, so the case was not checked`);
      continue;
    }
    let analysis: Awaited<ReturnType<typeof analyze>>;
    try {
      analysis = await analyze({ ...options, sessions: c.sessions, all: true });
    } catch (err) {
      // Changed since it was looked at: this case is not checked, the others are.
      if (!(err instanceof InputError)) throw err;
      notChecked(c, `${err.message}, so the case was not checked`);
      continue;
    }
    const { report, scan } = analysis;
    // Findings of a case the file system kept from being read are not its findings: neither
    // compared nor recorded. A damaged archive is a journal state: its readable part is the case.
    const unread = scan.files.filter((f) => f.error !== null && !stoppedByDamagedData(f));
    if (unread.length) {
      const more = unread.length > 1 ? ` (and ${unread.length - 1} more ${unread.length === 2 ? 'journal' : 'journals'})` : '';
      notChecked(c, `${unread[0].file} cannot be read (${unread[0].error})${more}, so the case was not checked`);
      continue;
    }
    const findings = report.delegations.flatMap((d) => d.findings);
    const evidenceOf = caseEvidence(c, cwd);
    const problems = expected ? compareFindings(expected, findings, !!flags.subset, evidenceOf) : null;
    // --pin asks for pins a passing file may not have yet: it is rewritten with them.
    const pinsMissing = !!expected && ((pins.runs && expected.some((e) => !e.runs)) || (pins.evidence && expected.some((e) => !e.evidence)));
    if (flags.update && (problems === null || problems.length > 0 || pinsMissing)) {
      // A file that pins runs or evidence keeps pinning them.
      const keep = { runs: pins.runs || !!expected?.some((e) => e.runs), evidence: pins.evidence || !!expected?.some((e) => e.evidence) };
      const next = expectationsFor(findings, keep, evidenceOf);
      const why = writeExpectations(c.expectedFile, serializeExpectations(next));
      if (why) {
        notChecked(c, `cannot write ${c.display}.expected.json (${why}), so its findings were not recorded`);
        continue;
      }
      out(`${paint(color, 'yellow', expected ? 'UPDATED' : 'CREATED')} ${safe(c.display)}.expected.json (${next.length} ${next.length === 1 ? 'expectation' : 'expectations'})`);
      written++;
      passed++;
    } else if (!problems?.length) {
      if (!flags.quiet) out(`${paint(color, 'cyan', 'PASS')} ${safe(c.display)}`);
      passed++;
    } else {
      out(`${paint(color, 'red', 'FAIL')} ${safe(c.display)}`);
      const keys = new Set(report.delegations.flatMap((d) => [d.key, d.id]));
      for (const p of problems) for (const line of problemLines(p, keys, off)) out(`  ${line}`);
      failed++;
    }
  }
  // The cases in a folder that could not be listed were not found, so not run.
  for (const f of loose) out(`${paint(color, 'red', 'SKIPPED')} ${safe(f.display)}: the folder cannot be read (${f.reason}), so any case in it was not run`);
  if (written) out(`${written} expectations ${written === 1 ? 'file' : 'files'} written`);
  // --update records findings; it cannot make a journal or folder readable.
  if (failed > broken && !flags.update) out(`Accept the current findings with: ${updateCommand(paths, flags)}`);
  out(`${passed} passed, ${failed} failed`);
  return broken || loose.length ? EXIT.usage : failed ? EXIT.findings : EXIT.ok;
}
