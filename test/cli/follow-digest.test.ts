// What follow mode's report hash ignores (a reprint only for news) and what it does not.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportDigest } from '../../src/cli/follow-digest.js';
import type { TraceReport } from '../../src/report/types.js';
import { BIN, FIXTURES } from '../helpers/cli.js';

/** A report with a timeline, markers, attempts' and findings' evidence, and its journal's Limits line. */
let json: string | undefined;
function report(): TraceReport {
  json ??= spawnSync(process.execPath, [BIN, '--sessions', path.join(FIXTURES, 'formats', 'nested-retry.jsonl'), '--all', '--format', 'json', '--fail-on', 'none'], { encoding: 'utf8' }).stdout;
  const doc = JSON.parse(json) as TraceReport;
  const d = doc.delegations[0];
  d.limits.push(`${d.files[0]}: the last line has no trailing newline; it may still be being written.`);
  return { ...doc, delegations: [d] };
}

/** Every journal location moved: another file name, other line numbers. */
function moved(r: TraceReport): TraceReport {
  const text = JSON.stringify(r)
    .replaceAll('nested-retry.jsonl', 'elsewhere/nested-retry.jsonl.gz')
    .replace(/"line":(\d+)/g, (_, n: string) => `"line":${Number(n) + 7}`);
  const out = JSON.parse(text) as TraceReport;
  out.delegations[0].limits = out.delegations[0].limits.filter((l) => !l.includes('trailing newline')); // the archive reads whole
  return out;
}

describe('reportDigest', () => {
  it('ignores where the lines are, and how its journals were read', () => {
    const r = report();
    const d = r.delegations[0];
    expect(d.timeline.length).toBeGreaterThan(0);
    expect(d.children.some((c) => c.attempts.some((a) => a.markers.length > 0 && a.evidence.length > 0))).toBe(true);
    expect(d.findings.some((f) => f.evidence.length > 0)).toBe(true);
    expect(reportDigest(moved(r))).toBe(reportDigest(r));
  });

  it('ignores the journal line a Limits line about an event names (an archived or rewritten journal moves it)', () => {
    const r = report();
    const other = moved(r);
    r.delegations[0].limits.push('The delegation_completed at nested-retry.jsonl:6 has succeeded missing or not an integer (the engine writes integers): the checks that compare it with the children could not.');
    other.delegations[0].limits.push('The delegation_completed at elsewhere/nested-retry.jsonl.gz:13 has succeeded missing or not an integer (the engine writes integers): the checks that compare it with the children could not.');
    expect(reportDigest(other)).toBe(reportDigest(r));
  });

  it.each([
    ['a timeline line', (d: TraceReport['delegations'][0]) => (d.timeline[1].text += ' ')],
    ['a status', (d: TraceReport['delegations'][0]) => (d.children[0].finalStatus = 'failed')],
    ['an output preview', (d: TraceReport['delegations'][0]) => (d.children[0].attempts[0].outputPreview = 'other')],
    ['a finding', (d: TraceReport['delegations'][0]) => (d.findings[0].message += ' (1 more)')],
    ['a Limits line not about a journal', (d: TraceReport['delegations'][0]) => d.limits.push('2 events have a timestamp that does not parse; ordered by file position.')],
    ['a marker', (d: TraceReport['delegations'][0]) => d.children.find((c) => c.attempts.some((a) => a.markers.length))!.attempts.find((a) => a.markers.length)!.markers[0].action = 'resume'],
  ])('tells a report apart when %s changes', (_, change) => {
    const r = report();
    const other = report();
    change(other.delegations[0]);
    expect(reportDigest(other)).not.toBe(reportDigest(r));
  });
});
