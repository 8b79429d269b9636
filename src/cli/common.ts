import { fstatSync } from 'node:fs';
import { expandHome } from '../journal/discover.js';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import type { AnalyzeOptions } from '../analyze.js';
import type { Severity } from '../checks/types.js';
import { parseDuration, parseTimestamp } from '../journal/time.js';
import { loadConfig, parseFailOn, parseRuleFlag } from './config.js';
import { UsageError, type CliIO } from './io.js';

/** The bundled demo tree, found relative to this file so it works from any working directory. */
export const DEMO_SESSIONS = fileURLToPath(new URL('../../fixtures/sessions', import.meta.url));

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** Options shared by every command that scans journals; `hasTarget` is false for list, which takes no target (`list -` is refused). */
export function addScanOptions(cmd: Command, hasTarget = true): Command {
  return addAnalysisOptions(
    cmd
      .option('--sessions <dir|file|glob>', 'journal root, file or glob (repeatable; default $ASTRA_SESSIONS_DIR or ~/.astra/sessions)', collect)
      .option('--stdin', `read one journal from standard input, plain or gzip${hasTarget ? ' (same as target -)' : ''}`)
      .option('--demo', 'read the bundled demo journals (fixtures/sessions) instead of ~/.astra/sessions'),
  ).option('--fail-on <severity>', 'exit 1 when a finding is at or above: error|warning|info|none (default error)', undefined);
}

/** How findings are judged: rule overrides, config file, thresholds and "now" (shared with `check`). */
export function addAnalysisOptions(cmd: Command): Command {
  return cmd
    .option('--rule <id=severity>', 'change a check\'s severity or turn it off: off|info|warning|error (repeatable)', collect)
    .option('--config <path>', 'config file (default ./trace-delegation.config.json when present)')
    .option('--max-fanout <n>', 'fanout-budget: sub-runs running at once (default 8)')
    .option('--max-tree <n>', 'fanout-budget: distinct runs in a delegation tree (default 32)')
    .option('--max-attempts <n>', 'retry-attempt-gap: total attempts the gate allows (default 2)')
    .option('--stale-after <duration>', 'an open delegation newer than this is still running (default 10m)')
    .option('--clock-skew <duration>', 'time-order: allowed lead before the delegation start (default 1s)')
    .addOption(new Option('--now <timestamp>', 'evaluate "still running" against this RFC 3339 time (reproducible runs; also TRACE_DELEGATION_NOW)'));
}

export interface ScanFlags {
  sessions?: string[];
  stdin?: boolean;
  demo?: boolean;
  rule?: string[];
  config?: string;
  maxFanout?: string;
  maxTree?: string;
  maxAttempts?: string;
  staleAfter?: string;
  clockSkew?: string;
  now?: string;
  failOn?: string;
}

/** Digits only: Number() would also take `1e3`, `0x10` and `5.0` for whole numbers. */
export const decimalInteger = (v: string): number => (/^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN);

function positiveInt(name: string, v: string): number {
  const n = decimalInteger(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, not ${JSON.stringify(v)}`);
  return n;
}

function duration(name: string, v: string): number {
  const ms = parseDuration(v);
  if (ms === null) throw new UsageError(`${name} must be a duration such as 500ms, 30s, 10m, 2h, 1m30s or plain seconds, not ${JSON.stringify(v)}`);
  return ms;
}


/** setTimeout's largest delay: a longer one fires after 1 ms, with a TimeoutOverflowWarning. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** TRACE_DELEGATION_POLL_MS for --follow: whole milliseconds, 1 to 2^31-1; empty is unset. */
export function parsePollMs(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = decimalInteger(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TIMER_MS) throw new UsageError(`TRACE_DELEGATION_POLL_MS must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, not ${JSON.stringify(v)}`);
  return n;
}

/** Standard input is the one journal read: a tree named as well would be silently left out. */
export function rejectSessionsWithStdin(flags: ScanFlags): void {
  const also = [flags.sessions?.length ? '--sessions' : null, flags.demo ? '--demo' : null].filter(Boolean);
  if (also.length) throw new UsageError(`standard input (--stdin or target -) is the one journal read; it cannot be combined with ${also.join(' or ')}`);
}

/** `--jobs`: scan threads, 1 to 64. */
export function parseJobs(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = decimalInteger(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--jobs must be an integer from 1 to 64, not ${JSON.stringify(v)}`);
  return n;
}

/** A folder on standard input (`< sessions/`) reads as nothing at all: say so instead of reporting an empty journal. */
export function rejectFolderOnStdin(io: CliIO): void {
  const fd = (io.stdin as { fd?: unknown } | undefined)?.fd;
  if (typeof fd !== 'number') return; // an in-process stream: no descriptor to look at
  let folder = false;
  try {
    folder = fstatSync(fd).isDirectory();
  } catch {
    return;
  }
  if (folder) throw new UsageError('standard input is a folder: redirect one journal (< session.jsonl), or name a tree with --sessions <folder>');
}

/** Merges the config file and flags (flags win) into analyze() options and the fail-on level. */
export function resolveSettings(flags: ScanFlags, io: CliIO): { options: AnalyzeOptions; failOn: Severity | 'none' } {
  const cwd = io.cwd ?? process.cwd();
  const config = loadConfig(flags.config, cwd);
  const rules = { ...config.rules };
  for (const r of flags.rule ?? []) {
    const [id, sev] = parseRuleFlag(r);
    rules[id] = sev;
  }
  const co = { ...config.checkOptions };
  if (flags.maxFanout !== undefined) co.maxFanout = positiveInt('--max-fanout', flags.maxFanout);
  if (flags.maxTree !== undefined) co.maxTree = positiveInt('--max-tree', flags.maxTree);
  if (flags.maxAttempts !== undefined) co.maxAttempts = positiveInt('--max-attempts', flags.maxAttempts);
  if (flags.staleAfter !== undefined) co.staleAfterMs = duration('--stale-after', flags.staleAfter);
  if (flags.clockSkew !== undefined) co.clockSkewMs = duration('--clock-skew', flags.clockSkew);
  // An empty variable is unset, as CI and ASTRA_SESSIONS_DIR are (an empty workflow input).
  const nowText = flags.now ?? (io.env?.TRACE_DELEGATION_NOW || undefined);
  if (nowText !== undefined) {
    const t = parseTimestamp(nowText);
    if (!t) throw new UsageError(`${flags.now !== undefined ? '--now' : 'TRACE_DELEGATION_NOW'} must be an RFC 3339 timestamp, not ${JSON.stringify(nowText)}`);
    co.nowMs = t.ms;
  }
  const failOn = flags.failOn !== undefined ? parseFailOn(flags.failOn) : config.failOn ?? 'error';
  const env = io.env ?? process.env;
  // A quoted `~/…` reaches us unexpanded (the README's globs are quoted, so the shell leaves them).
  const given = flags.sessions?.map((s) => expandHome(s, env));
  // Both would read both trees, and the demo's delegations would mix with the user's.
  if (flags.demo && given?.length) throw new UsageError('--demo reads the bundled demo journals instead of a sessions tree; drop --sessions, or drop --demo');
  const sessions = flags.demo ? [DEMO_SESSIONS] : given;
  return {
    options: { sessions, env: io.env ?? process.env, cwd, rules, checkOptions: co },
    failOn,
  };
}

export function useColor(io: CliIO, flag: boolean | undefined): boolean {
  const env = io.env ?? process.env;
  return flag !== false && !!io.stdout.isTTY && !('NO_COLOR' in env && env.NO_COLOR !== '') && env.TERM !== 'dumb';
}
