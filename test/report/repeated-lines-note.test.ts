// A session in both layouts (the legacy copy holds its first 20 lines): the lines the copy repeats
// are read once. The Limits note about them goes to the delegation those lines belong to, not to
// the delegations that merely have other events in the repeating file. Both read paths agree.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { discoverJournals } from '../../src/journal/discover.js';
import { scanJournals } from '../../src/journal/scan.js';
import { MANY_DUPLICATE_IDS } from '../../src/journal/types.js';
import { FIXTURES, runBin } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const SID = '5e0b9c4a-2f7d-4c1e-b8a3-91d6f20c7e45';
const dir = mkdtempSync(path.join(tmpdir(), 'td-repeat-note-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the note on lines another journal repeats', () => {
  it('goes to the delegation whose lines were repeated, on the indexed and the in-memory paths', async () => {
    const sample = readFileSync(path.join(FIXTURES, 'samples', 'astra-sample.jsonl'), 'utf8');
    const v1 = path.join(dir, 'v1', 'users', 'b64-bG9jYWw', 'sessions');
    mkdirSync(v1, { recursive: true });
    writeFileSync(path.join(dir, `${SID}.jsonl`), `${sample.split('\n').slice(0, 20).join('\n')}\n`);
    writeFileSync(path.join(v1, `${SID}.jsonl`), sample);
    for (const indexed of ['1', '0']) {
      const r = await runBin(['--sessions', dir, '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z'], { env: { TRACE_DELEGATION_INDEXED: indexed } });
      const noted = (JSON.parse(r.stdout) as { delegations: { id: string; limits: string[] }[] }).delegations.map((d) => [d.id.slice(0, 8), d.limits.some((l) => / repeat another journal of the same session/.test(l))]);
      expect(noted, `TRACE_DELEGATION_INDEXED=${indexed}`).toEqual([
        ['b7a2e915', true],
        ['e19c4d73', false],
      ]);
    }
  });

  it('goes to every delegation of a large session, past the ids a file keeps (256)', async () => {
    const big = path.join(dir, 'big');
    mkdirSync(big);
    const lines = Array.from({ length: 300 }, (_, i) => ev.started(`2026-03-10T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`, { delegation_id: `d${i}`, parent_run_id: `p${i}`, pattern: 'fan_out', agent_ids: ['a'] }));
    writeFileSync(path.join(big, 's-big.jsonl'), journal(...lines));
    writeFileSync(path.join(big, 's-big.jsonl.gz'), gzipSync(journal(...lines)));
    const r = await runBin(['--sessions', big, '--all', '--format', 'json', '--fail-on', 'none', '--now', '2030-01-01T00:00:00Z']);
    const noted = (JSON.parse(r.stdout) as { delegations: { limits: string[] }[] }).delegations.filter((d) => d.limits.some((l) => / repeat another journal of the same session/.test(l)));
    expect(noted).toHaveLength(300);
    // The repeating file keeps 256 ids, then says there were more.
    const scan = await scanJournals(await discoverJournals([big], big));
    const repeating = scan.files.find((f) => f.duplicateLines > 0)!;
    expect(repeating.duplicateIds).toHaveLength(257);
    expect(repeating.duplicateIds.at(-1)).toBe(MANY_DUPLICATE_IDS);
  });
});
