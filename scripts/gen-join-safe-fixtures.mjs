#!/usr/bin/env node
// Writes the join-contract and SAFE fixtures (fixtures/join, fixtures/safe) in the engine's exact
// line shape. The .jsonl files are committed; rerun this only to change a scenario, then review
// the diff and the X.jsonl.expected.json files (trace-delegation check --update fixtures/join fixtures/safe).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
/** The AllResults separator. */
const SEP = '\n---\n';
// Journal line builders in the engine's exact shape: compact JSON, top-level key order
// type, ts, session_id, metadata; metadata keys alphabetical (serde_json BTreeMap).
function sortKeys(o) { return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]])); }
function L(type, ts, sid, metadata) {
  const o = { type, ts };
  if (sid) o.session_id = sid;
  if (metadata !== undefined) o.metadata = sortKeys(metadata);
  return JSON.stringify(o);
}
/** base ISO (no zone) plus seconds → `…T..:..:..[.fraction]+00:00` with `digits` fraction digits. */
function at(base, sec, digits = 9) {
  const ns = BigInt(Date.parse(base + 'Z')) * 1000000n + BigInt(Math.round(sec * 1e9));
  const ms = Number(ns / 1000000n);
  const d = new Date(ms).toISOString();
  const frac = String(ns % 1000000000n).padStart(9, '0');
  if (digits === 0) return d.slice(0, 19) + '+00:00';
  return `${d.slice(0, 19)}.${frac.slice(0, digits)}+00:00`;
}
const J = (sid) => ({
  sessionStart: (ts, model) => L('session_start', ts, sid, model ? { model } : undefined),
  sessionEnd: (ts) => L('session_end', ts, sid, {}),
  other: (type, ts, m = {}) => L(type, ts, sid, m),
  started: (ts, m) => L('delegation_started', ts, sid, { agent_count: m.agent_ids.length, ...m }),
  sub: (ts, m) => L('delegation_sub_run_started', ts, sid, { depth: 1, retry_of: null, status: 'running', ...m }),
  retry: (ts, m) => L('delegation_retry', ts, sid, m),
  done: (ts, m) => L('delegation_sub_run_completed', ts, sid, { error: null, output_preview: null, ...m }),
  doneGen0: (ts, m) => L('delegation_sub_run_completed', ts, sid, { error: null, ...m }),
  completed: (ts, m) => L('delegation_completed', ts, sid, { aggregated_output_preview: null, ...m }),
  completedGen0: (ts, m) => L('delegation_completed', ts, sid, m),
  marker: (ts, action, run_id) => L('sync_marker', ts, sid, { action, run_id }),
});

/**
 * A whole delegation as journal lines (not sorted): started, one start per child (in list order),
 * each child's completion (when `end` is set) and the join (when `join` is set).
 * child: { agent, run, start (s), end (s)?, status?, error?, preview?, parent?, depth?, retryOf? }
 */
function delegation(j, { id, parent, pattern = 'fan_out', base, agentIds, children, join, startedAt = 0, agentCount }) {
  const lines = [];
  const ids = agentIds ?? children.filter((c) => !c.retryOf).map((c) => c.agent);
  lines.push({ t: startedAt, line: j.started(at(base, startedAt), { delegation_id: id, parent_run_id: parent, pattern, agent_ids: ids, ...(agentCount !== undefined ? { agent_count: agentCount } : {}) }) });
  for (const c of children) {
    if (c.start !== undefined) lines.push({ t: c.start, line: j.sub(at(base, c.start), { delegation_id: id, sub_run_id: c.run, parent_run_id: c.parent ?? parent, agent_id: c.agent, depth: c.depth ?? 1, retry_of: c.retryOf ?? null }) });
    if (c.end !== undefined) {
      const m = { delegation_id: id, sub_run_id: c.run, agent_id: c.agent, status: c.status ?? 'completed', error: c.error ?? null };
      if (c.preview !== undefined) m.output_preview = c.preview;
      lines.push({ t: c.end, line: c.preview === undefined && c.gen0 ? j.doneGen0(at(base, c.end), m) : j.done(at(base, c.end), m) });
    }
  }
  if (join) {
    const ok = join.succeeded;
    const m = { delegation_id: id, pattern, total_sub_runs: join.total, succeeded: ok, failed: join.failed ?? join.total - ok, aggregated_status: join.status };
    if (join.gen0) lines.push({ t: join.t, line: j.completedGen0(at(base, join.t), m) });
    else lines.push({ t: join.t, line: j.completed(at(base, join.t), { ...m, aggregated_output_preview: join.preview ?? null }) });
  }
  return lines;
}
/** Orders {t, line} entries by time (stable), returning the lines. */
const byTime = (...groups) => groups.flat().map((x, i) => [x, i]).sort((a, b) => a[0].t - b[0].t || a[1] - b[1]).map(([x]) => x.line);

// ================= seed 000: the join contract =================
const SID = '8b1f6e2a-3c4d-4e5f-9a0b-1c2d3e4f5a6b';
const j = J(SID);
const Y = '2026-03-09T10:00:00';
const T = '2026-03-10T10:00:00';

/** Yesterday: run r41 delegated the same lookup; every region completed; US wrote 97.5. */
function yesterday() {
  const d = 'deleg-r41';
  return [
    j.sessionStart(at(Y, -0.000001), 'coordinator-v2'),
    j.started(at(Y, 0), { delegation_id: d, parent_run_id: 'r41', pattern: 'fan_out', agent_ids: ['eu', 'us', 'apac'] }),
    j.sub(at(Y, 0.05), { delegation_id: d, sub_run_id: 'r41-eu', parent_run_id: 'r41', agent_id: 'eu' }),
    j.sub(at(Y, 0.06), { delegation_id: d, sub_run_id: 'r41-us', parent_run_id: 'r41', agent_id: 'us' }),
    j.sub(at(Y, 0.07), { delegation_id: d, sub_run_id: 'r41-apac', parent_run_id: 'r41', agent_id: 'apac' }),
    j.done(at(Y, 7), { delegation_id: d, sub_run_id: 'r41-eu', agent_id: 'eu', status: 'completed', output_preview: 'EU price 102' }),
    j.done(at(Y, 9), { delegation_id: d, sub_run_id: 'r41-us', agent_id: 'us', status: 'completed', output_preview: 'US price 97.5' }),
    j.done(at(Y, 15), { delegation_id: d, sub_run_id: 'r41-apac', agent_id: 'apac', status: 'completed', output_preview: 'APAC price 108' }),
    j.completed(at(Y, 15.2), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 3, succeeded: 3, failed: 0, aggregated_status: 'completed', aggregated_output_preview: ['EU price 102', 'US price 97.5', 'APAC price 108'].join(SEP) }),
    j.sessionEnd(at(Y, 30)),
  ];
}

/** Today: run r42 fans the lookup out again. EU 102 at 8 s, US fails at 12 s, APAC 110 at 25 s. */
function today({ join, apacTs = at(T, 25), joinBeforeApac = true }) {
  const d = 'deleg-r42';
  const head = [
    j.sessionStart(at(T, -0.000001), 'coordinator-v2'),
    j.started(at(T, 0), { delegation_id: d, parent_run_id: 'r42', pattern: 'fan_out', agent_ids: ['eu', 'us', 'apac'] }),
    j.sub(at(T, 0.05), { delegation_id: d, sub_run_id: 'r42-eu', parent_run_id: 'r42', agent_id: 'eu' }),
    j.sub(at(T, 0.06), { delegation_id: d, sub_run_id: 'r42-us', parent_run_id: 'r42', agent_id: 'us' }),
    j.sub(at(T, 0.07), { delegation_id: d, sub_run_id: 'r42-apac', parent_run_id: 'r42', agent_id: 'apac' }),
    j.done(at(T, 8), { delegation_id: d, sub_run_id: 'r42-eu', agent_id: 'eu', status: 'completed', output_preview: 'EU price 102' }),
    j.done(at(T, 12), { delegation_id: d, sub_run_id: 'r42-us', agent_id: 'us', status: 'failed', error: 'US price service returned 503 Service Unavailable' }),
  ];
  const apac = j.done(apacTs, { delegation_id: d, sub_run_id: 'r42-apac', agent_id: 'apac', status: 'completed', output_preview: 'APAC price 110' });
  const joinLine = j.completed(join.ts, { delegation_id: d, pattern: 'fan_out', total_sub_runs: 3, ...join.m });
  return [...head, ...(joinBeforeApac ? [joinLine, apac] : [apac, joinLine])];
}

const out = (name, lines) => writeFileSync(`${FIXTURES}join/${name}.jsonl`, lines.join('\n') + '\n');

// The opening run: any artifact in the store, deadline 20 s, quorum 2 → (102 + 97.5) / 2 = 99.75.
out('seed-000-any-artifact', [...yesterday(), ...today({ join: { ts: at(T, 20), m: { succeeded: 2, failed: 1, aggregated_status: 'partial', aggregated_output_preview: ['EU price 102', 'US price 97.5', 'joined price 99.75 (mean of 2 artifacts)'].join(SEP) } } })]);
// Only completed tasks, deadline 20 s, quorum 2: only EU qualifies, the join is held (nothing published).
out('seed-000-only-completed', [...yesterday(), ...today({ join: { ts: at(T, 20), m: { succeeded: 1, failed: 2, aggregated_status: 'unfinished', aggregated_output_preview: null } } })]);
// Any artifact but it must carry run r42; late results published as a follow-up: held at 20 s, 106 once APAC lands.
out('seed-000-run-id-check', [...yesterday(), ...today({ join: { ts: at(T, 25.3), m: { succeeded: 2, failed: 1, aggregated_status: 'partial', aggregated_output_preview: ['EU price 102', 'APAC price 110', 'joined price 106 (mean of 2 artifacts)'].join(SEP) } }, joinBeforeApac: false })]);
// Only completed tasks, deadline moved to 25 s: APAC lands at the deadline itself (same instant, other precision).
out('seed-000-deadline-25s', [...yesterday(), ...today({ apacTs: at(T, 25), join: { ts: at(T, 25, 0), m: { succeeded: 2, failed: 1, aggregated_status: 'partial', aggregated_output_preview: ['EU price 102', 'APAC price 110', 'joined price 106 (mean of 2 artifacts)'].join(SEP) } }, joinBeforeApac: false })]);
// Only completed tasks, quorum 1, late results ignored: EU's 102 is published alone at 20 s; APAC's 110 is discarded.
out('seed-000-quorum-1', [...yesterday(), ...today({ join: { ts: at(T, 20), m: { succeeded: 1, failed: 2, aggregated_status: 'partial', aggregated_output_preview: ['EU price 102', 'joined price 102 (1 artifact)'].join(SEP) } } })]);

// ================= trigger and look-alike fixtures =================

const writeFixture = (dir, name, lines) => writeFileSync(`${FIXTURES}${dir}/${name}.jsonl`, lines.join('\n') + '\n');
const B = '2026-03-12T14:00:00';

// ---------- late-result ----------
{
  const j = J('0b7c2a91-5d3e-4f60-8a1b-9c2d3e4f5a01');
  // Gen C fan_out: mac is still running when the join is made (projected waiting → unfinished); it completes 12.5 s later.
  const d = delegation(j, { id: 'd-build-matrix', parent: 'run-release-7', base: B, children: [
    { agent: 'build-linux', run: 'sr-linux', start: 0.01, end: 41, preview: 'linux build ok (artifact sha 3f2a)' },
    { agent: 'build-mac', run: 'sr-mac', start: 0.02, end: 75, preview: 'mac build ok (artifact sha 9c1d)' },
    { agent: 'build-win', run: 'sr-win', start: 0.03, end: 30, status: 'failed', error: 'cargo build failed: linker error LNK1120' },
  ], join: { t: 62.5, total: 3, succeeded: 1, status: 'unfinished', preview: 'linux build ok (artifact sha 3f2a)' } });
  writeFixture('join', 'late-result', [j.sessionStart(at(B, -0.000001)), ...byTime(d)]);
}
{
  const j = J('0b7c2a91-5d3e-4f60-8a1b-9c2d3e4f5a02');
  // Trap 1: concurrent writers take `ts` before the file lock, so b's completion is written after the
  // join line although its ts is 1 µs earlier. Trap 2: a completion at the very instant of the join,
  // written with more fraction digits (a string comparison would call it later).
  const d1 = delegation(j, { id: 'd-lock-order', parent: 'run-a', base: B, children: [
    { agent: 'alpha', run: 'sr-alpha', start: 0.01, end: 5, preview: 'alpha summary' },
    { agent: 'beta', run: 'sr-beta', start: 0.02 },
  ], join: { t: 9.000002, total: 2, succeeded: 2, status: 'completed', preview: `alpha summary${SEP}beta summary` } });
  const betaDone = j.done(at(B, 9.000001), { delegation_id: 'd-lock-order', sub_run_id: 'sr-beta', agent_id: 'beta', status: 'completed', output_preview: 'beta summary' });
  const d2 = delegation(j, { id: 'd-same-instant', parent: 'run-b', base: B, startedAt: 20, children: [
    { agent: 'gamma', run: 'sr-gamma', start: 20.01 },
  ] });
  const gammaDone = j.done(at(B, 45), { delegation_id: 'd-same-instant', sub_run_id: 'sr-gamma', agent_id: 'gamma', status: 'completed', output_preview: 'gamma summary' });
  const join2 = j.completed(at(B, 45, 0), { delegation_id: 'd-same-instant', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'gamma summary' });
  writeFixture('join', 'late-result-lookalike', [j.sessionStart(at(B, -0.000001)), ...byTime(d1), betaDone, ...byTime(d2), join2, gammaDone]);
}

// ---------- failed-in-aggregate ----------
{
  const j = J('1c8d3b02-6e4f-4071-9b2c-ad3e4f5a6b01');
  // Gen B: the gate rejected coder's first output and a retry replaced it, but the join used the rejected text.
  const rejected = [
    { t: 0, line: j.started(at(B, 0), { delegation_id: 'd-rejected-joined', parent_run_id: 'run-1', pattern: 'fan_out', agent_ids: ['coder', 'reviewer'] }) },
    { t: 0.01, line: j.sub(at(B, 0.01), { delegation_id: 'd-rejected-joined', sub_run_id: 'sr-coder-1', parent_run_id: 'run-1', agent_id: 'coder' }) },
    { t: 0.02, line: j.sub(at(B, 0.02), { delegation_id: 'd-rejected-joined', sub_run_id: 'sr-reviewer', parent_run_id: 'run-1', agent_id: 'reviewer' }) },
    { t: 50, line: j.retry(at(B, 50), { delegation_id: 'd-rejected-joined', original_run_id: 'sr-coder-1', retry_run_id: 'sr-coder-2', agent_id: 'coder', attempt: 2, reason: 'output too short (4 chars, minimum 10)' }) },
    { t: 50.001, line: j.done(at(B, 50.001), { delegation_id: 'd-rejected-joined', sub_run_id: 'sr-coder-1', agent_id: 'coder', status: 'verification_failed', error: 'output too short (4 chars, minimum 10)', output_preview: 'stub' }) },
    { t: 50.002, line: j.sub(at(B, 50.002), { delegation_id: 'd-rejected-joined', sub_run_id: 'sr-coder-2', parent_run_id: 'run-1', agent_id: 'coder', retry_of: 'sr-coder-1' }) },
    { t: 90, line: j.done(at(B, 90), { delegation_id: 'd-rejected-joined', sub_run_id: 'sr-coder-2', agent_id: 'coder', status: 'completed', output_preview: 'Implemented exponential backoff in client.rs' }) },
    { t: 90.001, line: j.done(at(B, 90.001), { delegation_id: 'd-rejected-joined', sub_run_id: 'sr-reviewer', agent_id: 'reviewer', status: 'completed', output_preview: 'LGTM with one nit' }) },
    { t: 90.01, line: j.completed(at(B, 90.01), { delegation_id: 'd-rejected-joined', pattern: 'fan_out', total_sub_runs: 2, succeeded: 2, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `stub${SEP}LGTM with one nit` }) },
  ];
  // A failed child counted as a success (and its totals agree with the claim, not with the children).
  const counted = delegation(j, { id: 'd-failed-counted', parent: 'run-2', base: B, startedAt: 100, children: [
    { agent: 'fetch-eu', run: 'sr-fetch-eu', start: 100.01, end: 104, preview: 'EU rates fetched' },
    { agent: 'fetch-us', run: 'sr-fetch-us', start: 100.02, end: 106, status: 'failed', error: 'HTTP 429 Too Many Requests' },
  ], join: { t: 106.5, total: 2, succeeded: 2, status: 'completed', preview: 'EU rates fetched' } });
  // A long failed preview embedded in a larger aggregate (Gen A LlmGuided format, no separator).
  const longPartial = 'Found 3 candidate papers on retrieval-augmented generation; ranking incomplete';
  const embedded = delegation(j, { id: 'd-partial-embedded', parent: 'run-3', base: B, startedAt: 200, children: [
    { agent: 'researcher', run: 'sr-researcher', start: 200.01, end: 260, status: 'failed', error: 'token budget exhausted', preview: longPartial },
    { agent: 'writer', run: 'sr-writer', start: 200.02, end: 250, preview: 'Drafted the related-work section' },
  ], join: { t: 260.5, total: 2, succeeded: 1, status: 'partial', preview: `Agent 1 (writer):\nDrafted the related-work section\n\nAgent 2 (researcher):\n${longPartial}` } });
  writeFixture('join', 'failed-in-aggregate', [j.sessionStart(at(B, -0.000001)), ...byTime(rejected, counted, embedded)]);
}
{
  const j = J('1c8d3b02-6e4f-4071-9b2c-ad3e4f5a6b02');
  // Trap 1: a failed run's preview that a completed run of the same delegation also produced.
  const same = delegation(j, { id: 'd-same-text', parent: 'run-1', base: B, children: [
    { agent: 'lint-a', run: 'sr-lint-a', start: 0.01, end: 5, status: 'failed', error: 'tool quota exceeded', preview: 'No issues found' },
    { agent: 'lint-b', run: 'sr-lint-b', start: 0.02, end: 6, preview: 'No issues found' },
  ], join: { t: 6.5, total: 2, succeeded: 1, status: 'partial', preview: 'No issues found' } });
  // Trap 2: a short failed preview ("error") inside a longer segment is not the failed run's output.
  const short = delegation(j, { id: 'd-short-preview', parent: 'run-2', base: B, startedAt: 10, children: [
    { agent: 'scanner', run: 'sr-scanner', start: 10.01, end: 12, status: 'failed', error: 'scanner crashed', preview: 'error' },
    { agent: 'auditor', run: 'sr-auditor', start: 10.02, end: 14, preview: 'no error found in 3 files' },
  ], join: { t: 14.5, total: 2, succeeded: 1, status: 'partial', preview: 'no error found in 3 files' } });
  // Trap 3: a nested delegation's failed child; the outer planner relays its partial draft in its own output.
  const outer = delegation(j, { id: 'd-outer', parent: 'run-3', base: B, startedAt: 20, children: [
    { agent: 'planner', run: 'sr-planner', start: 20.01, end: 60, preview: `Section 1 done${SEP}partial draft of section 2` },
  ], join: { t: 60.5, total: 1, succeeded: 1, status: 'completed', preview: `Section 1 done${SEP}partial draft of section 2` } });
  const inner = delegation(j, { id: 'd-inner', parent: 'sr-planner', base: B, startedAt: 21, children: [
    { agent: 'drafter-1', run: 'sr-drafter-1', start: 21.01, end: 40, preview: 'Section 1 done', depth: 2 },
    { agent: 'drafter-2', run: 'sr-drafter-2', start: 21.02, end: 45, status: 'failed', error: 'context window exceeded', preview: 'partial draft of section 2', depth: 2 },
  ], join: { t: 45.5, total: 2, succeeded: 1, status: 'partial', preview: 'Section 1 done' } });
  // Trap 4: a reviewer quotes another delegation's output (40+ characters) in its own output.
  const coded = 'Refactored the retry loop in client.rs to use jittered backoff';
  const quoted = delegation(j, { id: 'd-code', parent: 'run-4', base: B, startedAt: 70, children: [
    { agent: 'coder', run: 'sr-coder', start: 70.01, end: 90, preview: coded },
  ], join: { t: 90.5, total: 1, succeeded: 1, status: 'completed', preview: coded } });
  const review = `Reviewed "${coded}": looks correct, one nit on naming`;
  const quoting = delegation(j, { id: 'd-review', parent: 'run-5', base: B, startedAt: 95, children: [
    { agent: 'reviewer', run: 'sr-reviewer', start: 95.01, end: 110, preview: review },
  ], join: { t: 110.5, total: 1, succeeded: 1, status: 'completed', preview: review } });
  writeFixture('join', 'failed-in-aggregate-lookalike', [j.sessionStart(at(B, -0.000001)), ...byTime(same, short, outer, inner, quoted, quoting)]);
}

// ---------- foreign-parent ----------
{
  const j = J('2d9e4c13-7f50-4182-8c3d-be4f5a6b7c01');
  // us's start names yesterday's run r41 while the delegation belongs to r42.
  const d1 = delegation(j, { id: 'd-price-r42', parent: 'r42', base: B, children: [
    { agent: 'eu', run: 'sr-eu-r42', start: 0.01, end: 8, preview: 'EU price 102' },
    { agent: 'us', run: 'sr-us-r41', start: 0.02, end: 9, preview: 'US price 97.5', parent: 'r41' },
  ], join: { t: 9.5, total: 2, succeeded: 2, status: 'completed', preview: `EU price 102${SEP}US price 97.5` } });
  // One sub_run_id started by two delegations of different parent runs.
  const d2 = delegation(j, { id: 'd-report-a', parent: 'run-a', base: B, startedAt: 20, children: [
    { agent: 'summarizer', run: 'sr-shared-1', start: 20.01, end: 30, preview: 'Summary A' },
  ], join: { t: 30.5, total: 1, succeeded: 1, status: 'completed', preview: 'Summary A' } });
  const d3 = delegation(j, { id: 'd-report-b', parent: 'run-b', base: B, startedAt: 40, children: [
    { agent: 'summarizer', run: 'sr-shared-1', start: 40.01, end: 50, preview: 'Summary B' },
  ], join: { t: 50.5, total: 1, succeeded: 1, status: 'completed', preview: 'Summary B' } });
  writeFixture('join', 'foreign-parent', [j.sessionStart(at(B, -0.000001)), ...byTime(d1, d2, d3)]);
}
{
  const j = J('2d9e4c13-7f50-4182-8c3d-be4f5a6b7c02');
  // Trap 1: a nested delegation, interleaved: its parent_run_id is the outer sub-run, and so are its children's.
  const outer = delegation(j, { id: 'd-research', parent: 'run-root', base: B, children: [
    { agent: 'planner', run: 'sr-planner', start: 0.01, end: 80, preview: 'Plan with 2 sourced findings' },
    { agent: 'critic', run: 'sr-critic', start: 0.02, end: 30, preview: 'No objections' },
  ], join: { t: 80.5, total: 2, succeeded: 2, status: 'completed', preview: `No objections${SEP}Plan with 2 sourced findings` } });
  const inner = delegation(j, { id: 'd-research-sources', parent: 'sr-planner', base: B, startedAt: 5, children: [
    { agent: 'searcher', run: 'sr-searcher', start: 5.01, end: 40, preview: '12 sources found', depth: 2 },
    { agent: 'summarizer', run: 'sr-summarizer', start: 5.02, end: 60, preview: '2 sourced findings', depth: 2 },
  ], join: { t: 60.5, total: 2, succeeded: 2, status: 'completed', preview: `12 sources found${SEP}2 sourced findings` } });
  // Trap 2: a delegation id reused by a client on two days with different parent runs: two delegations.
  const Y = '2026-03-11T14:00:00';
  const reusedY = delegation(j, { id: 'price-lookup', parent: 'r41', base: Y, children: [
    { agent: 'us', run: 'sr-us-r41', start: 0.01, end: 9, preview: 'US price 97.5' },
  ], join: { t: 9.5, total: 1, succeeded: 1, status: 'completed', preview: 'US price 97.5' } });
  const reusedT = delegation(j, { id: 'price-lookup', parent: 'r42', base: B, startedAt: 100, children: [
    { agent: 'us', run: 'sr-us-r42', start: 100.01, end: 108, preview: 'US price 98' },
  ], join: { t: 108.5, total: 1, succeeded: 1, status: 'completed', preview: 'US price 98' } });
  writeFixture('join', 'foreign-parent-lookalike', [j.sessionStart(at(Y, -0.000001)), ...byTime(reusedY), j.sessionEnd(at(Y, 20)), j.sessionStart(at(B, -0.000001)), ...byTime(outer, inner, reusedT)]);
}

// ---------- silent-failure ----------
{
  const j = J('3e0f5d24-8061-4293-9d4e-cf5a6b7c8d01');
  const d = delegation(j, { id: 'd-silent', parent: 'run-1', base: B, children: [
    { agent: 'coder', run: 'sr-coder', start: 0.01, end: 30, error: 'tool crashed: cargo test exited 101', preview: '' },
    { agent: 'tester', run: 'sr-tester', start: 0.02, end: 31, preview: null },
    { agent: 'writer', run: 'sr-writer', start: 0.03, end: 32, preview: '   ' },
    { agent: 'fetcher', run: 'sr-fetcher', start: 0.04, end: 33, preview: 'Could not reach the pricing API; returning cached prices from Monday' },
  ], join: { t: 33.5, total: 4, succeeded: 3, status: 'partial', preview: 'Could not reach the pricing API; returning cached prices from Monday' } });
  writeFixture('safe', 'silent-failure', [j.sessionStart(at(B, -0.000001)), ...byTime(d)]);
}
{
  const j = J('3e0f5d24-8061-4293-9d4e-cf5a6b7c8d02');
  // Trap 1: Gen 0 journals have no output_preview key at all: nothing to judge.
  const gen0 = delegation(j, { id: 'd-gen0', parent: 'run-1', base: B, children: [
    { agent: 'coder', run: 'sr-gen0-coder', start: 0.01, end: 20, gen0: true },
  ], join: { t: 20.5, total: 1, succeeded: 1, status: 'completed', gen0: true } });
  // Trap 2: wording that only looks like a failure report; a loud failure (status failed) is not silent.
  const wording = delegation(j, { id: 'd-wording', parent: 'run-2', base: B, startedAt: 30, children: [
    { agent: 'refactorer', run: 'sr-refactorer', start: 30.01, end: 60, preview: 'Error handling refactored in parser.rs; all tests pass' },
    { agent: 'migrator', run: 'sr-migrator', start: 30.02, end: 61, preview: 'Partition keys updated for 4 tables' },
    { agent: 'deployer', run: 'sr-deployer', start: 30.03, end: 62, status: 'failed', error: 'kubectl apply failed', preview: '' },
  ], join: { t: 62.5, total: 3, succeeded: 2, status: 'partial', preview: `Error handling refactored in parser.rs; all tests pass${SEP}Partition keys updated for 4 tables` } });
  // Trap 3: a retried original with an empty output was replaced by its retry: only the final attempt counts.
  const retried = [
    { t: 100, line: j.started(at(B, 100), { delegation_id: 'd-retried', parent_run_id: 'run-3', pattern: 'fan_out', agent_ids: ['coder'] }) },
    { t: 100.01, line: j.sub(at(B, 100.01), { delegation_id: 'd-retried', sub_run_id: 'sr-coder-1', parent_run_id: 'run-3', agent_id: 'coder' }) },
    { t: 130, line: j.retry(at(B, 130), { delegation_id: 'd-retried', original_run_id: 'sr-coder-1', retry_run_id: 'sr-coder-2', agent_id: 'coder', attempt: 2, reason: 'output too short (0 chars, minimum 10)' }) },
    { t: 130.001, line: j.done(at(B, 130.001), { delegation_id: 'd-retried', sub_run_id: 'sr-coder-1', agent_id: 'coder', status: 'verification_failed', error: 'output too short (0 chars, minimum 10)', output_preview: '' }) },
    { t: 130.002, line: j.sub(at(B, 130.002), { delegation_id: 'd-retried', sub_run_id: 'sr-coder-2', parent_run_id: 'run-3', agent_id: 'coder', retry_of: 'sr-coder-1' }) },
    { t: 170, line: j.done(at(B, 170), { delegation_id: 'd-retried', sub_run_id: 'sr-coder-2', agent_id: 'coder', status: 'completed', output_preview: 'Implemented the parser fix with tests' }) },
    { t: 170.01, line: j.completed(at(B, 170.01), { delegation_id: 'd-retried', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'Implemented the parser fix with tests' }) },
  ];
  writeFixture('safe', 'silent-failure-lookalike', [j.sessionStart(at(B, -0.000001)), ...byTime(gen0, wording, retried)]);
}

// ---------- timeout-as-failure ----------
{
  const j = J('4f106e35-9172-43a4-8e5f-d06b7c8d9e01');
  const fork = delegation(j, { id: 'd-fork-deadline', parent: 'run-1', pattern: 'fork', base: B, agentIds: ['worker×3'], agentCount: 1, children: [
    { agent: 'worker', run: 'sr-worker-1', start: 0.01, end: 40, preview: 'task 1 done' },
    { agent: 'worker', run: 'sr-worker-2', start: 0.02, end: 45, preview: 'task 2 done' },
    { agent: 'worker', run: 'sr-worker-3', start: 0.03, end: 120, status: 'failed', error: 'fork child timeout: shared deadline exceeded' },
  ], join: { t: 120.5, total: 3, succeeded: 2, status: 'partial' } });
  const seq = delegation(j, { id: 'd-stage-deadline', parent: 'run-2', pattern: 'sequential', base: B, startedAt: 200, agentIds: ['checker', 'fallback-checker'], children: [
    { agent: 'checker', run: 'sr-checker', start: 200.01, end: 260, status: 'failed', error: 'agent checker stage timeout: deadline exceeded' },
    { agent: 'fallback-checker', run: 'sr-fallback', start: 260.01, end: 280, preview: 'All 41 links resolve' },
  ], join: { t: 280.5, total: 2, succeeded: 1, status: 'partial' } });
  writeFixture('safe', 'timeout-as-failure', [j.sessionStart(at(B, -0.000001)), ...byTime(fork, seq)]);
}
{
  const j = J('4f106e35-9172-43a4-8e5f-d06b7c8d9e02');
  // Trap 1: an admission timeout: the agent never ran, so the outcome is a clean failure.
  const admission = delegation(j, { id: 'd-admission', parent: 'run-1', pattern: 'sequential', base: B, agentIds: ['writer', 'backup-writer'], children: [
    { agent: 'writer', run: 'sr-writer', start: 0.01, end: 30, status: 'failed', error: 'sequential model admission timed out' },
    { agent: 'backup-writer', run: 'sr-backup-writer', start: 30.01, end: 70, preview: 'Release notes drafted' },
  ], join: { t: 70.5, total: 2, succeeded: 1, status: 'partial' } });
  // Trap 2: "runtime output" contains the letters "time out"; a cancellation is not a timeout.
  const words = delegation(j, { id: 'd-not-timeouts', parent: 'run-2', base: B, startedAt: 100, children: [
    { agent: 'parser', run: 'sr-parser', start: 100.01, end: 105, status: 'failed', error: 'runtime output could not be parsed as JSON' },
    { agent: 'indexer', run: 'sr-indexer', start: 100.02, end: 106, status: 'cancelled', error: 'cancelled by parent run' },
    { agent: 'ranker', run: 'sr-ranker', start: 100.03, end: 107, preview: 'Ranked 20 results' },
  ], join: { t: 107.5, total: 3, succeeded: 1, status: 'partial', preview: 'Ranked 20 results' } });
  writeFixture('safe', 'timeout-as-failure-lookalike', [j.sessionStart(at(B, -0.000001)), ...byTime(admission, words)]);
}

// ---------- retry-after-unknown ----------
{
  const j = J('50217f46-a283-44b5-9f60-e17c8d9eaf01');
  // The parent run re-delegates to the deployer 3 s after its first deployment timed out.
  const first = delegation(j, { id: 'd-deploy-1', parent: 'run-release', base: B, children: [
    { agent: 'deployer', run: 'sr-deploy-1', start: 0.01, end: 300, status: 'failed', error: 'agent execution timeout: shared deadline exceeded' },
  ], join: { t: 300.1, total: 1, succeeded: 0, status: 'failed' } });
  const second = delegation(j, { id: 'd-deploy-2', parent: 'run-release', base: B, startedAt: 303, children: [
    { agent: 'deployer', run: 'sr-deploy-2', start: 303.01, end: 360, preview: 'Deployed build 418 to production' },
  ], join: { t: 360.1, total: 1, succeeded: 1, status: 'completed', preview: 'Deployed build 418 to production' } });
  // A pipeline whose third stage is the same agent as its timed-out first stage.
  const pipe = delegation(j, { id: 'd-migrate', parent: 'run-db', pattern: 'pipeline', base: B, startedAt: 400, agentIds: ['migrator', 'checker', 'migrator'], children: [
    { agent: 'migrator', run: 'sr-migrate-1', start: 400.01, end: 520, status: 'failed', error: 'agent migrator exceeded per-stage timeout of 120s' },
    { agent: 'checker', run: 'sr-check', start: 520.01, end: 530, preview: 'schema at version 41 of 42' },
    { agent: 'migrator', run: 'sr-migrate-2', start: 530.01, end: 600, preview: 'Applied migration 42' },
  ], join: { t: 600.1, total: 3, succeeded: 2, status: 'partial' } });
  writeFixture('safe', 'retry-after-unknown', [j.sessionStart(at(B, -0.000001)), ...byTime(first, second, pipe)]);
}
{
  const j = J('50217f46-a283-44b5-9f60-e17c8d9eaf03');
  // A delegation whose mailer run never settled (the engine returned an error: no delegation_completed),
  // then the same parent run delegates to the mailer again.
  const lost = delegation(j, { id: 'd-notify-1', parent: 'run-notify', base: B, children: [
    { agent: 'mailer', run: 'sr-mail-1', start: 0.01 },
  ] });
  const again = delegation(j, { id: 'd-notify-2', parent: 'run-notify', base: B, startedAt: 90, children: [
    { agent: 'mailer', run: 'sr-mail-2', start: 90.01, end: 95, preview: 'Sent 1200 notification emails' },
  ], join: { t: 95.1, total: 1, succeeded: 1, status: 'completed', preview: 'Sent 1200 notification emails' } });
  writeFixture('safe', 'retry-after-unknown-never-settled', [j.sessionStart(at(B, -0.000001)), ...byTime(lost), j.other('turn_error', at(B, 60), { error: 'delegation engine error: durable reconciliation failed' }), ...byTime(again)]);
}
{
  const j = J('50217f46-a283-44b5-9f60-e17c8d9eaf02');
  // Trap 1: fallback to a different agent after a timeout (the sample's sequential pattern).
  const fallback = delegation(j, { id: 'd-fallback', parent: 'run-1', pattern: 'sequential', base: B, agentIds: ['quick-fixer', 'deep-fixer'], children: [
    { agent: 'quick-fixer', run: 'sr-quick', start: 0.01, end: 120, status: 'failed', error: 'agent quick-fixer exceeded per-stage timeout of 120s' },
    { agent: 'deep-fixer', run: 'sr-deep', start: 120.01, end: 170, preview: 'Fixed the flaky test' },
  ], join: { t: 170.1, total: 2, succeeded: 1, status: 'partial' } });
  // Trap 2: an admission timeout (never ran), then the same parent delegates to the same agent.
  const admitted = delegation(j, { id: 'd-admission-1', parent: 'run-2', pattern: 'sequential', base: B, startedAt: 200, agentIds: ['writer'], children: [
    { agent: 'writer', run: 'sr-writer-1', start: 200.01, end: 230, status: 'failed', error: 'sequential model admission timed out' },
  ], join: { t: 230.1, total: 1, succeeded: 0, status: 'failed' } });
  const admitted2 = delegation(j, { id: 'd-admission-2', parent: 'run-2', pattern: 'sequential', base: B, startedAt: 235, agentIds: ['writer'], children: [
    { agent: 'writer', run: 'sr-writer-2', start: 235.01, end: 260, preview: 'Release notes drafted' },
  ], join: { t: 260.1, total: 1, succeeded: 1, status: 'completed' } });
  // Trap 3: a clean failure (not a timeout), then the same agent again.
  const clean = delegation(j, { id: 'd-clean-1', parent: 'run-3', base: B, startedAt: 300, children: [
    { agent: 'uploader', run: 'sr-upload-1', start: 300.01, end: 302, status: 'failed', error: 'permission denied: bucket releases' },
  ], join: { t: 302.1, total: 1, succeeded: 0, status: 'failed' } });
  const clean2 = delegation(j, { id: 'd-clean-2', parent: 'run-3', base: B, startedAt: 310, children: [
    { agent: 'uploader', run: 'sr-upload-2', start: 310.01, end: 315, preview: 'Uploaded 3 artifacts' },
  ], join: { t: 315.1, total: 1, succeeded: 1, status: 'completed', preview: 'Uploaded 3 artifacts' } });
  // Trap 4: fork children share one deadline; they all started before any timeout was known.
  const fork = delegation(j, { id: 'd-fork', parent: 'run-4', pattern: 'fork', base: B, startedAt: 400, agentIds: ['worker×2'], agentCount: 1, children: [
    { agent: 'worker', run: 'sr-fork-1', start: 400.01, end: 520, status: 'failed', error: 'fork child timeout: shared deadline exceeded' },
    { agent: 'worker', run: 'sr-fork-2', start: 400.02, end: 450, preview: 'task 2 done' },
  ], join: { t: 520.1, total: 2, succeeded: 1, status: 'partial' } });
  writeFixture('safe', 'retry-after-unknown-lookalike', [j.sessionStart(at(B, -0.000001)), ...byTime(fallback, admitted, admitted2, clean, clean2, fork)]);
}

// ---------- fanout-budget ----------
{
  const j = J('61328057-b394-45c6-8a71-f28d9eafb001');
  const shards = Array.from({ length: 10 }, (_, i) => ({ agent: `shard-${i}`, run: `sr-shard-${i}`, start: 0.01 * (i + 1), end: 30 + i, preview: `shard ${i} indexed` }));
  const d = delegation(j, { id: 'd-reindex', parent: 'run-1', base: B, children: shards, join: { t: 40, total: 10, succeeded: 10, status: 'completed', preview: shards.map((s) => s.preview).join(SEP) } });
  writeFixture('safe', 'fanout-budget', [j.sessionStart(at(B, -0.000001)), ...byTime(d)]);
}
{
  const j = J('61328057-b394-45c6-8a71-f28d9eafb002');
  const regions = ['a', 'b', 'c', 'd'];
  const root = delegation(j, { id: 'd-crawl', parent: 'run-root', base: B, children: regions.map((r, k) => ({ agent: `region-${r}`, run: `sr-region-${r}`, start: 0.01 * (k + 1), end: 100 + k, preview: `region ${r} crawled` })), join: { t: 110, total: 4, succeeded: 4, status: 'completed', preview: regions.map((r) => `region ${r} crawled`).join(SEP) } });
  const nested = regions.map((r, k) => {
    const workers = Array.from({ length: 8 }, (_, i) => ({ agent: `crawler-${i + 1}`, run: `sr-${r}-crawler-${i + 1}`, start: 1 + k + 0.01 * (i + 1), end: 60 + k + i, preview: `${r}${i + 1}: 50 pages`, depth: 2 }));
    return delegation(j, { id: `d-crawl-${r}`, parent: `sr-region-${r}`, base: B, startedAt: 1 + k, children: workers, join: { t: 90 + k, total: 8, succeeded: 8, status: 'completed', preview: workers.map((w) => w.preview).join(SEP) } });
  });
  writeFixture('safe', 'fanout-budget-tree', [j.sessionStart(at(B, -0.000001)), ...byTime(root, ...nested)]);
}
{
  const j = J('61328057-b394-45c6-8a71-f28d9eafb003');
  // Trap 1: exactly --max-fanout (8) at once.
  const eight = Array.from({ length: 8 }, (_, i) => ({ agent: `shard-${i}`, run: `sr-shard-${i}`, start: 0.01 * (i + 1), end: 30 + i, preview: `shard ${i} indexed` }));
  const d1 = delegation(j, { id: 'd-eight', parent: 'run-1', base: B, children: eight, join: { t: 40, total: 8, succeeded: 8, status: 'completed', preview: eight.map((s) => s.preview).join(SEP) } });
  // Trap 2: 12 stages one after another; each starts at the instant the previous completes ([start, end) intervals).
  const stages = Array.from({ length: 12 }, (_, i) => ({ agent: `step-${i + 1}`, run: `sr-step-${i + 1}`, start: 100 + 5 * i, end: 100 + 5 * (i + 1), preview: i === 11 ? 'step 12 done' : undefined, status: i === 11 ? 'completed' : 'failed', error: i === 11 ? null : `step ${i + 1} found nothing` }));
  const d2 = delegation(j, { id: 'd-twelve-stages', parent: 'run-2', pattern: 'sequential', base: B, startedAt: 99, children: stages, join: { t: 161, total: 12, succeeded: 1, status: 'partial' } });
  // Trap 3: a tree of exactly --max-tree (32) runs: 4 regions × 7 crawlers + 4; 32 run at once across the tree, at most 7 per delegation.
  const regions = ['a', 'b', 'c', 'd'];
  const root = delegation(j, { id: 'd-crawl', parent: 'run-3', base: B, startedAt: 200, children: regions.map((r, k) => ({ agent: `region-${r}`, run: `sr-region-${r}`, start: 200 + 0.01 * (k + 1), end: 300 + k, preview: `region ${r} crawled` })), join: { t: 310, total: 4, succeeded: 4, status: 'completed', preview: regions.map((r) => `region ${r} crawled`).join(SEP) } });
  const nested = regions.map((r, k) => {
    const workers = Array.from({ length: 7 }, (_, i) => ({ agent: `crawler-${i + 1}`, run: `sr-${r}-crawler-${i + 1}`, start: 201 + k + 0.01 * (i + 1), end: 260 + k + i, preview: `${r}${i + 1}: 50 pages`, depth: 2 }));
    return delegation(j, { id: `d-crawl-${r}`, parent: `sr-region-${r}`, base: B, startedAt: 201 + k, children: workers, join: { t: 290 + k, total: 7, succeeded: 7, status: 'completed', preview: workers.map((w) => w.preview).join(SEP) } });
  });
  writeFixture('safe', 'fanout-budget-lookalike', [j.sessionStart(at(B, -0.000001)), ...byTime(d1, d2, root, ...nested)]);
}
