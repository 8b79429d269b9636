/**
 * Journal text is untrusted (models wrote it): show control characters and escape sequences
 * escaped so a preview can never move the cursor, recolour the terminal or fake a line.
 */
export function safeTerminalText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

const CODES = { red: 31, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export function paint(on: boolean, colour: Colour, s: string): string {
  return on ? `\u001b[${CODES[colour]}m${s}\u001b[0m` : s;
}
