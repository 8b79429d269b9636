// Not node:fs/promises: loading it (with readline, watchers and streams) costs every command ≈ 3 ms.
import { existsSync, fstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { describeError } from '../journal/scan-file.js';
import { assembleReport, prepareAnalysis, prepareStreamedAll, prepareLast, prepareStreamedTarget, type AnalyzeOptions, type PreparedAnalysis, type ReportSource } from '../analyze.js';
import { pathIdentity, statIdentity, type JournalFile } from '../journal/discover.js';
import type { Severity } from '../checks/types.js';
import type { FormatContext, Formatter, PieceFormatter } from '../format/types.js';
import { isLastTarget } from '../model/target.js';
import type { DelegationReport, TraceReport } from '../report/types.js';
import { decimalInteger, parseJobs, parsePollMs, rejectFolderOnStdin, rejectSessionsWithStdin, resolveSettings, useColor, type ScanFlags } from './common.js';
import { EXIT, exitCodeForFindings, UsageError, type CliIO } from './io.js';
import { safeTerminalText } from '../format/terminal.js';
import { createProgress, type Progress } from './progress.js';
import { writePiecesToFile, writePiecesToStream } from './chunked-writer.js';
import { STREAMED_FORMATS, writeReportStream } from './stream-report.js';
import { readForHtml, type HtmlRegistry, type TwoReads } from './html-page.js';

export interface ReportFlags extends ScanFlags {
  all?: boolean;
  format: string;
  output?: string[];
  color?: boolean;
  quiet?: boolean;
  /** Keep watching the journals and print each delegation when it completes. */
  follow?: boolean;
  /** Worker threads for large scans. */
  jobs?: string;
}

/** Exit 1 when any finding is at or above the fail-on level. */
export function exitCodeFor(report: TraceReport, failOn: Severity | 'none'): number {
  return exitCodeForFindings(report.delegations, failOn);
}

interface FormatRegistry extends HtmlRegistry {
  /** Own names only: `--format constructor` must be unknown, not Object's constructor. */
  formatterFor: (name: string) => Formatter | undefined;
  piecesFor: (name: string) => PieceFormatter | undefined;
  blockKeeperFor: (formats: readonly string[]) => ((block: DelegationReport) => DelegationReport) | undefined;
  FORMAT_NAMES: () => string[];
}

/** Every formatter and its libraries: loaded only when a report is not streamed (about 0.1 s). */
const loadRegistry = (): Promise<FormatRegistry> => import('../format/index.js');

function parseOutputs(specs: string[] = [], { formatterFor, FORMAT_NAMES }: FormatRegistry): [string, string][] {
  const outputs = specs.map((s): [string, string] => {
    const i = s.indexOf('=');
    if (i <= 0 || i === s.length - 1) throw new UsageError(`--output expects <format>=<file>, got ${JSON.stringify(s)}`);
    const name = s.slice(0, i);
    if (!formatterFor(name)) throw new UsageError(`unknown format ${name} in --output (choose from ${FORMAT_NAMES().join(', ')})`);
    const file = s.slice(i + 1);
    if (file === '-') throw new UsageError(`--output writes a file; standard output has the --format report (use --format ${name} for ${name} on standard output)`);
    return [name, file];
  });
  // Two formats into one file: the second would silently replace the first.
  const seen = new Map<string, string>();
  for (const [name, file] of outputs) {
    const key = path.resolve(file);
    if (seen.has(key)) throw new UsageError(`--output names ${file} twice (${seen.get(key)} and ${name}): give each format its own file`);
    seen.set(key, name);
  }
  return outputs;
}

/** An --output onto a journal the run reads would replace the evidence with a report (a typo away): refused before the scan. */
function refuseOutputOntoJournal(outputs: readonly [string, string][], journals: readonly JournalFile[]): void {
  if (!outputs.length) return;
  const ids = new Map<string, string>();
  for (const j of journals) {
    const id = pathIdentity(j.path);
    if (id) ids.set(id, j.display);
  }
  for (const [name, file] of outputs) {
    const journal = ids.get(pathIdentity(file) ?? '');
    if (journal !== undefined) throw new UsageError(`--output ${name}=${file} is the journal ${journal}, which this run reads: writing the report there would replace it`);
  }
}

/**
 * `-o json=/dev/stdout` (or /dev/fd/1) when standard output is a file or a pipe: two documents
 * would mix there, or, into a file, the second overwrite the first's start. Refused as `-o json=-`
 * is. A terminal or /dev/null (character devices) is left alone: nothing there is replaced.
 */
function refuseOutputOntoStdout(outputs: readonly [string, string][], io: CliIO): void {
  if (!outputs.length) return;
  const stdout = descriptorIdentity((io.stdout as { fd?: number }).fd, (st) => st.isFile() || st.isFIFO() || st.isSocket());
  refuseOutputOnto(outputs, stdout, (name, file) => `--output ${name}=${file} is standard output, which has the --format report (use --format ${name} for ${name} on standard output)`);
}

/** `- -o json=in.jsonl < in.jsonl`: the journal on standard input is the output file. */
function refuseOutputOntoStdin(outputs: readonly [string, string][], io: CliIO): void {
  if (!outputs.length) return;
  const input = descriptorIdentity((io.stdin as { fd?: number }).fd ?? 0, (st) => st.isFile());
  refuseOutputOnto(outputs, input, (name, file) => `--output ${name}=${file} is the journal on standard input: writing the report there would replace it`);
}

/** device:inode of an open descriptor of a kind `accept` takes; null for another kind, or no descriptor (an in-process stream). */
function descriptorIdentity(fd: number | undefined, accept: (st: Stats) => boolean): string | null {
  if (fd === undefined) return null;
  try {
    const st = fstatSync(fd);
    return accept(st) ? statIdentity(st) : null;
  } catch {
    return null;
  }
}

/** Refuses an --output file that is `identity` (null: nothing to compare). */
function refuseOutputOnto(outputs: readonly [string, string][], identity: string | null, why: (name: string, file: string) => string): void {
  if (identity === null) return;
  for (const [name, file] of outputs) if (pathIdentity(file) === identity) throw new UsageError(why(name, file));
}


/**
 * The report phase's progress, when the scan's is shown and the report goes to a file or a pipe:
 * on a terminal the report itself shows how far it got, and a progress line would cut into it.
 */
function reportProgress(progress: Progress | null, io: CliIO): ((delegations: number, share?: { done: number; total: number }) => void) | undefined {
  if (!progress || io.stdout.isTTY) return undefined;
  return (n, share) => progress.onReport(n, share?.done ?? 0, share?.total ?? 0);
}

export async function runReport(target: string | undefined, flags: ReportFlags, io: CliIO, extra: Partial<AnalyzeOptions> = {}): Promise<number> {
  // `trace-delegation "$ID"` with ID unset must not check the newest delegation instead.
  if (target !== undefined && target.trim() === '') throw new UsageError('the target is empty (an unset variable?): name a delegation id, prefix, parent run or session, or last for the newest');
  // An id as `list` cuts it ("e19c4d73-8a2b…", "…#2" for a reused one) is the prefix it shows.
  const cut = target === undefined ? null : /^(.+)…(#\d+)?$/.exec(target);
  if (cut) target = cut[1];
  const streamed = STREAMED_FORMATS.has(flags.format) && !flags.output?.length && !flags.follow;
  const registry = streamed ? null : await loadRegistry();
  if (registry && !registry.formatterFor(flags.format)) throw new UsageError(`unknown format ${flags.format} (choose from ${registry.FORMAT_NAMES().join(', ')})`);
  const outputs = registry ? parseOutputs(flags.output, registry) : [];
  refuseOutputOntoStdout(outputs, io);
  const { options, failOn } = resolveSettings(flags, io);
  const fromStdin = flags.stdin || target === '-';
  if (fromStdin && !io.stdin) throw new UsageError('standard input is not available');
  if (fromStdin) rejectFolderOnStdin(io);
  if (flags.all && target !== undefined && target !== '-')
    throw new UsageError(`--all reports every delegation; it cannot be combined with a target (${JSON.stringify(target)}): drop one of them`);
  const jobs = parseJobs(flags.jobs);
  if (flags.follow) {
    if (fromStdin) throw new UsageError('--follow watches a sessions tree; it cannot follow standard input');
    if (outputs.length) throw new UsageError('--output cannot be combined with --follow');
    const env = io.env ?? process.env;
    const pollMs = parsePollMs(env.TRACE_DELEGATION_POLL_MS);
    const watch = env.TRACE_DELEGATION_WATCH !== '0'; // 0: poll only (a file system whose events never come)
    const sleepAfter = env.TRACE_DELEGATION_SLEEP_AFTER_MS;
    const sleepAfterMs = sleepAfter !== undefined && sleepAfter !== '' && Number.isFinite(Number(sleepAfter)) && Number(sleepAfter) >= 0 ? Number(sleepAfter) : undefined; // 0: sleep at once
    // Loaded on use: follow mode brings file watching and gzip with it.
    const { runFollow } = await import('./follow.js');
    return runFollow(flags.all ? undefined : target, io, { options: { ...options, ...extra }, formatter: registry!.formatterFor(flags.format)!, format: flags.format, color: useColor(io, flags.color), failOn, pollMs, watch, sleepAfterMs, quiet: flags.quiet });
  }
  if (fromStdin) {
    rejectSessionsWithStdin(flags);
    refuseOutputOntoStdin(outputs, io);
  }
  const analyzeOptions: AnalyzeOptions = {
    ...options,
    ...extra,
    stdin: fromStdin ? io.stdin : undefined,
    target: target === '-' ? undefined : target,
    all: flags.all,
    jobs,
  };
  const named = !isLastTarget(analyzeOptions.target);
  // Whole-tree runs keep V8's young generation from growing on (src/cli/young-generation.ts);
  // `last` reads a few files and does not load it.
  const youngGeneration = flags.all || named ? await import('./young-generation.js') : undefined;
  youngGeneration?.holdYoungGeneration();
  const progress = createProgress(io.stderr, { quiet: flags.quiet, env: io.env });
  const onFile = (done: number, total: number, bytes: number) => {
    progress?.onFile(done, total, bytes);
    youngGeneration?.letYoungGenerationGrow(); // the scan is under way
  };
  const ctx = { color: useColor(io, flags.color), failOn };
  // The event index (TRACE_DELEGATION_INDEXED=0 turns it off, to compare): see below.
  const indexed = !fromStdin && (io.env ?? process.env).TRACE_DELEGATION_INDEXED !== '0';
  /** Where the report's delegations come from: the event index (a whole tree, a named target, `last`) or every event in memory. */
  const prepareSource = (opts: AnalyzeOptions): Promise<ReportSource> => {
    if (!indexed) return prepareAnalysis(opts);
    if (flags.all) return prepareStreamedAll(opts);
    if (named) return prepareStreamedTarget({ ...opts, target: analyzeOptions.target! });
    return prepareLast(opts);
  };
  if (!registry) {
    // text and json are written as each delegation is checked; a whole-tree --all also keeps only
    // an index of the events and checks one linked group of delegations at a time.
    // A named target too: the tree is read once, and only the matches are kept and checked. And
    // `last`, when the files modified since the newest start would hold too many events to keep.
    let source: ReportSource;
    try {
      source = await prepareSource({ ...analyzeOptions, onFile });
    } finally {
      progress?.finish();
    }
    const onReport = reportProgress(progress, io);
    try {
      return await writeReportStream(io.stdout, flags.format, source, analyzeOptions, ctx, onReport && ((n) => onReport(n, source.progress?.())), (limits) => sayScanLimits(io, limits));
    } finally {
      progress?.finish();
    }
  }
  let source: ReportSource;
  try {
    // A whole tree or a named target goes through the event index, as for text and json: only
    // the report blocks are kept for the document, not every event (an --all html of 1 GiB held 745 MB).
    // `last` does not hold a whole tree whose modification times narrow nothing either.
    source = await prepareSource({ ...analyzeOptions, onFile, onJournals: (files: readonly JournalFile[]) => refuseOutputOntoJournal(outputs, files) });
  } finally {
    progress?.finish();
  }
  const formatter = (name: string) => registry.formatterFor(name)!; // validated before the scan
  const onReport = reportProgress(progress, io);
  const formats = [flags.format, ...outputs.map(([name]) => name)];
  // html is written from a second read of the delegations (src/cli/html-page.ts): the blocks are kept only for the other formats.
  const others = formats.filter((name) => name !== 'html');
  let report: TraceReport;
  let twoReads: TwoReads | undefined;
  try {
    // Components rebuilt, for an indexed source; delegations checked, for one read into memory.
    const total = 'selected' in source ? (source as PreparedAnalysis).selected.length : 0;
    const keep = registry.blockKeeperFor(others);
    if (others.length === formats.length) {
      report = assembleReport(source, analyzeOptions, onReport && ((n) => onReport(n, source.progress?.() ?? { done: n, total })), keep);
    } else {
      // Each read is half the work: its share is shown as such.
      const onDelegation = onReport && ((n: number, second: boolean) => {
        const { done, total: all } = source.progress?.() ?? { done: n, total };
        onReport(n, { done: second ? all + done : done, total: 2 * all });
      });
      twoReads = readForHtml(source, analyzeOptions, failOn, registry, { keepBlocks: others.length > 0, keep, onDelegation });
      report = twoReads.report;
    }
  } finally {
    progress?.finish();
  }
  const pieces = (name: string, c: FormatContext): Iterable<string> => {
    if (name === 'html' && twoReads) return guardPieces(twoReads.html(), name);
    const inPieces = registry.piecesFor(name);
    return inPieces ? guardPieces(inPieces(report, c), name) : [renderDocument(formatter(name), name, report, c)];
  };
  // The files first: one that cannot be written is exit 2, and exit 2 prints nothing on stdout.
  for (const [name, file] of outputs) {
    try {
      await writePiecesToFile(file, pieces(name, { ...ctx, color: false }));
    } catch (err) {
      progress?.finish(); // an html page's second read may have drawn it
      const e = err as NodeJS.ErrnoException;
      if (err instanceof UsageError || typeof e.code !== 'string') throw err; // the report, not the file
      throw new UsageError(`cannot write --output ${name}=${file}: ${e.code === 'ENOENT' ? noSuchFileReason(file) : describeError(err)}`);
    }
  }
  const code = twoReads ? (twoReads.failing ? EXIT.findings : EXIT.ok) : exitCodeFor(report, failOn);
  io.exitCodeKnown?.(code);
  try {
    await writePiecesToStream(io.stdout, pieces(flags.format, ctx));
  } finally {
    progress?.finish(); // an html page's second read shows its progress as it is written
  }
  if (flags.format === 'ndjson' || flags.format === 'github') sayScanLimits(io, report.limits);
  return code;
}

/** ENOENT on creating a file: its folder is missing, or (/proc, a gone mount) the folder takes no new files. */
function noSuchFileReason(file: string): string {
  const folder = path.dirname(path.resolve(file));
  return existsSync(folder) ? `${folder} does not take new files` : 'its folder does not exist';
}

/** NDJSON and GitHub annotations have lines for delegations only: what the scan could not read goes to stderr, or a tree it could not read would pass for an empty one. */
function sayScanLimits(io: CliIO, limits: readonly string[]): void {
  for (const l of limits) io.stderr.write(`trace-delegation: scan limit: ${safeTerminalText(l)}\n`);
}

// The formats `--all` writes a delegation at a time (stream-report.ts), so no string limit applies.
const STREAMED_WAY_OUT = 'name a target, or use --format json, ndjson, github or text, which are written as they go';

const isStringTooLong = (err: unknown) => err instanceof RangeError && /Invalid string length/i.test(err.message);

/** A format's pieces; one of them past the longest string V8 can build (one delegation tree of a page) is a usage error too. */
function* guardPieces(pieces: Iterable<string>, name: string): Generator<string> {
  try {
    yield* pieces;
  } catch (err) {
    if (!isStringTooLong(err)) throw err;
    throw new UsageError(`a part of the ${name} report (one delegation with the delegations nested in it) is longer than one string can hold (about 512 MiB); ${STREAMED_WAY_OUT}`);
  }
}

/**
 * One whole-document format, rendered: a report past the longest string V8 can build (≈ 512 MiB)
 * is a usage error naming the way out, not an internal error or a file that "cannot be written".
 */
export function renderDocument(render: Formatter, name: string, report: TraceReport, ctx: FormatContext): string {
  try {
    return render(report, ctx);
  } catch (err) {
    if (!isStringTooLong(err)) throw err;
    const n = report.delegations.length;
    throw new UsageError(
      `the ${name} report of ${n} delegation${n === 1 ? '' : 's'} is longer than one string can hold (about 512 MiB); ${STREAMED_WAY_OUT}`,
    );
  }
}
