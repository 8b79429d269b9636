/** Shared pieces of the robustness suite: corpora, random edits, and what a healthy run looks like. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { expect } from 'vitest';
import { ROOT, runBin, type CliResult } from '../helpers/cli.js';
import type { ScanStats } from '../../src/report/types.js';
import { ev, line } from '../helpers/journal.js';

/** The engine-written sample the project was specified against (a copy of shared/ sits beside the repo in CI). */
export const SAMPLE_PATH = path.resolve(ROOT, 'fixtures', 'samples', 'astra-sample.jsonl');
export const SAMPLE = readFileSync(SAMPLE_PATH, 'utf8');

/** Current layout directory for the local owner (`b64-` + base64url("local")). */
export const LOCAL = 'v1/users/b64-bG9jYWw/sessions';

/** The seed: fixed so CI is reproducible; FUZZ_SEED / FUZZ_RUNS explore further by hand. */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20251103;
export const fuzzRuns = (n: number): number => (process.env.FUZZ_RUNS ? Math.max(1, Math.round((Number(process.env.FUZZ_RUNS) * n) / 200)) : n);

const dirs: string[] = [];

/** A fresh temporary directory, removed by `removeTempDirs()`. */
export function tempDir(label: string): string {
  const d = mkdtempSync(path.join(tmpdir(), `td-robust-${label}-`));
  dirs.push(d);
  return d;
}

export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes `files` (relative path → content) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

// ---------------------------------------------------------------------------------------------
// Valid journals to start from: the engine sample plus shapes built with the line helpers.

const t = (s: number): string => new Date(Date.UTC(2026, 2, 10, 10, 0, 0) + s * 1000).toISOString().replace('Z', '000000+00:00');

/** fan_out with a verification retry, a timeout, pause/resume markers and a session end. */
function fanOutWithRetry(): string[] {
  const d = 'f1a2b3c4-0000-4000-8000-000000000001';
  return [
    line('session_start', t(0), {}),
    ev.started(t(1), { delegation_id: d, parent_run_id: 'parent-1', pattern: 'fan_out', agent_ids: ['coder', 'tester', 'deployer'] }),
    ev.subStarted(t(2), { delegation_id: d, sub_run_id: 'run-c1', parent_run_id: 'parent-1', agent_id: 'coder' }),
    ev.subStarted(t(2), { delegation_id: d, sub_run_id: 'run-t1', parent_run_id: 'parent-1', agent_id: 'tester' }),
    ev.subStarted(t(2), { delegation_id: d, sub_run_id: 'run-d1', parent_run_id: 'parent-1', agent_id: 'deployer' }),
    ev.marker(t(3), 'pause', 'run-t1'),
    ev.marker(t(4), 'resume', 'run-t1'),
    ev.subCompleted(t(5), { delegation_id: d, sub_run_id: 'run-c1', agent_id: 'coder', status: 'verification_failed', output_preview: 'ok' }),
    ev.retry(t(6), { delegation_id: d, original_run_id: 'run-c1', retry_run_id: 'run-c2', agent_id: 'coder' }),
    ev.subStarted(t(6), { delegation_id: d, sub_run_id: 'run-c2', parent_run_id: 'parent-1', agent_id: 'coder', retry_of: 'run-c1' }),
    ev.subCompleted(t(9), { delegation_id: d, sub_run_id: 'run-c2', agent_id: 'coder', status: 'completed', output_preview: 'patched the retry loop' }),
    ev.subCompleted(t(10), { delegation_id: d, sub_run_id: 'run-t1', agent_id: 'tester', status: 'completed', output_preview: 'all 214 tests pass' }),
    ev.subCompleted(t(11), { delegation_id: d, sub_run_id: 'run-d1', agent_id: 'deployer', status: 'failed', error: 'agent execution timeout: shared deadline exceeded' }),
    ev.completed(t(12), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 3, succeeded: 2, failed: 1, aggregated_status: 'partial', aggregated_output_preview: 'patched; tests pass' }),
    line('session_end', t(13), {}),
  ];
}

/** sequential stages where the outer delegation's second stage starts a nested fork. */
function sequentialWithNestedFork(): string[] {
  const outer = 'e5d4c3b2-0000-4000-8000-000000000002';
  const inner = 'e5d4c3b2-0000-4000-8000-000000000003';
  return [
    ev.started(t(20), { delegation_id: outer, parent_run_id: 'parent-2', pattern: 'sequential', agent_ids: ['planner', 'builder', 'checker'] }),
    ev.subStarted(t(21), { delegation_id: outer, sub_run_id: 'run-p', parent_run_id: 'parent-2', agent_id: 'planner' }),
    ev.subCompleted(t(22), { delegation_id: outer, sub_run_id: 'run-p', agent_id: 'planner', status: 'completed', output_preview: 'plan: 3 steps' }),
    ev.subStarted(t(23), { delegation_id: outer, sub_run_id: 'run-b', parent_run_id: 'parent-2', agent_id: 'builder' }),
    ev.started(t(24), { delegation_id: inner, parent_run_id: 'run-b', pattern: 'fork', agent_ids: ['worker×2'], agent_count: 1 }),
    ev.subStarted(t(25), { delegation_id: inner, sub_run_id: 'run-w1', parent_run_id: 'run-b', agent_id: 'worker', depth: 2 }),
    ev.subStarted(t(25), { delegation_id: inner, sub_run_id: 'run-w2', parent_run_id: 'run-b', agent_id: 'worker', depth: 2 }),
    ev.subCompleted(t(27), { delegation_id: inner, sub_run_id: 'run-w1', agent_id: 'worker', status: 'completed', output_preview: 'half A' }),
    ev.subCompleted(t(28), { delegation_id: inner, sub_run_id: 'run-w2', agent_id: 'worker', status: 'failed', error: 'tool call rejected' }),
    ev.completed(t(29), { delegation_id: inner, pattern: 'fork', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' }),
    ev.subCompleted(t(30), { delegation_id: outer, sub_run_id: 'run-b', agent_id: 'builder', status: 'completed', output_preview: 'built' }),
    ev.subStarted(t(31), { delegation_id: outer, sub_run_id: 'run-k', parent_run_id: 'parent-2', agent_id: 'checker' }),
  ];
}

/** PascalCase types (the skill's spelling) with the `type` key not first, so the pre-filter's fallback is used. */
function pascalCaseOutOfOrder(): string[] {
  const d = 'a0b1c2d3-0000-4000-8000-000000000004';
  const pascal = (s: string) => {
    const o = JSON.parse(s) as { type: string; ts: string; metadata: unknown };
    const type = o.type.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());
    return JSON.stringify({ ts: o.ts, metadata: o.metadata, type });
  };
  return [
    ev.started(t(40), { delegation_id: d, parent_run_id: 'parent-3', pattern: 'fan_out', agent_ids: ['solo'] }),
    ev.subStarted(t(41), { delegation_id: d, sub_run_id: 'run-s', parent_run_id: 'parent-3', agent_id: 'solo' }),
    ev.subCompleted(t(42), { delegation_id: d, sub_run_id: 'run-s', agent_id: 'solo', status: 'completed', output_preview: 'done' }),
    ev.completed(t(43), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed' }),
  ].map(pascal);
}

/** The starting trees: relative path → journal text, in both layouts. */
export const CORPORA: Record<string, string>[] = [
  { 'astra-sample.jsonl': SAMPLE },
  { [`${LOCAL}/fan-out-retry.jsonl`]: `${fanOutWithRetry().join('\n')}\n` },
  {
    [`${LOCAL}/nested.jsonl`]: `${sequentialWithNestedFork().join('\n')}\n`,
    'pascal.jsonl': `${pascalCaseOutOfOrder().join('\n')}\n`,
  },
  {
    'astra-sample.jsonl': SAMPLE,
    [`${LOCAL}/fan-out-retry.jsonl`]: `${fanOutWithRetry().join('\n')}\n`,
    [`v1/users/b64-dXNyXzhjMmU0MQ/sessions/nested.jsonl`]: `${sequentialWithNestedFork().join('\n')}\n`,
  },
];

// ---------------------------------------------------------------------------------------------
// Random edits. Indices are plain naturals taken modulo the current size, so they shrink well.

export type Edit =
  | { op: 'truncate'; at: number }
  | { op: 'deleteLine'; i: number }
  | { op: 'duplicateLine'; i: number }
  | { op: 'swapLines'; i: number; j: number }
  | { op: 'flipByte'; at: number; mask: number }
  | { op: 'insertBytes'; at: number; bytes: number[] }
  | { op: 'retype'; line: number; key: number; value: unknown }
  | { op: 'dropKey'; line: number; key: number }
  | { op: 'crlf' }
  | { op: 'bom' }
  | { op: 'blankLines'; i: number; text: string };

/** Byte sequences that are not UTF-8: stray continuation, overlong, surrogate half, 0xFF, cut-off lead. */
const INVALID_UTF8 = [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff, 0xfe], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x00]];

/** Values of every JSON type, with the ones that trip naive code weighted in. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(-1, 0, 1e21, Number.MAX_SAFE_INTEGER + 2, 1.5),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', '__proto__', 'constructor', 'toString', '3', 'null', 'NaN', '1e309', '2026-13-45T99:99:99Z', '\u0000', '\u001b[2J'),
  fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null)), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxKeys: 3 }),
);

export const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('deleteLine' as const), i: fc.nat() }),
  fc.record({ op: fc.constant('duplicateLine' as const), i: fc.nat() }),
  fc.record({ op: fc.constant('swapLines' as const), i: fc.nat(), j: fc.nat() }),
  fc.record({ op: fc.constant('flipByte' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ op: fc.constant('insertBytes' as const), at: fc.nat(), bytes: fc.constantFrom(...INVALID_UTF8) }),
  fc.record({ op: fc.constant('retype' as const), line: fc.nat(), key: fc.nat(), value: anyJson }),
  fc.record({ op: fc.constant('retype' as const), line: fc.nat(), key: fc.nat(), value: anyJson }),
  fc.record({ op: fc.constant('dropKey' as const), line: fc.nat(), key: fc.nat() }),
  fc.record({ op: fc.constant('dropKey' as const), line: fc.nat(), key: fc.nat() }),
  fc.constant({ op: 'crlf' as const }),
  fc.constant({ op: 'bom' as const }),
  fc.record({ op: fc.constant('blankLines' as const), i: fc.nat(), text: fc.constantFrom('\n', '\n\n\n', '   \t\n', '\r\n') }),
);

const NL = 0x0a;

function splitLines(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  for (let nl = buf.indexOf(NL); nl !== -1; nl = buf.indexOf(NL, pos)) {
    out.push(buf.subarray(pos, nl));
    pos = nl + 1;
  }
  out.push(buf.subarray(pos)); // '' when the file ends with a newline
  return out;
}

const joinLines = (lines: Buffer[]): Buffer => Buffer.concat(lines.flatMap((l, i) => (i === 0 ? [l] : [Buffer.from('\n'), l])));

/** Every key path inside a parsed line (object keys and array indices), outermost first. */
function keyPaths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      keyPaths((v as Record<string, unknown>)[k], p, out);
    }
  }
  return out;
}

/** Edits one parsed line at a key path; lines that are not JSON objects are left alone. */
function editJsonLine(lines: Buffer[], lineIndex: number, keyIndex: number, change: (parent: Record<string, unknown> | unknown[], key: string | number) => void): Buffer[] {
  const objectLines = lines.map((l, i) => [l, i] as const).filter(([l]) => l[0] === 0x7b);
  if (objectLines.length === 0) return lines;
  // Prefer delegation lines: that is where a changed value can reach the model and the checks.
  const delegationLines = objectLines.filter(([l]) => l.includes('elegation') || l.includes('ync_marker'));
  const pool = delegationLines.length > 0 && lineIndex % 4 !== 0 ? delegationLines : objectLines;
  const [text, at] = pool[lineIndex % pool.length];
  let value: unknown;
  try {
    value = JSON.parse(text.toString('utf8'));
  } catch {
    return lines;
  }
  const paths = keyPaths(value);
  if (paths.length === 0) return lines;
  const p = paths[keyIndex % paths.length];
  let parent = value as Record<string, unknown>;
  for (const k of p.slice(0, -1)) parent = parent[k as string] as Record<string, unknown>;
  change(parent, p[p.length - 1]);
  const copy = [...lines];
  copy[at] = Buffer.from(JSON.stringify(value));
  return copy;
}

/** Applies one edit to a file's bytes. */
export function applyEdit(buf: Buffer, e: Edit): Buffer {
  const lines = splitLines(buf);
  const n = lines.length;
  switch (e.op) {
    case 'truncate':
      return buf.subarray(0, buf.length === 0 ? 0 : e.at % buf.length);
    case 'deleteLine':
      return joinLines(lines.filter((_, i) => i !== e.i % n));
    case 'duplicateLine': {
      const i = e.i % n;
      return joinLines([...lines.slice(0, i + 1), lines[i], ...lines.slice(i + 1)]);
    }
    case 'swapLines': {
      const copy = [...lines];
      const [i, j] = [e.i % n, e.j % n];
      [copy[i], copy[j]] = [copy[j], copy[i]];
      return joinLines(copy);
    }
    case 'flipByte': {
      if (buf.length === 0) return buf;
      const copy = Buffer.from(buf);
      copy[e.at % copy.length] ^= e.mask;
      return copy;
    }
    case 'insertBytes': {
      const at = buf.length === 0 ? 0 : e.at % buf.length;
      return Buffer.concat([buf.subarray(0, at), Buffer.from(e.bytes), buf.subarray(at)]);
    }
    case 'retype':
      return joinLines(editJsonLine(lines, e.line, e.key, (parent, key) => ((parent as Record<string, unknown>)[key as string] = e.value)));
    case 'dropKey':
      return joinLines(
        editJsonLine(lines, e.line, e.key, (parent, key) => {
          if (Array.isArray(parent)) parent.splice(key as number, 1);
          else delete parent[key as string];
        }),
      );
    case 'crlf':
      return Buffer.from(buf.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
    case 'bom':
      return buf[0] === 0xef ? buf : Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
    case 'blankLines': {
      const i = e.i % n;
      return joinLines([...lines.slice(0, i), Buffer.from(e.text.replace(/\n$/, '')), ...lines.slice(i)]);
    }
  }
}

/** One generated tree: a corpus, edits per file, and which files end up gzipped. */
export interface Scenario {
  corpus: number;
  edits: { file: number; edit: Edit }[];
  /** Gzip this file (index) after editing, or corrupt its gzip bytes (the archive-specific failures). */
  gzip: { file: number; corruptAt: number | null } | null;
}

export const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  corpus: fc.nat({ max: CORPORA.length - 1 }),
  edits: fc.array(fc.record({ file: fc.nat(), edit: editArb }), { minLength: 1, maxLength: 6 }),
  gzip: fc.option(fc.record({ file: fc.nat(), corruptAt: fc.option(fc.nat(), { freq: 2 }) }), { freq: 3 }),
});

/** Writes a scenario's tree; returns each file's edited bytes (before any gzip) and the plain ones. */
export function materialize(sc: Scenario, root: string): { edited: Map<string, Buffer>; plain: Map<string, Buffer> } {
  const corpus = CORPORA[sc.corpus];
  const names = Object.keys(corpus);
  const bytes = new Map(names.map((n) => [n, Buffer.from(corpus[n])]));
  for (const { file, edit } of sc.edits) {
    const name = names[file % names.length];
    bytes.set(name, applyEdit(bytes.get(name)!, edit));
  }
  const out: Record<string, Buffer> = {};
  const plain = new Map<string, Buffer>();
  names.forEach((name, i) => {
    const b = bytes.get(name)!;
    if (sc.gzip && sc.gzip.file % names.length === i) {
      const gz = Buffer.from(gzipSync(b));
      if (sc.gzip.corruptAt !== null) gz[10 + (sc.gzip.corruptAt % Math.max(1, gz.length - 10))] ^= 0x5a;
      out[`${name}.gz`] = gz;
    } else {
      out[name] = b;
      plain.set(name, b);
    }
  });
  writeTree(root, out);
  return { edited: bytes, plain };
}

/** Lines a streaming reader must see in these bytes: one per newline, plus an unterminated tail. */
export function expectedLineCount(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(NL); i !== -1; i = buf.indexOf(NL, i + 1)) n++;
  return n + (buf.length > 0 && buf[buf.length - 1] !== NL ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------
// What a healthy run looks like.

const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

/**
 * Broken data never makes the CLI fail: exit 0 or 1 (2 is for usage and input errors), no
 * internal error, no stack trace, at most short sentences on stderr.
 */
export function expectHealthy(r: CliResult, label: string): void {
  const context = `${label}\nexit ${r.code}\nstderr: ${r.stderr.slice(0, 2000)}`;
  expect(r.stderr, context).not.toMatch(STACK_FRAME);
  expect(r.stderr, context).not.toMatch(/internal error|TypeError|RangeError|ReferenceError|SyntaxError/);
  expect([0, 1], context).toContain(r.code);
}

/** The scan statistics of a `--format json` run (the document's `stats`). */
export type JsonStats = ScanStats;

/** Runs the real binary with a deadline, so a hang fails the test instead of stalling the suite. */
export function runBinWithin(args: string[], ms: number, opts: { cwd?: string; env?: NodeJS.ProcessEnv; uid?: number } = {}) {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npx tsc -p .` (npm test builds first)');
  return runBin(args, { ...opts, timeoutMs: ms });
}
