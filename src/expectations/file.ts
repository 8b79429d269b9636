import { CHECK_META_BY_ID } from '../checks/catalog.js';
import { SEVERITIES, SEVERITY_RANK, type Finding, type Severity } from '../checks/types.js';
import { InputError } from '../journal/discover.js';
import { parseJsonText } from '../json-error.js';

/** One line of an `X.expected.json` file: which findings the case must produce. */
export interface Expectation {
  id: string;
  /** Delegation id (or key, `id#2` for a reused id); any delegation when absent. */
  delegation?: string;
  /** Any severity when absent. */
  severity?: Severity;
  /** Exactly this many matching findings; "at least one" when absent. */
  count?: number;
  /** The sub-run ids the finding names, in any order; any when absent. */
  runs?: string[];
  /** The finding's evidence as `file:line`, the file relative to the case, in any order; any when absent. */
  evidence?: string[];
}

/** What --update may pin besides id, delegation, severity and count. */
export interface Pins {
  runs: boolean;
  evidence: boolean;
}

const KEYS = new Set(['id', 'delegation', 'severity', 'count', 'runs', 'evidence']);
const EVIDENCE_ITEM = /^[\s\S]+:[1-9]\d*$/;
// Free text for the humans who read the file; ignored by the comparison.
const COMMENT_KEYS = new Set(['note', 'comment']);
const ALLOWED = [...KEYS, ...COMMENT_KEYS].join(', ');

/** Parses and validates an expectations file; any defect is one sentence (exit 2). */
export function parseExpectations(text: string, name: string): Expectation[] {
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (err) {
    throw new InputError(`expectations file ${name} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new InputError(`expectations file ${name} must be a JSON array of { id, delegation?, severity?, count?, runs?, evidence? }`);
  return raw.map((item, i) => validateItem(item, `${name}[${i}]`));
}

function validateItem(item: unknown, where: string): Expectation {
  const fail = (msg: string) => new InputError(`expectations file ${where}: ${msg}`);
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw fail('each entry must be an object such as { "id": "missing-start" }');
  const o = item as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KEYS.has(k) && !COMMENT_KEYS.has(k)) throw fail(`unknown key "${k}" (allowed: ${ALLOWED})`);
  if (typeof o.id !== 'string' || o.id === '') throw fail('"id" must be a non-empty string (a check id)');
  // A misspelled id would match nothing, and `"count": 0` on it would always pass.
  if (!CHECK_META_BY_ID.has(o.id)) throw fail(`"id" ${JSON.stringify(o.id)} is not a check id (see \`trace-delegation rules\`)`);
  const e: Expectation = { id: o.id };
  if (o.delegation !== undefined) {
    if (typeof o.delegation !== 'string' || o.delegation === '') throw fail('"delegation" must be a non-empty string');
    e.delegation = o.delegation;
  }
  if (o.severity !== undefined) {
    if (!SEVERITIES.includes(o.severity as Severity)) throw fail(`"severity" must be one of ${SEVERITIES.join(', ')}`);
    e.severity = o.severity as Severity;
  }
  if (o.count !== undefined) {
    if (!Number.isInteger(o.count) || (o.count as number) < 0) throw fail('"count" must be a whole number, 0 or more');
    e.count = o.count as number;
  }
  if (o.runs !== undefined) e.runs = stringList(o.runs, '"runs" must be an array of sub-run ids', () => true, fail);
  if (o.evidence !== undefined) e.evidence = stringList(o.evidence, '"evidence" must be an array of "file:line" strings (the file relative to the case)', (v) => EVIDENCE_ITEM.test(v), fail);
  return e;
}

function stringList(v: unknown, rule: string, valid: (s: string) => boolean, fail: (msg: string) => Error): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '' && valid(x))) throw fail(rule);
  return v as string[];
}

/**
 * The expectations that describe `findings` exactly (what `--update` writes): one entry per
 * delegation, id and severity (and runs and evidence when pinned), with its count, in report order.
 */
export function expectationsFor(findings: Finding[], pins: Pins = { runs: false, evidence: false }, evidenceOf: (f: Finding) => string[] = evidenceStrings): Expectation[] {
  const groups = new Map<string, Expectation>();
  for (const f of findings) {
    const runs = pins.runs ? [...f.runs].sort() : undefined;
    const evidence = pins.evidence ? evidenceOf(f) : undefined;
    const k = JSON.stringify([f.delegation, f.id, f.severity, runs, evidence]);
    const g = groups.get(k);
    if (g) g.count = (g.count ?? 0) + 1;
    else groups.set(k, { id: f.id, delegation: f.delegation, severity: f.severity, count: 1, ...(runs && { runs }), ...(evidence && { evidence }) });
  }
  const order = [...new Set(findings.map((f) => f.delegation))];
  return [...groups.values()].sort(
    (a, b) => order.indexOf(a.delegation!) - order.indexOf(b.delegation!) || SEVERITY_RANK[b.severity!] - SEVERITY_RANK[a.severity!] || a.id.localeCompare(b.id),
  );
}

/** A finding's evidence as `file:line` strings, as the report prints them. */
export const evidenceStrings = (f: Finding): string[] => f.evidence.map((l) => `${l.file}:${l.line}`);

/** One entry per line, so a changed expectation is a one-line diff in review. */
export function serializeExpectations(list: Expectation[]): string {
  if (!list.length) return '[]\n';
  const line = (e: Expectation) => `  { ${Object.entries(e).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }`;
  return `[\n${list.map(line).join(',\n')}\n]\n`;
}
