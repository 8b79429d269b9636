import { formatChromeTrace } from './chrome-trace.js';
import { formatGithub } from './github.js';
import { formatHtml } from './html.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatNdjson } from './ndjson.js';
import { formatOtlp } from './otlp.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';
import type { Formatter } from './types.js';

/** Output formats by name; `--format <name>` and `--output <name>=<file>` look them up here. */
export const FORMATTERS: Record<string, Formatter> = {
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
};

export const FORMAT_NAMES = (): string[] => Object.keys(FORMATTERS);
