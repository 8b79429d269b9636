// Every fixture under fixtures/checks has a `<fixture>.expected.json` listing exactly all the
// findings the analyzer produces on it (all checks, grouped by id, delegation and severity).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { CHECK_FIXTURES, NOW_MS, ROOT } from './harness.js';

interface Expected {
  id: string;
  delegation?: string;
  severity?: string;
  count?: number;
}

const expectedFiles = readdirSync(CHECK_FIXTURES, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.expected.json'))
  .sort();

function group(findings: { id: string; delegation: string; severity: string }[]): Expected[] {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const key = JSON.stringify([f.id, f.delegation, f.severity]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => {
    const [id, delegation, severity] = JSON.parse(key) as string[];
    return { id, delegation, severity, count };
  });
}

const order = (a: Expected, b: Expected) => JSON.stringify([a.id, a.delegation, a.severity]).localeCompare(JSON.stringify([b.id, b.delegation, b.severity]));

describe('fixtures/checks expected findings', () => {
  it('has an expectations file beside every fixture', () => {
    expect(expectedFiles.length).toBeGreaterThan(0);
    for (const f of expectedFiles) expect(existsSync(path.join(CHECK_FIXTURES, f.replace(/\.expected\.json$/, ''))), f).toBe(true);
  });

  for (const file of expectedFiles) {
    const target = file.replace(/\.expected\.json$/, '');
    it(`${target} produces exactly its expected findings`, async () => {
      const expected = (JSON.parse(readFileSync(path.join(CHECK_FIXTURES, file), 'utf8')) as Expected[]).map((e) => ({ ...e, count: e.count ?? 1 }));
      const { report } = await analyze({ sessions: [path.join('fixtures', 'checks', target)], all: true, cwd: ROOT, env: {}, checkOptions: { nowMs: NOW_MS } });
      const actual = group(report.delegations.flatMap((d) => d.findings));
      expect(actual.sort(order)).toEqual([...expected].sort(order));
    });
  }
});
