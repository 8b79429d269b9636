import ndjson from 'ndjson';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, runBin, runMain } from '../helpers/cli.js';
import { HOSTILE_TEXT, RETRY_AND_FAILURE, SAMPLE, reportFor, runFormat } from './ci-run.js';

async function parseNdjson(text: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    Readable.from([text]).pipe(ndjson.parse({ strict: true })).on('data', (row: unknown) => rows.push(row)).on('end', resolve).on('error', reject);
  });
  return rows;
}

describe('--format ndjson', () => {
  it('writes one line per delegation, each equal to the delegation in the JSON document', async () => {
    for (const journal of [SAMPLE, RETRY_AND_FAILURE, HOSTILE_TEXT]) {
      const r = await runFormat('ndjson', journal);
      const report = await reportFor(journal);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(report.delegations.length);
      expect(await parseNdjson(r.stdout)).toEqual(report.delegations);
    }
  });

  it('streams every delegation of a sessions tree', async () => {
    const r = await runBin(['--sessions', `${FIXTURES}/sessions`, '--all', '--format', 'ndjson'], { cwd: ROOT });
    const json = JSON.parse((await runMain(['--sessions', `${FIXTURES}/sessions`, '--all', '--format', 'json'], { cwd: ROOT })).stdout);
    const rows = (await parseNdjson(r.stdout)) as { key: string }[];
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.map((d) => d.key)).toEqual(json.delegations.map((d: { key: string }) => d.key));
  });

  it('says on stderr what the scan could not read (a line is a delegation, so a tree it could not read does not pass for an empty one)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'td-ndjson-limits-'));
    try {
      writeFileSync(path.join(dir, 'b.jsonl.gz'), Buffer.from('1f8b0800', 'hex'));
      for (const extra of [[], ['-o', `json=${path.join(dir, 'out.json')}`]]) {
        const r = await runMain(['--sessions', dir, '--all', '--format', 'ndjson', ...extra]);
        expect([r.code, r.stdout], extra.join(' ')).toEqual([0, '']);
        expect(r.stderr, extra.join(' ')).toMatch(/^trace-delegation: scan limit: .*b\.jsonl\.gz: corrupt gzip data \(.*\); not read\.\n$/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
