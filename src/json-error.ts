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
  // Node 20's V8 gives no position for "Unexpected token" (a `// comment`, a bare word): find it.
  const m = /at position (\d+)/.exec(plain);
  const at = m ? Number(m[1]) : syntaxErrorOffset(text);
  if (at < 0) return plain;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const col = at - before.lastIndexOf('\n');
  return `${plain.replace(/\s*in JSON at position \d+/, '')} (line ${line}, column ${col})`;
}

const JSON_STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const JSON_STRING_PREFIX = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;
const JSON_SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])|true\b|false\b|null\b/y;

/** Where `re` matches at `i`, the offset after the match; -1 when it does not. */
function matchAt(re: RegExp, s: string, i: number): number {
  re.lastIndex = i;
  return re.test(s) ? re.lastIndex : -1;
}

/**
 * The offset of the first character that makes `s` not JSON (s.length for a text cut short), or
 * -1 when it is JSON. A loop with an explicit stack: a text nested 100,000 deep is no recursion.
 */
export function syntaxErrorOffset(s: string): number {
  const closers: string[] = [];
  let state: 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'after' = 'value';
  let i = 0;
  for (;;) {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
    if (i >= s.length) return state === 'after' && closers.length === 0 ? -1 : s.length;
    const c = s[i];
    if ((state === 'value-or-close' || state === 'key-or-close') && c === closers[closers.length - 1]) {
      closers.pop();
      i++;
      state = 'after';
    } else if (state === 'value' || state === 'value-or-close') {
      if (c === '{' || c === '[') {
        closers.push(c === '{' ? '}' : ']');
        i++;
        state = c === '{' ? 'key-or-close' : 'value-or-close';
        continue;
      }
      const end = c === '"' ? matchAt(JSON_STRING, s, i) : matchAt(JSON_SCALAR, s, i);
      if (end < 0) return c === '"' ? matchAt(JSON_STRING_PREFIX, s, i) : i;
      i = end;
      state = 'after';
    } else if (state === 'key' || state === 'key-or-close') {
      const end = c === '"' ? matchAt(JSON_STRING, s, i) : -1;
      if (end < 0) return c === '"' ? matchAt(JSON_STRING_PREFIX, s, i) : i;
      i = end;
      state = 'colon';
    } else if (state === 'colon') {
      if (c !== ':') return i;
      i++;
      state = 'value';
    } else {
      const top = closers[closers.length - 1];
      if (c === ',' && top !== undefined) state = top === '}' ? 'key' : 'value';
      else if (c === top) closers.pop();
      else return i;
      i++;
    }
  }
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
