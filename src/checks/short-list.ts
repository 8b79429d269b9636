/** How many names a finding message lists whole (the finding's `runs` and evidence keep them all). */
export const LISTED_MAX = 12;

/**
 * A list for a finding message: whole up to `max` names, else its first names, how many are left
 * out, and its last two, so a 25,000-attempt retry chain does not make a multi-megabyte message.
 */
export function shortList(items: readonly string[], sep = ', ', max = LISTED_MAX): string {
  if (items.length <= max) return items.join(sep);
  const head = items.slice(0, max - 3);
  const tail = items.slice(-2);
  return [...head, `… ${items.length - head.length - tail.length} more …`, ...tail].join(sep);
}
