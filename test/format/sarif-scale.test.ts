// SARIF's cost on a large tree: the artifact URI of a location is built once per journal file,
// not once per evidence line (26,000 findings with 60 evidence lines each took seconds of path
// and URL work and garbage), checked by counting calls rather than timing.
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Finding } from '../../src/checks/types.js';
import { formatSarif, locationBuilder } from '../../src/format/sarif.js';
import type { DelegationReport, TraceReport } from '../../src/report/types.js';

const FILES = ['/journals/a b.jsonl', '/journals/c.jsonl', 'rel/d[1].jsonl'];

/** 300 delegations over three files, five findings each with 40 evidence lines. */
function bigReport(): TraceReport {
  const delegations = Array.from({ length: 300 }, (_, k) => {
    const file = FILES[k % FILES.length];
    const findings: Finding[] = Array.from({ length: 5 }, (_, j) => ({
      id: 'missing-completion',
      check: 'missing-completion',
      severity: 'warning',
      symptom: 'lost-result',
      delegation: `d${k}`,
      runs: [`r${k}-${j}`],
      message: `sub-run r${k}-${j} started but never completed`,
      evidence: Array.from({ length: 40 }, (_, e) => ({ file, line: e })),
    })) as Finding[];
    return { id: `d${k}`, findings, timeline: [], files: [file] } as unknown as DelegationReport;
  });
  return { tool: { name: 'trace-delegation', version: '0.0.0' }, delegations } as unknown as TraceReport;
}

afterEach(() => vi.restoreAllMocks());

describe('SARIF on many evidence lines', () => {
  it('builds each journal file\'s artifact location once, however many lines point into it', () => {
    const isAbsolute = vi.spyOn(path, 'isAbsolute');
    const log = JSON.parse(formatSarif(bigReport(), { color: false, failOn: 'error' }));
    const results = log.runs[0].results;
    expect(results).toHaveLength(1500);
    // 1500 findings x 40 lines = 60,000 locations, over 3 files.
    expect(isAbsolute).toHaveBeenCalledTimes(FILES.length);
    // Every location still names its own file and line.
    const third = results[2 * 5];
    expect(third.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'rel/d%5B1%5D.jsonl', uriBaseId: '%SRCROOT%' } });
    expect(third.relatedLocations).toHaveLength(39);
    expect(third.relatedLocations[38]).toEqual({ id: 39, physicalLocation: { artifactLocation: { uri: 'rel/d%5B1%5D.jsonl', uriBaseId: '%SRCROOT%' }, region: { startLine: 39 } }, message: { text: 'evidence' } });
    expect(results[0].relatedLocations[0].physicalLocation.artifactLocation).toEqual({ uri: 'file:///journals/a%20b.jsonl' });
  });

  it('a location builder keeps one artifact per file and leaves line 0 without a region', () => {
    const at = locationBuilder();
    const a = at({ file: '/j/x.jsonl', line: 3 });
    const b = at({ file: '/j/x.jsonl', line: 0 });
    expect(a).toEqual({ artifactLocation: { uri: 'file:///j/x.jsonl' }, region: { startLine: 3 } });
    expect(b).toEqual({ artifactLocation: { uri: 'file:///j/x.jsonl' } });
    expect(b.artifactLocation).toBe(a.artifactLocation);
  });
});
