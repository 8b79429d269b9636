/**
 * An independent reader of the demo tree (fixtures/sessions) for CLI tests: plain fs + zlib +
 * JSON.parse, none of the analyzer's code, so tests compare the CLI against the files themselves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FIXTURES } from './cli.js';

export const DEMO = path.join(FIXTURES, 'sessions');

export interface RawLine {
  /** Path relative to the repository root, with forward slashes (as the CLI prints it from there). */
  file: string;
  line: number;
  value: Record<string, unknown> | null;
}

/** Every journal of the tree: `*.jsonl` and `*.jsonl.gz` at the root and under v1/users/<owner>/sessions. */
export function demoJournalFiles(): string[] {
  const out: string[] = [];
  const isJournal = (f: string) => f.endsWith('.jsonl') || f.endsWith('.jsonl.gz');
  for (const f of readdirSync(DEMO)) if (isJournal(f)) out.push(path.join(DEMO, f));
  const users = path.join(DEMO, 'v1', 'users');
  for (const owner of readdirSync(users)) {
    const dir = path.join(users, owner, 'sessions');
    for (const f of readdirSync(dir)) if (isJournal(f)) out.push(path.join(dir, f));
  }
  return out.sort();
}

export function readLines(file: string): RawLine[] {
  const buf = readFileSync(file);
  const text = (file.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8');
  const rel = path.relative(path.dirname(FIXTURES), file).split(path.sep).join('/');
  return text
    .split('\n')
    .filter((l, i, all) => i < all.length - 1 || l !== '')
    .map((l, i) => {
      let value: Record<string, unknown> | null = null;
      try {
        const v = JSON.parse(l);
        if (v && typeof v === 'object' && !Array.isArray(v)) value = v;
      } catch {
        value = null;
      }
      return { file: rel, line: i + 1, value };
    });
}

export const allDemoLines = (): RawLine[] => demoJournalFiles().flatMap(readLines);

export const meta = (l: RawLine): Record<string, unknown> => (l.value?.metadata ?? {}) as Record<string, unknown>;

/** The delegation_started lines of the tree, as { id, parent, ts, file, line }. */
export function demoStarts() {
  return allDemoLines()
    .filter((l) => l.value?.type === 'delegation_started')
    .map((l) => ({ id: String(meta(l).delegation_id), parent: String(meta(l).parent_run_id), ts: String(l.value!.ts), file: l.file, line: l.line }));
}

/** Nanoseconds since the epoch for the engine's `…+00:00` timestamps (any fraction length). */
export function tsNanos(ts: string): bigint {
  const m = /^(.{19})(?:\.(\d+))?(?:Z|\+00:00)$/.exec(ts);
  if (!m) throw new Error(`unexpected ts ${ts}`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}
