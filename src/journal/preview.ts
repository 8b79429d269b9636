// How output previews are compared across delegations (failed-in-aggregate's "another
// delegation's output"), shared by the model's lookups and the streamed scan's preview hashes.
import { hash53, windowHash } from './id-hash.js';

/** Substring matches need this many characters: shorter texts occur by chance. */
export const MIN_SUBSTRING = 40;

/**
 * Whether a preview is long enough (MIN_SUBSTRING characters) to be matched inside a longer
 * text. Characters as the engine counts them (code points), not UTF-16 units: an emoji is one.
 */
export function longEnoughForSubstring(s: string): boolean {
  if (s.length < MIN_SUBSTRING) return false;
  if (s.length >= 2 * MIN_SUBSTRING) return true; // at most two units a character
  let n = 0;
  for (const _ of s) if (++n >= MIN_SUBSTRING) return true;
  return false;
}

/** A preview truncated by the journal (500 chars + "…") only matches by its kept prefix. */
export const withoutTruncationMark = (s: string): string => (s.endsWith('…') ? s.slice(0, -1) : s);

/** The separator of AllResults aggregates. */
export const SEPARATOR = '\n---\n';

/**
 * The kept start of the aggregate's last segment when the journal cut the aggregate (500 chars +
 * "…"), long enough to match (MIN_SUBSTRING); null otherwise. A failed run's output joined after
 * another one is usually cut so: only its first characters are in the journal.
 */
export function truncatedTail(aggregate: string): string | null {
  if (!aggregate.endsWith('…')) return null;
  const at = aggregate.lastIndexOf(SEPARATOR);
  const tail = aggregate.slice(at === -1 ? 0 : at + SEPARATOR.length, -1).trim();
  return longEnoughForSubstring(tail) ? tail : null;
}

/**
 * Whether an aggregate holds an output preview: as one of its segments (trimmed), or, for a
 * preview of MIN_SUBSTRING characters or more, anywhere in it (its kept prefix, when truncated),
 * or as the start the journal kept of a cut aggregate's last segment (unless `cutTail` is false).
 */
export function aggregateContains(aggregate: string, preview: string, cutTail = true): boolean {
  const p = preview.trim();
  if (!p) return false;
  if (aggregate.split(SEPARATOR).some((seg) => seg.trim() === p)) return true;
  const core = withoutTruncationMark(p);
  if (longEnoughForSubstring(core) && aggregate.includes(core)) return true;
  const tail = cutTail ? truncatedTail(aggregate) : null;
  return tail !== null && core.startsWith(tail);
}

/**
 * The hashes a completion's output preview is found under: its trimmed text whole, and (when long
 * enough to be matched inside an aggregate) its first MIN_SUBSTRING characters; null when blank.
 * The event index and follow mode's sleeping groups key previews so; lookups hash an aggregate
 * segment whole and each of its MIN_SUBSTRING-unit windows (windowHashes).
 */
export function previewKeys(preview: string): { full: number; prefix: number | null } | null {
  const trimmed = preview.trim();
  if (!trimmed) return null;
  const core = withoutTruncationMark(trimmed);
  return { full: hash53(trimmed), prefix: longEnoughForSubstring(core) ? windowHash(core.slice(0, MIN_SUBSTRING)) : null };
}
