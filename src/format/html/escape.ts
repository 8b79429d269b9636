// Journal text is untrusted (models wrote it): every string reaches the page through these.
import { BIDI_CONTROLS, spelledOut, ZERO_WIDTH } from '../invisible.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// C0/C1 controls (except tab and newline) and bidi controls could hide or reorder text; show them
// as \uXXXX. So are the BMP's noncharacters (U+FDD0–FDEF, U+FFFE, U+FFFF): a parse error in HTML.
const INVISIBLE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\ufdd0-\\ufdef\\ufffe\\uffff${BIDI_CONTROLS}${ZERO_WIDTH}]`, 'g');

// Most text needs no escape at all: one test, and no replace, for it (a page is escaped piece by piece).
const ANY_INVISIBLE = new RegExp(INVISIBLE.source);
const ANY_SPECIAL = new RegExp(`[&<>"']|${INVISIBLE.source}`);

/** Visible form of untrusted text: controls and bidi overrides spelled out. */
export function visible(s: string): string {
  return ANY_INVISIBLE.test(s) ? s.replace(INVISIBLE, spelledOut) : s;
}

/** Text or attribute value (double- or single-quoted) in HTML and inline SVG. */
export function esc(value: unknown): string {
  const s = typeof value === 'string' ? value : String(value ?? '');
  return ANY_SPECIAL.test(s) ? visible(s).replace(/[&<>"']/g, (c) => ENTITIES[c]) : s;
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
 * East Asian wide and fullwidth characters and emoji (two columns), Latin capitals and m, w (wider):
 * a rough width in average characters, where the SVG cannot measure text before drawing it.
 */
function widthOf(ch: string): number {
  const c = ch.codePointAt(0)!;
  if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) || (c >= 0x20000 && c <= 0x3fffd)) return 2;
  if (c === 0x4d || c === 0x57) return 1.6; // M, W
  return (c >= 0x41 && c <= 0x5a) || c === 0x6d || c === 0x77 ? 1.35 : 1;
}

/** Estimated width of `s` in average characters (as clipWidth counts them). */
export function textUnits(s: string): number {
  let n = 0;
  for (const ch of s) n += widthOf(ch);
  return n;
}

/** At most about `max` average characters wide, with an ellipsis when cut (labels in a fixed-width SVG column). */
export function clipWidth(s: string, max: number): string {
  const chars = [...s];
  const widths = chars.map(widthOf);
  if (widths.reduce((a, b) => a + b, 0) <= max) return s;
  let width = 0;
  let i = 0;
  while (i < chars.length && width + widths[i] <= max - 1) width += widths[i++];
  return `${chars.slice(0, Math.max(1, i)).join('')}…`;
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
