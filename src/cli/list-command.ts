import type { Readable } from 'node:stream';
import { analyze, newestRecentFirst, streamAll, type AnalyzeOptions, type RecentRows } from '../analyze.js';
import { safeTerminalText as safe } from '../format/terminal.js';
import { instantToIso, parseTimestamp } from '../journal/time.js';
import type { Instant } from '../journal/types.js';
import type { DelegationReport } from '../report/types.js';
import { decimalInteger, parseJobs, rejectFolderOnStdin, rejectSessionsWithStdin, resolveSettings, type ScanFlags } from './common.js';
import { exitCodeForFindings, UsageError, type CliIO } from './io.js';
import { createProgress } from './progress.js';
import { distinctCuts, renderTable } from './table.js';

/**
 * A timestamp's UTC wall clock to the second: rows are ordered by instant, so a journal written
 * with another offset (`+09:00`) must not print its local digits among UTC ones.
 */
function utcClock(ts: string): string {
  const t = parseTimestamp(ts);
  return t ? instantToIso(t).slice(0, 19) : ts.slice(0, 19);
}

export interface ListFlags extends ScanFlags {
  limit?: string;
  events?: boolean;
  quiet?: boolean;
  format?: string;
  jobs?: string;
}

const short = (s: string | null, n = 12) => (s === null ? '?' : s.length > n ? `${s.slice(0, n)}…` : s);
/** A reused id's `#2` suffix must survive the shortening, or its two rows would look the same. */
const shortKey = (d: DelegationReport, cut: number) => `${short(d.id, cut)}${d.key.slice(d.id.length)}`;

/** The agents cell: names up to `width` columns, then how many more (`list -f json` has them all). */
export function agentsCell(agents: readonly string[], width = 40): string {
  if (agents.length === 0) return '';
  let cell = '';
  for (let i = 0; i < agents.length; i++) {
    const next = `${cell}${i ? ',' : ''}${agents[i]}`;
    const rest = agents.length - i - 1;
    // The last name needs no room for the count; any other keeps room for `… +N`.
    if (next.length <= (rest ? width - ` … +${rest}`.length : width)) {
      cell = next;
      continue;
    }
    if (i === 0) return `${short(agents[0], width - 2 - (rest ? ` +${rest}`.length : 0))}${rest ? ` +${rest}` : ''}`;
    return `${cell} … +${agents.length - i}`;
  }
  return cell;
}

/** `list`: recent delegations newest first, or with --events the skill's event listing. */
export async function runList(flags: ListFlags, io: CliIO): Promise<number> {
  const limit = decimalInteger(flags.limit ?? '20');
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, not ${JSON.stringify(flags.limit)}`);
  const format = flags.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`list --format is text or json, not ${JSON.stringify(format)}`);
  if (format === 'json' && flags.events) throw new UsageError('list --events prints the event listing as text; drop --format json (or --events)');
  const { options, failOn } = resolveSettings(flags, io);
  options.jobs = parseJobs(flags.jobs);
  if (flags.stdin) {
    rejectSessionsWithStdin(flags);
    rejectFolderOnStdin(io);
  }
  // A whole-tree scan: V8's young generation stays small (src/cli/young-generation.ts).
  const { holdYoungGeneration, letYoungGenerationGrow } = await import('./young-generation.js');
  holdYoungGeneration();
  // A whole-tree read (when the recent files cannot stand for the tree) shows the scan's progress.
  const progress = createProgress(io.stderr, { quiet: flags.quiet, env: io.env });
  options.onFile = (done, files, bytes) => {
    progress?.onFile(done, files, bytes);
    letYoungGenerationGrow(); // the scan is under way
  };
  let rows: Awaited<ReturnType<typeof newestDelegations>>;
  try {
    rows = await newestDelegations(flags.stdin ? io.stdin : undefined, options, limit);
  } finally {
    progress?.finish();
  }
  const { newest, total, recent, limits } = rows;
  const newestFirst = newest.reverse();
  if (flags.events) {
    // The seed skill's listing: ts | type | delegation id prefix | run id | file:line
    const rows = chronological(newestFirst.slice(0, limit).reverse().map((d) => eventRows(d)));
    io.stdout.write(rows.map((r) => `${r}\n`).join('') + limitLines(limits, rows.length > 0));
    return exitCodeForFindings(newestFirst.slice(0, limit), failOn);
  }
  const footer = recent ? recentFooter(newestFirst.length, recent) : `${newestFirst.length} of ${total} delegations, newest first`;
  if (format === 'json') {
    // Whole ids (the table cuts them), for jq and scripts.
    const delegations = newestFirst.slice(0, limit).map((d) => {
      const n = { error: 0, warning: 0, info: 0 };
      for (const f of d.findings) n[f.severity]++;
      return { key: d.key, id: d.id, startedTs: d.startedTs, pattern: d.pattern, parentRunId: d.parentRunId, agents: d.agents, succeeded: d.status.succeeded, failed: d.status.failed, status: d.status.aggregated ?? (d.completedTs !== null ? null : 'open'), findings: n, files: d.files };
    });
    io.stdout.write(`${JSON.stringify({ delegations, total: recent ? null : total, note: footer, limits }, null, 2)}\n`);
    return exitCodeForFindings(newestFirst.slice(0, limit), failOn);
  }
  const shown = newestFirst.slice(0, limit);
  const cuts = distinctCuts(shown.map((d) => d.id), 13);
  const cells = shown.map((d) => {
    const n = { error: 0, warning: 0, info: 0 };
    for (const f of d.findings) n[f.severity]++;
    return [
      safe(d.startedTs ? utcClock(d.startedTs) : '?'),
      safe(shortKey(d, cuts.get(d.id)!)),
      safe(d.pattern ?? '?'),
      safe(short(d.parentRunId)),
      safe(agentsCell(d.agents)),
      `${d.status.succeeded ?? '?'}/${d.status.failed ?? '?'}`,
      safe(d.status.aggregated ?? (d.completedTs !== null ? '?' : 'open')),
      `${n.error}/${n.warning}/${n.info}`,
    ];
  });
  const table = renderTable(['started (UTC)', 'id', 'pattern', 'parent run', 'agents', 'ok/failed', 'status', 'findings E/W/I'], cells);
  io.stdout.write(`${table}\n${footer}\n${limitLines(limits, true)}`);
  // As for a report: exit 1 when a delegation shown has a finding at or above --fail-on.
  return exitCodeForFindings(newestFirst.slice(0, limit), failOn);
}

/** What the scan could not read or skipped, as the report's Scan limits: an empty list must not pass for an empty tree. */
function limitLines(limits: string[], afterOutput: boolean): string {
  return limits.length ? `${afterOutput ? '\n' : ''}Limits:\n${limits.map((l) => `- ${safe(l)}\n`).join('')}` : '';
}

/** What a recent-first list read, and what that leaves out. */
function recentFooter(shown: number, r: RecentRows): string {
  return `the ${shown === 1 ? 'newest delegation' : `${shown} newest delegations, newest first`}; read ${r.read} of ${r.files} journal files, newest first, down to every file modified since the oldest of them started (${r.since}); checks that compare delegations, and the #2 key of a reused delegation id, saw only the files read (name a delegation to check it against every file)`;
}

/**
 * The `limit` newest delegations' reports, oldest first, and how many there are. A tree is read
 * recent-first when that can stand for it (`recent` then says what was read, and the total is
 * unknown); otherwise through the event index, one delegation at a time, keeping only the newest
 * `limit` reports: memory stays bounded on months of journals. Standard input is read whole.
 */
async function newestDelegations(stdin: NodeJS.ReadableStream | undefined, options: AnalyzeOptions, limit: number): Promise<{ newest: DelegationReport[]; total: number; limits: string[]; recent?: RecentRows }> {
  if (stdin) {
    const { report } = await analyze({ ...options, stdin: stdin as Readable, all: true });
    return { newest: report.delegations.slice(-limit), total: report.delegations.length, limits: report.limits };
  }
  const recent = options.recentFirst === false ? null : await newestRecentFirst(options, limit);
  if (recent) return { newest: recent.newest, total: recent.newest.length, limits: recent.limits, recent };
  const stream = await streamAll(options);
  const newest: DelegationReport[] = [];
  let total = 0;
  for (const d of stream.delegations) {
    total++;
    newest.push(d);
    if (newest.length >= 2 * limit) newest.splice(0, newest.length - limit); // amortized: no shift per row
  }
  return { newest: newest.slice(-limit), total, limits: stream.tail().limits };
}

const TYPE_NAMES: Record<string, string> = {
  started: 'delegation_started',
  'sub-run started': 'delegation_sub_run_started',
  retry: 'delegation_retry',
  'sub-run completed': 'delegation_sub_run_completed',
  'delegation completed': 'delegation_completed',
  marker: 'sync_marker',
};

interface EventRow {
  time: Instant | null;
  text: string;
}

function eventRows(d: DelegationReport): EventRow[] {
  return d.timeline.map((t) => {
    const type = TYPE_NAMES[t.kind] ?? t.kind;
    const run = t.runId ?? (t.kind === 'started' ? d.parentRunId ?? '' : '');
    return { time: parseTimestamp(t.ts), text: safe(`${utcClock(t.ts)} | ${type.padEnd(28)} | ${d.id.slice(0, 16).padEnd(16)} | ${run} | ${t.file}:${t.line}`) };
  });
}

/**
 * One listing in time order, like the skill's: nested and concurrent delegations interleave.
 * Each timeline is already ordered; an untimed row keeps the time of the row before it, so a
 * stable sort on (time, delegation, position) never reorders a delegation's own events.
 */
function chronological(timelines: EventRow[][]): string[] {
  const keyed = timelines.flatMap((rows, seq) => {
    let prev: Instant = { ms: -Infinity, subNs: 0 };
    return rows.map((r, pos) => {
      if (r.time) prev = r.time;
      return { time: prev, seq, pos, text: r.text };
    });
  });
  keyed.sort((a, b) => (a.time.ms === b.time.ms ? a.time.subNs - b.time.subNs : a.time.ms < b.time.ms ? -1 : 1) || a.seq - b.seq || a.pos - b.pos);
  return keyed.map((k) => k.text);
}
