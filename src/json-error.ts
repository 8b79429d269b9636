/**
 * V8's JSON.parse message as one line an editor can use: its quoted copy of the text (which can
 * span lines and hold a raw carriage return) left out, and a character offset turned into a
 * line and column.
 */
function jsonErrorText(text: string, message: string): string {
  const plain = message
    .replace(/, (?:\.\.\.)?"[\s\S]* is not valid JSON$/, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*\(line \d+ column \d+\)$/, '')
    .trim();
  const m = /at position (\d+)/.exec(plain);
  if (!m) return plain;
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  const col = Number(m[1]) - before.lastIndexOf('\n');
  return `${plain.replace(/\s*in JSON at position \d+/, '')} (line ${line}, column ${col})`;
}

/**
 * JSON.parse of a file's text, a byte order mark (Windows editors) left out; a syntax error is
 * thrown as one line saying what and, when V8 tells, where.
 */
export function parseJsonText(raw: string): unknown {
  const text = raw.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(jsonErrorText(text, (err as Error).message));
  }
}
