// The package's exported types against docs/json.md and the CLI's JSON: every type the page names
// (but the `list` rows, which no library function returns) can be imported from 'trace-delegation',
// and the documents the CLI prints on the fixture trees type-check as a TraceReport, their NDJSON
// lines as DelegationReports, with no key missing or extra (object literals are checked exactly).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FIXED_NOW, FIXTURES, ROOT, runMain } from '../helpers/cli.js';
import { expectTypeChecks } from '../helpers/typecheck.js';

const LIST_ONLY = new Set(['ListReport', 'ListRow']);

it('docs/json.md: every type it names is exported, and the CLI\'s JSON type-checks against them', async () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'json.md'), 'utf8');
  const named = [...new Set([...doc.matchAll(/^#{2,3} .*?`([A-Z]\w*)`/gm)].map((m) => m[1]))].filter((n) => !LIST_ONLY.has(n));
  expect(named).toEqual(expect.arrayContaining(['TraceReport', 'DelegationReport', 'ChildReport', 'AttemptReport', 'Marker', 'Location', 'TimelineEntry', 'Finding', 'ScanStats']));
  const lines = [`import type { ${named.join(', ')} } from 'trace-delegation';`, `export type Named = [${named.join(', ')}];`];
  for (const [i, tree] of ['sessions', 'join', 'hostile', 'formats'].entries()) {
    const json = await runMain(['--sessions', path.join(FIXTURES, tree), '--all', '--format', 'json', '--now', FIXED_NOW]);
    expect(json.stderr, tree).toBe('');
    lines.push(`export const report${i}: TraceReport = ${json.stdout};`);
    const ndjson = await runMain(['--sessions', path.join(FIXTURES, tree), '--all', '--format', 'ndjson', '--now', FIXED_NOW]);
    const first = ndjson.stdout.split('\n')[0];
    expect(first, tree).toMatch(/^\{/);
    lines.push(`export const line${i}: DelegationReport = ${first};`);
  }
  // target.kind is the documented union, not any string.
  lines.push("// @ts-expect-error: not a kind docs/json.md lists", "export const badKind: TraceReport['target'] = { query: 'x', kind: 'everything' };");
  expectTypeChecks({ 'reports.mts': `${lines.join('\n')}\n` });
}, 120_000);
