import { chromeTracePieces, formatChromeTrace } from './chrome-trace.js';
import { formatGithub } from './github.js';
import { formatHtml, htmlPieces } from './html.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatNdjson } from './ndjson.js';
import { formatOtlp, otlpPieces } from './otlp.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';
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
