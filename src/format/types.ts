import type { Severity } from '../checks/types.js';
import type { DelegationReport, TraceReport } from '../report/types.js';

export interface FormatContext {
  /** Colour escapes allowed (a TTY without NO_COLOR / --no-color). */
  color: boolean;
  /** Findings at or above this severity fail (JUnit failing cases, exit code). */
  failOn: Severity | 'none';
}

/** A formatter is a pure function: report in, text out. It never reads files or exits. */
export type Formatter = (report: TraceReport, ctx: FormatContext) => string;

/** The same document handed over in pieces, in order (their join is the formatter's string): written as they come. */
export type PieceFormatter = (report: TraceReport, ctx: FormatContext) => Iterable<string>;

/** The formatter of a format written in pieces: the pieces joined. */
export const joinedPieces =
  (pieces: PieceFormatter): Formatter =>
  (report, ctx) =>
    [...pieces(report, ctx)].join('');

/** The heading name of a delegation: its id, and for a reused id's later use the key that targets it (`id#2`). */
export const headingName = (d: Pick<DelegationReport, 'id' | 'key'>): string => (d.key === d.id ? d.id : `${d.id} (key ${d.key})`);

/** A count of findings of one severity, `1 error`, `3 warnings`, `2 info` (info has no plural). */
export const severityCount = (n: number, s: Severity): string => `${n} ${s}${n === 1 || s === 'info' ? '' : 's'}`;
