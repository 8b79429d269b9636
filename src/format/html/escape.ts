// Journal text is untrusted (models wrote it): every string reaches the page through these.
import { BIDI_CONTROLS, spelledOut, ZERO_WIDTH } from '../invisible.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// C0/C1 controls (except tab and newline) and bidi controls could hide or reorder text; show them
// as \uXXXX. So are the BMP's noncharacters (U+FDD0–FDEF, U+FFFE, U+FFFF): a parse error in HTML.
const INVISIBLE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\ufdd0-\\ufdef\\ufffe\\uffff${BIDI_CONTROLS}${ZERO_WIDTH}]`, 'g');

/** Visible form of untrusted text: controls and bidi overrides spelled out. */
export function visible(s: string): string {
  return s.replace(INVISIBLE, spelledOut);
}

/** Text or attribute value (double- or single-quoted) in HTML and inline SVG. */
export function esc(value: unknown): string {
  return visible(String(value ?? '')).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * JSON for a `<script type="application/json">` block: no `<`, `>` or `&` can close or comment
 * it, and the characters the HTML parser calls errors (DEL, C1 controls, noncharacters) are escaped.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]/g, spelledOut);
}

/** At most `max` characters, with an ellipsis when cut (labels in the SVG). */
export function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

/**
 * A journaled text (an error, an output preview) cut at `max` UTF-16 units, saying how much more
 * there is: one page repeats it several times, and a runaway preview must not make it unopenable.
 */
export function capText(s: string, max: number): string {
  if (s.length <= max) return s;
  // Not inside a surrogate pair: a lone half would show as U+FFFD.
  const cut = /[\ud800-\udbff]/.test(s[max - 1]) ? max - 1 : max;
  return `${s.slice(0, cut)}… (${s.length - cut} more characters; the json report has the whole text)`;
}
