import { BIDI_CONTROLS, spelledOut, ZERO_WIDTH } from './invisible.js';

// C0/C1 controls, line and paragraph separators, and bidi controls.
const CONTROLS = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}${ZERO_WIDTH}]`, 'g');

/**
 * Journal text is untrusted (models wrote it): show control characters and escape sequences
 * escaped so a preview can never move the cursor, recolour the terminal or fake a line.
 */
export function safeTerminalText(s: string): string {
  return s.replace(CONTROLS, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return spelledOut(c);
  });
}

const CODES = { red: 31, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export function paint(on: boolean, colour: Colour, s: string): string {
  return on ? `\u001b[${CODES[colour]}m${s}\u001b[0m` : s;
}
