import type { Location } from '../journal/types.js';

/** Evidence lines a one-line format names: a finding about 15,000 sub-runs would otherwise fill it. */
export const MAX_LOCATIONS_SHOWN = 20;

/** `file:line, …` for the first MAX_LOCATIONS_SHOWN, then how many more the JSON output lists. */
export function shownLocations(evidence: readonly Location[], file: (f: string) => string = (f) => f): string {
  const shown = evidence.slice(0, MAX_LOCATIONS_SHOWN).map((e) => `${file(e.file)}:${e.line}`);
  const more = evidence.length - shown.length;
  return shown.join(', ') + (more > 0 ? `, … (${more} more: the JSON output lists them)` : '');
}
