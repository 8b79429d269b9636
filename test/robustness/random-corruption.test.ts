/**
 * Property-based corruption: valid journals, randomly damaged the way crashing writers and bad
 * disks damage them, must still give a report. 200 seeded cases in all (FUZZ_SEED / FUZZ_RUNS to
 * explore further); a failure prints the seed and the shrunk case to replay.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATTERS } from '../../src/format/index.js';
import { runMain, type CliResult } from '../helpers/cli.js';
import { CORPORA, expectedLineCount, expectHealthy, FUZZ_SEED, fuzzRuns, materialize, removeTempDirs, runBinWithin, scenarioArb, tempDir, type JsonStats, type Scenario } from './support.js';

afterAll(removeTempDirs);

/** Exploration runs (FUZZ_RUNS) may take longer than CI's bounded 200 cases. */
const TIMEOUT = process.env.FUZZ_RUNS ? 3_600_000 : 120_000; // generous: CI shares 2 cores with the other suites

interface Doc {
  stats: JsonStats;
  delegations: { startedTs: string | null; files: string[]; timeline: { file: string; line: number }[] }[];
}

const base = tempDir('corrupt');
let runNo = 0;

/** Runs a property with the suite's seed; a failure names the seed and how to replay it. */
async function check<T>(name: string, arb: fc.Arbitrary<T>, runs: number, body: (v: T) => Promise<void>): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arb, body), { seed: FUZZ_SEED, numRuns: fuzzRuns(runs) });
  } catch (err) {
    const cause = (err as Error).cause as Error | undefined;
    throw new Error(`${name}: fuzz failure with seed ${FUZZ_SEED} (replay: FUZZ_SEED=${FUZZ_SEED} npx vitest run test/robustness/random-corruption.test.ts)\n${(err as Error).message}\n${cause?.message ?? ''}`);
  }
}

/** A fresh tree for one case, removed afterwards (hundreds of cases would otherwise pile up). */
async function withTree<T>(sc: Scenario, body: (root: string, files: ReturnType<typeof materialize>) => Promise<T>): Promise<T> {
  const root = path.join(base, `case-${++runNo}`);
  const files = materialize(sc, root);
  try {
    return await body(root, files);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function parseDoc(r: CliResult, label: string): Doc {
  try {
    return JSON.parse(r.stdout) as Doc;
  } catch {
    throw new Error(`${label}: --format json did not print JSON:\n${r.stdout.slice(0, 500)}`);
  }
}

/** What the JSON stats must say about the tree that was written. */
function expectConsistentStats(doc: Doc, sc: Scenario, root: string, edited: Map<string, Buffer>, label: string): void {
  const s = doc.stats;
  const fileCount = Object.keys(CORPORA[sc.corpus]).length;
  expect(s.files, label).toBe(fileCount);
  for (const v of Object.values(s)) expect(Number.isInteger(v) && v >= 0, `${label}: ${JSON.stringify(s)}`).toBe(true);
  expect(s.events, label).toBeLessThanOrEqual(s.candidateLines);
  expect(s.malformedLines + s.missingFieldLines, label).toBeLessThanOrEqual(s.lines);
  expect(s.partialLines, label).toBeLessThanOrEqual(fileCount);
  if (!sc.gzip || sc.gzip.corruptAt === null) {
    // Every byte is readable: no line may go missing, and nothing is an unreadable file.
    let expected = 0;
    for (const b of edited.values()) expected += expectedLineCount(b);
    expect(s.lines, label).toBe(expected);
    expect(s.unreadableFiles, label).toBe(0);
  }
  // Every event in a timeline points at a real line of a real file.
  for (const d of doc.delegations) {
    for (const e of d.timeline) {
      expect(e.line, label).toBeGreaterThanOrEqual(1);
      expect(e.line, label).toBeLessThanOrEqual(s.lines);
      expect(path.resolve(root, e.file).startsWith(root), `${label}: ${e.file}`).toBe(true);
    }
  }
}

/** Other invocations over the same damaged tree; each must be as healthy as the JSON one. */
const otherInvocations = (): string[][] => [
  ...Object.keys(FORMATTERS).map((f) => ['--all', '--format', f]),
  ['list'],
  ['list', '--events'],
  [], // the default target, `last`
];

describe('random corruption of valid journals', () => {
  it('never crashes, never exits 2, and keeps consistent counts (in-process, 145 cases)', async () => {
    const invocations = otherInvocations();
    await check('in-process', fc.tuple(scenarioArb, fc.nat()), 145, async ([sc, pick]) =>
      withTree(sc, async (root, { edited }) => {
        const label = `scenario ${JSON.stringify(sc)}`;
        const r = await runMain(['--sessions', root, '--all', '--format', 'json']);
        expectHealthy(r, label);
        const doc = parseDoc(r, label);
        expectConsistentStats(doc, sc, root, edited, label);

        const args = invocations[pick % invocations.length];
        const other = await runMain(['--sessions', root, ...args]);
        const otherLabel = `${label}\nargs ${JSON.stringify(args)}`;
        if (args.length === 0 && !doc.delegations.some((d) => d.startedTs !== null)) {
          // Asking for the last delegation of a tree that has none is the one input error here.
          expect(other.code, otherLabel).toBe(2);
          expect(other.stderr, otherLabel).toMatch(/^trace-delegation: no delegation_started event found in \d+ journal files? under .*\n$/);
        } else {
          expectHealthy(other, otherLabel);
        }
      }),
    );
  }, TIMEOUT);

  it('counts every malformed line: k garbage lines add exactly k, padded objects none (in-process, 50 cases)', async () => {
    // Each inserted line and how many malformed lines it adds: garbage counts, a padded object does not.
    const garbage: [(n: string) => string, number][] = [
      [(n) => `{"type":"delegation_started","ts":"2026-03-10T10:00:00Z","metadata":{"delegation_id":"${n}`, 1], // cut short by a crash
      [(n) => `{"type":"turn","ts":"2026-03-10T10:00:00Z","n":"${n}"`, 1], // cut short, not a delegation event
      [(n) => `garbage ${n} \u00ff`, 1],
      [(n) => `"delegation ${n}"`, 1], // valid JSON, not an object
      [(n) => `[{"type":"delegation_completed","n":"${n}"}]`, 1],
      [(n) => `  {"type":"turn","ts":"2026-03-10T10:00:00Z","n":"${n}"}\t`, 0], // odd padding, still an object
    ];
    const insertions = fc.array(fc.record({ file: fc.nat(), at: fc.nat(), kind: fc.nat({ max: garbage.length - 1 }) }), { minLength: 1, maxLength: 5 });
    const noGzip = scenarioArb.map((sc) => ({ ...sc, gzip: null }));
    await check('counting', fc.tuple(noGzip, insertions), 50, async ([sc, inserts]) =>
      withTree(sc, async (root, { plain }) => {
        const label = `scenario ${JSON.stringify(sc)} inserts ${JSON.stringify(inserts)}`;
        const before = parseDoc(await runMain(['--sessions', root, '--all', '--format', 'json']), label).stats;
        const names = [...plain.keys()];
        const edited = new Map(plain);
        let k = 0;
        let malformed = 0;
        for (const ins of inserts) {
          const name = names[ins.file % names.length];
          const buf = edited.get(name)!;
          // Line starts only (after a newline, or byte 0 unless a BOM sits there), so no line is split.
          const starts = [...buf.entries()].filter(([, b]) => b === 0x0a).map(([i]) => i + 1);
          if (buf[0] !== 0xef) starts.unshift(0);
          if (starts.length === 0) continue;
          const at = starts[ins.at % starts.length];
          const [make, counts] = garbage[ins.kind];
          const text = Buffer.from(`${make(`nonce-${k}-${ins.at}`)}\n`, 'latin1');
          edited.set(name, Buffer.concat([buf.subarray(0, at), text, buf.subarray(at)]));
          k++;
          malformed += counts;
        }
        for (const [name, buf] of edited) writeFileSync(path.join(root, name), buf);
        const r = await runMain(['--sessions', root, '--all', '--format', 'json']);
        expectHealthy(r, label);
        const after = parseDoc(r, label).stats;
        expect(after.malformedLines, label).toBe(before.malformedLines + malformed);
        expect(after.lines, label).toBe(before.lines + k);
        expect(after.events, label).toBe(before.events);
      }),
    );
  }, TIMEOUT);

  it('the real binary behaves the same on damaged trees (5 cases)', async () => {
    await check('binary', scenarioArb, 5, async (sc) =>
      withTree(sc, async (root, { edited }) => {
        const label = `scenario ${JSON.stringify(sc)}`;
        const r = await runBinWithin(['--sessions', root, '--all', '--format', 'json'], 20_000);
        expect(r.timedOut, label).toBe(false);
        expectHealthy(r, label);
        expectConsistentStats(parseDoc(r, label), sc, root, edited, label);
      }),
    );
  }, TIMEOUT);
});
