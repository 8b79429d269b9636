import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { InputError } from '../journal/discover.js';
import { parseJsonText } from '../json-error.js';
import { readSmallText, TooLargeError } from '../small-file.js';
import type { FieldPath } from './types.js';

/** A contract file that cannot be read or parsed: one sentence, exit 2. */
export class ContractFileError extends InputError {
  override name = 'ContractFileError';
}

/** Plans are small documents; anything this large is the wrong file. */
const MAX_BYTES = 8 * 1024 * 1024;

export interface LoadedContract {
  /** The path as the user wrote it (for messages). */
  file: string;
  format: 'yaml' | 'json';
  /** The parsed document; a mapping at the top level (not yet validated). */
  data: Record<string, unknown>;
  /** 1-based line of a field, or of its nearest existing parent when the field is missing. */
  lineOf(path: FieldPath): number | undefined;
}

/** Reads a contract plan (YAML, or JSON by extension or content) from disk. */
export async function loadContractFile(file: string, cwd: string = process.cwd()): Promise<LoadedContract> {
  // `--contract "$PLAN"` with PLAN unset: not the working directory, nor no contract at all.
  if (file === '') throw new ContractFileError('the contract file name is empty (an unset variable?)');
  const full = path.resolve(cwd, file);
  let text: string;
  try {
    const st = await stat(full);
    if (st.isDirectory()) throw new ContractFileError(`cannot read contract ${file}: it is a directory`);
    if (st.size > MAX_BYTES) throw new ContractFileError(`cannot read contract ${file}: ${st.size} bytes is too large for a delegation plan`);
    text = readSmallText(full, MAX_BYTES); // a device (/dev/zero) has no size to check first
  } catch (err) {
    if (err instanceof ContractFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = err instanceof TooLargeError ? err.message : code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new ContractFileError(`cannot read contract ${file}: ${why}`);
  }
  return parseContractText(text, file);
}

/** Parses contract text; `.json` files must be strict JSON, anything else is read as YAML. */
export function parseContractText(raw: string, file: string): LoadedContract {
  const text = raw.replace(/^\uFEFF/, ''); // a UTF-8 byte order mark (editors on Windows) is not content
  const json = /\.json$/i.test(file);
  if (text.trim() === '') throw new ContractFileError(`contract ${file} is empty`);
  let data: unknown;
  if (json) {
    try {
      data = parseJsonText(text);
    } catch (err) {
      throw new ContractFileError(`contract ${file} is not valid JSON: ${(err as Error).message}`);
    }
  }
  const lines = new LineCounter();
  // JSON is YAML too, so one parser gives line numbers for both. logLevel error: a YAML warning
  // (a mapping used as a key) would reach stderr as a Node warning.
  // merge: `<<: *defaults` (YAML 1.1 merge keys) is how people share constraints between subtasks.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, logLevel: 'error', merge: true });
  if (json) {
    // JSON.parse keeps the last of two equal keys silently; YAML refuses them, and so do we here.
    const duplicate = doc.errors.find((e) => e.code === 'DUPLICATE_KEY');
    if (duplicate) {
      const at = lines.linePos(duplicate.pos[0]);
      throw new ContractFileError(`contract ${file} is not valid: a key appears twice in one object (line ${at.line}, column ${at.col})`);
    }
  } else {
    const first = doc.errors[0];
    if (first) {
      const at = lines.linePos(first.pos[0]);
      throw new ContractFileError(`contract ${file} is not valid YAML: ${yamlErrorText(first.message)} (line ${at.line}, column ${at.col})`);
    }
    try {
      data = doc.toJS({ maxAliasCount: 1000 }); // still refuses an alias bomb; 100 refused a plan using one alias 100 times
    } catch (err) {
      throw new ContractFileError(`contract ${file} is not valid YAML: ${yamlErrorText((err as Error).message)}`);
    }
  }
  const odd = firstTaggedValue(data);
  if (odd?.circular) throw new ContractFileError(`contract ${file}: ${odd.where} is an alias to a value that holds it, and a plan cannot refer to itself`);
  if (odd) throw new ContractFileError(`contract ${file}: ${odd.where} is ${odd.what}; a plan holds only mappings, lists, text, numbers, booleans and null`);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    const got = data === null ? 'nothing' : Array.isArray(data) ? 'a list' : `a ${typeof data}`;
    throw new ContractFileError(`contract ${file} must be a mapping with delegation, subtasks, merge_plan and failure_handling at the top level, not ${got}`);
  }
  return { file, format: json ? 'json' : 'yaml', data: data as Record<string, unknown>, lineOf: (p) => lineOf(doc, lines, p) };
}

/**
 * The first value YAML tags made into something else than JSON holds (`!!binary` bytes, a `!!set`,
 * an `!!omap`, a `!!timestamp` date), which the schema's "object" would otherwise take for a mapping.
 */
function firstTaggedValue(data: unknown): { where: string; what: string; circular?: boolean } | null {
  // A YAML alias inside the value it names (`a: &x [*x]`) makes a circular value: every later
  // walk (this one, the schema's) would never end. `inside` holds the values on the current path.
  const inside = new Set<object>();
  const todo: [unknown, string, boolean][] = [[data, '', false]]; // the value, its path ('' for the document), leaving it
  while (todo.length) {
    const [v, where, leaving] = todo.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (leaving) {
      inside.delete(v);
      continue;
    }
    if (inside.has(v)) return { where: where || 'the document', what: 'circular', circular: true };
    inside.add(v);
    todo.push([v, where, true]);
    if (Array.isArray(v)) {
      v.forEach((x, i) => todo.push([x, `${where}[${i}]`, false]));
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      const what = v instanceof Uint8Array ? 'binary data (!!binary)' : v instanceof Set ? 'a set (!!set)' : v instanceof Map ? 'an ordered map (!!omap)' : v instanceof Date ? 'a date (!!timestamp)' : 'a tagged value';
      return { where: where || 'the document', what };
    }
    for (const [k, x] of Object.entries(v)) todo.push([x, where ? `${where}.${k}` : k, false]);
  }
  return null;
}

function lineOf(doc: Document, lines: LineCounter, fieldPath: FieldPath): number | undefined {
  if (doc.errors.length) return undefined;
  // Walk down as far as the path exists: a missing field points at its parent.
  let node: unknown = doc.contents;
  let line = rangeLine(node, lines);
  for (const seg of fieldPath) {
    if (isMap(node)) {
      const pair = node.items.find((it) => (it.key as { value?: unknown } | null)?.value === seg);
      if (!pair) break;
      line = rangeLine(pair.key, lines) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      if (node === undefined) break;
      line = rangeLine(node, lines) ?? line;
    } else break;
  }
  return line;
}

function rangeLine(node: unknown, lines: LineCounter): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? lines.linePos(range[0]).line : undefined;
}

const oneLine = (s: string) => s.split('\n')[0].replace(/[\s:]+$/, '');

/** The YAML parser's message on one line; its stack running out is a document nested too deeply. */
const yamlErrorText = (message: string) =>
  /Maximum call stack size exceeded/.test(message)
    ? 'it is nested too deeply for the YAML parser (a plan this deep can be written as JSON)'
    : /multiple documents/i.test(message)
      ? 'it holds more than one document (a "---" line between two); a plan is one document'
      : oneLine(message);

