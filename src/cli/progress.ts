import type { Writable } from 'node:stream';
import { monotonicMs } from '../journal/time.js';
import { isCI } from './io.js';

/**
 * A progress line for long runs, written to a TTY only: while scanning, files and bytes done and
 * throughput; then, while the report is written to a file or pipe, the delegations reported.
 */
export interface Progress {
  /** Matches AnalyzeOptions.onFile. */
  onFile: (done: number, total: number, bytes: number) => void;
  /** `delegations` reported so far; `done` of `total` units of work (total 0: unknown). */
  onReport: (delegations: number, done: number, total: number) => void;
  /** Erases the line (call before anything else is printed). */
  finish: () => void;
}

export interface ProgressOptions {
  quiet?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Injectable clock (ms), for tests. */
  now?: () => number;
  /** Nothing is drawn before this (short scans stay silent). */
  delayMs?: number;
  /** At most one redraw per interval. */
  intervalMs?: number;
}

const BAR = 20;

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(n >= 100 * 1024 ** 2 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} B`;
}

/** The line itself: `[#####---------------] 120/400 files  312 MiB  850 MiB/s`. */
export function progressLine(done: number, total: number, bytes: number, elapsedMs: number): string {
  const filled = total > 0 ? Math.min(BAR, Math.round((done / total) * BAR)) : 0;
  const rate = elapsedMs > 0 ? formatBytes((bytes / elapsedMs) * 1000) : '-';
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${done}/${total} files  ${formatBytes(bytes)}  ${rate}/s`;
}

/** The report phase's line: `[########------------] 2371 delegations reported  40%`. */
export function reportLine(delegations: number, done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR, Math.floor((done / total) * BAR)) : 0;
  const share = total > 0 ? `  ${Math.min(100, Math.floor((done / total) * 100))}%` : '';
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${delegations} ${delegations === 1 ? 'delegation' : 'delegations'} reported${share}`;
}

/**
 * Returns a progress reporter when `stream` is a terminal and the user did not ask for quiet;
 * otherwise null, so pipes, files and CI logs never see carriage returns.
 */
export function createProgress(stream: Writable & { isTTY?: boolean }, options: ProgressOptions = {}): Progress | null {
  const env = options.env ?? process.env;
  if (options.quiet || !stream.isTTY || env.TERM === 'dumb' || isCI(env)) return null;
  const now = options.now ?? monotonicMs;
  const delayMs = options.delayMs ?? (env.TRACE_DELEGATION_PROGRESS_DELAY_MS ? Number(env.TRACE_DELEGATION_PROGRESS_DELAY_MS) : 250);
  const intervalMs = options.intervalMs ?? 100;
  const began = now();
  let lastDraw = -Infinity;
  let width = 0;
  /** Draws `line()` unless too early or too soon after the last draw (`last`: the final state, always drawn). */
  const draw = (last: boolean, line: (elapsedMs: number) => string) => {
    const t = now();
    if (t - began < delayMs || (t - lastDraw < intervalMs && !last)) return;
    lastDraw = t;
    const text = line(t - began);
    // Pad over a longer previous line instead of using escape codes every terminal may not know.
    stream.write(`\r${text.padEnd(width)}`);
    width = text.length;
  };
  return {
    onFile(done, total, bytes) {
      draw(done >= total, (elapsedMs) => progressLine(done, total, bytes, elapsedMs));
    },
    onReport(delegations, done, total) {
      draw(false, () => reportLine(delegations, done, total));
    },
    finish() {
      if (width > 0) stream.write(`\r${' '.repeat(width)}\r`);
      width = 0;
      lastDraw = Number.NEGATIVE_INFINITY; // the line is blank: the next phase's first update draws at once
    },
  };
}
