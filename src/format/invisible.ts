// Untrusted journal text can carry characters that hide or reorder what a reader sees. Each
// output format escapes its own set of controls; these parts are common to all of them.

/**
 * Bidirectional embeddings, overrides, isolates and marks (LRE…RLO, LRI…PDI, LRM, RLM, ALM), as
 * the body of a RegExp character class: they can make text read in another order than it runs.
 */
export const BIDI_CONTROLS = '\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c';

/**
 * Zero-width characters with no use in ids or prose that would need them shown as they are: the
 * zero-width space, the word joiner and a BOM inside text (`run-1` and `run-1\u200b` look alike).
 * ZWJ and ZWNJ are left alone: emoji sequences and several scripts need them.
 */
export const ZERO_WIDTH = '\u200b\u2060\ufeff';

/** `\uXXXX`: how a hidden character is spelled out. */
export const spelledOut = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
