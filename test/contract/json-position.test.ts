// A JSON plan that does not parse: the error says where, also for the errors Node 20's V8 gives
// no position for (a `// comment` line, a bare word, a stray character).
import { describe, expect, it } from 'vitest';
import { parseJsonText, syntaxErrorOffset } from '../../src/json-error.js';
import { runMain } from '../helpers/cli.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const errorOf = (text: string): string => {
  try {
    parseJsonText(text);
  } catch (err) {
    return (err as Error).message;
  }
  return 'parsed';
};

describe('syntaxErrorOffset', () => {
  it('is -1 for JSON and the offending offset otherwise', () => {
    for (const ok of ['{}', '[]', ' {"a": [1, -2.5e3, "x\\n\\u00e9", true, false, null, {}]} ', '"s"', '0', '[[[]]]']) expect(syntaxErrorOffset(ok), ok).toBe(-1);
    const cases: [string, number][] = [
      ['// plan\n{}', 0],
      ['{"a": tru }', 6],
      ['{"a": 1,}', 8],
      ['{"a" 1}', 5],
      ['[1 2]', 3],
      ['{} x', 3],
      ['{"a": "b\tc"}', 8],
      ['{"a": [1, 2}', 11],
      ['{"a": ', 6],
      ['', 0],
      ['01', 0],
      ["{'a': 1}", 1],
    ];
    for (const [text, at] of cases) expect(syntaxErrorOffset(text), JSON.stringify(text)).toBe(at);
  });

  it('agrees with JSON.parse on whether a text is JSON (mutations of a valid plan)', () => {
    const base = '{"delegation": {"id": "d", "n": [1, 2.5, -3e2]}, "ok": true, "none": null, "s": "a\\"b"}';
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const alphabet = '{}[]:,"\\ 0123456789.-+eEtrufalsn/x\n';
    for (let k = 0; k < 3000; k++) {
      const at = rand(base.length);
      const text = rand(2) ? base.slice(0, at) + alphabet[rand(alphabet.length)] + base.slice(at) : base.slice(0, at) + base.slice(at + 1);
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(syntaxErrorOffset(text) === -1, text).toBe(valid);
    }
  });

  it('does not recurse: a text nested 200,000 deep is answered', () => {
    expect(syntaxErrorOffset('['.repeat(200_000) + ']'.repeat(200_000))).toBe(-1);
    expect(syntaxErrorOffset('['.repeat(200_000) + ']'.repeat(199_999) + '}')).toBe(399_999);
  });
});

describe('parseJsonText errors', () => {
  it('name the line and column where V8 gives none', () => {
    expect(errorOf('// plan\n{}')).toBe("Unexpected token '/' (line 1, column 1)");
    expect(errorOf('{\n  "a": tru\n}')).toMatch(/^Unexpected token .* \(line 2, column 8\)$/);
    expect(errorOf('{"a": 1,}')).toBe('Expected double-quoted property name (line 1, column 9)');
  });

  it('reach the contract command', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-json-pos-'));
    try {
      const file = path.join(dir, 'plan.json');
      writeFileSync(file, '// my plan\n{"delegation": {}}\n');
      const r = await runMain(['contract', 'validate', file]);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toBe(`trace-delegation: contract ${file} is not valid JSON: Unexpected token '/' (line 1, column 1)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
