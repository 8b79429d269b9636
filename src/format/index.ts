import { chromeTracePieces, formatChromeTrace } from './chrome-trace.js';
import { formatGithub } from './github.js';
import { formatHtml, htmlPieces } from './html.js';
export { pagePieces } from './html.js';
export { PageFacts } from './html/facts.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatNdjson } from './ndjson.js';
import { formatOtlp, otlpPieces } from './otlp.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';
import type { DelegationReport } from '../report/types.js';
import type { Formatter, PieceFormatter } from './types.js';

/**
 * Output formats by name; `--format <name>` and `--output <name>=<file>` look them up here.
 * Typed by name, so `FORMATTERS.txt` is a compile error and `FORMATTERS.text` is never undefined.
 */
export const FORMATTERS = {
  text: formatText,
  json: formatJson,
  ndjson: formatNdjson,
  markdown: formatMarkdown,
  sarif: formatSarif,
  junit: formatJunit,
  github: formatGithub,
  html: formatHtml,
  otlp: formatOtlp,
  'chrome-trace': formatChromeTrace,
} as const satisfies Record<string, Formatter>;

/** A name `--format` accepts. */
export type FormatName = keyof typeof FORMATTERS;

/** The formatter of a name read from the command line or a file, or undefined for an unknown one. */
export const formatterFor = (name: string): Formatter | undefined => (Object.hasOwn(FORMATTERS, name) ? FORMATTERS[name as FormatName] : undefined);

export const FORMAT_NAMES = (): string[] => Object.keys(FORMATTERS);

/** Formats whose documents of large trees are handed over in pieces: never one string of hundreds of MB. */
const PIECES: Partial<Record<FormatName, PieceFormatter>> = { html: htmlPieces, otlp: otlpPieces, 'chrome-trace': chromeTracePieces };

/** A format's pieces, when it hands its document over in pieces; undefined otherwise (use its formatter). */
export const piecesFor = (name: string): PieceFormatter | undefined => (Object.hasOwn(PIECES, name) ? PIECES[name as FormatName] : undefined);

/**
 * Formats that read of a delegation only its head fields, its findings and its first timeline
 * entry (a finding without evidence points there), not its children, limits or aggregate
 * preview: a run writing only these keeps slim blocks,
 * so its memory follows the findings, not the events (sarif of a 4 GiB tree held 400 MB).
 */
const FINDINGS_ONLY: ReadonlySet<string> = new Set(['sarif', 'junit', 'github']);

/** What a run writing `formats` must keep of each block: undefined for all of it. */
export function blockKeeperFor(formats: readonly string[]): ((block: DelegationReport) => DelegationReport) | undefined {
  if (!formats.every((f) => FINDINGS_ONLY.has(f))) return undefined;
  return (block) => ({ ...block, status: { ...block.status, aggregatedOutputPreview: null }, children: [], timeline: block.timeline.slice(0, 1), limits: [] });
}
