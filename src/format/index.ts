import { formatJson } from './json.js';
import { formatText } from './text.js';
import type { Formatter } from './types.js';

/** Output formats by name; `--format <name>` and `--output <name>=<file>` look them up here. */
export const FORMATTERS: Record<string, Formatter> = {
  text: formatText,
  json: formatJson,
};

export const FORMAT_NAMES = (): string[] => Object.keys(FORMATTERS);
