// How output previews are compared across delegations (failed-in-aggregate's "another
// delegation's output"), shared by the model's lookups and the streamed scan's preview hashes.

/** Substring matches need this many characters: shorter texts occur by chance. */
export const MIN_SUBSTRING = 40;

/** A preview truncated by the journal (500 chars + "…") only matches by its kept prefix. */
export const withoutTruncationMark = (s: string): string => (s.endsWith('…') ? s.slice(0, -1) : s);
