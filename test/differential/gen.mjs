// Deterministic generator of realistic Astra journal trees for the differential harness
// (test/differential/README.md). Plain Node ESM, no dependencies: generateTree(seed, dir).
// Shapes follow /work/shared/journal-format.md and fixtures/samples/astra-sample.jsonl.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** mulberry32: small, fast, and the same sequence on every machine. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    uuid: () => {
      let h = '';
      for (let i = 0; i < 32; i++) h += Math.floor(next() * 16).toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[Math.floor(next() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
  return r;
}

const PASCAL = {
  delegation_started: 'DelegationStarted',
  delegation_sub_run_started: 'DelegationSubRunStarted',
  delegation_retry: 'DelegationRetry',
  delegation_sub_run_completed: 'DelegationSubRunCompleted',
  delegation_completed: 'DelegationCompleted',
  sync_marker: 'SyncMarker',
  session_start: 'SessionStart',
  session_end: 'SessionEnd',
  llm_round: 'LlmRound',
  turn: 'Turn',
  transcript_item: 'TranscriptItem',
  trace_span: 'TraceSpan',
  bootstrap: 'Bootstrap',
};
const AGENTS = ['coder', 'reviewer', 'tester', 'researcher', 'summarizer', 'planner', 'quick-fixer', 'deep-fixer', 'escalation', 'writer'];
const OWNERS = ['b64-bG9jYWw', 'b64-dXNyXzhjMmU0MQ', 'b64-YWxpY2U'];
const WORDS = 'the fix moved jitter before the cap and added a property test reviewer confirmed docs gap remains tests pass flaky retry stabilised'.split(' ');

/** `ts` text for an instant in µs (+ ns digits), in one of the shapes real journals have. */
function fmtTs(us, ns, shape) {
  const ms = Math.floor(us / 1000);
  const frac6 = String(us % 1_000_000).padStart(6, '0');
  const offsetMin = shape === 'plus2' ? 120 : shape === 'minus5' ? -330 : 0;
  const d = new Date(ms + offsetMin * 60_000);
  const base = d.toISOString().slice(0, 19);
  const off = offsetMin === 0 ? '+00:00' : `${offsetMin > 0 ? '+' : '-'}${String(Math.floor(Math.abs(offsetMin) / 60)).padStart(2, '0')}:${String(Math.abs(offsetMin) % 60).padStart(2, '0')}`;
  switch (shape) {
    case 'u6':
      return `${base}.${frac6}+00:00`;
    case 'm3':
      return `${base}.${frac6.slice(0, 3)}Z`;
    case 's0':
      return `${base}+00:00`;
    case 'z9':
      return `${base}.${frac6}${String(ns).padStart(3, '0')}Z`;
    default:
      return `${base}.${frac6}${String(ns).padStart(3, '0')}${off}`;
  }
}

function sortedKeys(o) {
  const out = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/**
 * One tree. Returns { files: [{ rel, plain }], now, seed } where `plain` says the file is an
 * uncompressed journal (for the --stdin and gzip roads).
 */
export function generateTree(seed, root, opts = {}) {
  const R = rng(seed * 2654435761 + 17);
  const scale = opts.scale ?? R.int(0, 3);
  const files = new Map(); // rel -> { rel, sid, style, shape, lines: [{ w, seq, text }] }
  let seq = 0;
  const usedIds = []; // { id, parentRunId, file, endUs }
  const faults = new Set();
  const reuseRate = R.pick([0.05, 0.15, 0.15, 0.5]); // some trees reuse ids a lot (one client, fixed ids)
  const damaged = R.chance(0.6); // some trees without damaged lines (the rotated-pair road needs one)

  const fileFor = (sess) => {
    let f = files.get(sess.rel);
    if (!f) files.set(sess.rel, (f = { rel: sess.rel, sid: sess.sid, style: sess.style, shape: sess.shape, lines: [] }));
    return f;
  };
  /** Appends one line to a session file: `w` is when it was written (file order), `us` its ts. */
  const put = (sess, w, us, type, fields) => {
    const f = fileFor(sess);
    const name = sess.style === 'pascal' ? (PASCAL[type] ?? type) : type;
    const ts = fmtTs(us + (sess.clock ?? 0), R.int(0, 999), sess.shape);
    let obj;
    if (sess.style === 'pascal' && sess.typeLast) obj = { ts, session_id: sess.sid, ...fields, type: name };
    else obj = { type: name, ts, session_id: sess.sid, ...fields };
    f.lines.push({ w, seq: seq++, text: JSON.stringify(obj) });
  };
  /** A delegation event; now and then damaged as crashes and foreign writers damage them. */
  const meta = (sess, w, us, type, m) => {
    const roll = damaged ? R.next() : 0.5;
    if (roll < 0.006) return put(sess, w, us, type, { metadata: 'not an object' }), faults.add('bad-metadata');
    if (roll < 0.012) return put(sess, w, us, type, { metadata: { ...sortedKeys(m), delegation_id: 42 } }), faults.add('bad-id');
    if (roll < 0.02) {
      faults.add('bad-ts');
      const f = fileFor(sess);
      const obj = { type: sess.style === 'pascal' ? (PASCAL[type] ?? type) : type, ts: R.pick(['', 'yesterday', '2025-13-45T99:99:99Z']), session_id: sess.sid, metadata: sortedKeys(m) };
      if (R.chance(0.3)) delete obj.ts;
      return f.lines.push({ w, seq: seq++, text: JSON.stringify(obj) });
    }
    put(sess, w, us, type, { metadata: sortedKeys(m) });
    if (roll > 0.99) {
      const f = fileFor(sess);
      f.lines.push({ ...f.lines[f.lines.length - 1], seq: seq++ }); // the same line written twice
      faults.add('repeated-line');
    }
  };

  // Sessions: a generation, a layout, a writer style and a ts shape each.
  const nSessions = R.int(2, 4 + scale);
  const sessions = [];
  for (let i = 0; i < nSessions; i++) {
    const gen = R.pick(['A', 'B', 'C', 'C']);
    const sid = gen === 'A' && R.chance(0.3) ? 'delegation' : R.uuid();
    if (sessions.some((s) => s.sid === sid)) continue;
    const rel = gen === 'A' ? `${sid}.jsonl` : `v1/users/${R.pick(OWNERS)}/sessions/${sid}.jsonl`;
    const style = R.chance(0.15) ? 'pascal' : 'snake';
    const shape = gen === 'A' ? R.pick(['u6', 'u6', 'm3', 's0']) : R.pick(['n9', 'n9', 'n9', 'n9', 'z9', 'plus2', 'minus5', 'u6']);
    // A tracker on another host: its session's clock a little off (within the 1 s skew allowed).
    const clock = R.chance(0.15) ? R.int(-900_000, 900_000) : 0;
    const s = { sid, gen, rel, style, shape, clock, typeLast: style === 'pascal' && R.chance(0.3) };
    sessions.push(s);
  }

  const sharedA = sessions.some((x) => x.gen === 'A' && x.sid !== 'delegation') && !sessions.some((x) => x.sid === 'delegation') && R.chance(0.5) ? { sid: 'delegation', gen: 'A', rel: 'delegation.jsonl', style: 'snake', shape: 'u6', clock: 0, typeLast: false } : null;
  const t0 = Date.UTC(2025, R.int(0, 11), R.int(1, 28), R.int(0, 23), R.int(0, 59)) * 1000;

  const seenPreviews = [];
  const seenRuns = [];
  /** An output: words, a stock answer many runs give, or (rarely) one cut at 500 chars with `…`. */
  function preview() {
    if (R.chance(0.1)) return R.pick(['Done.', 'LGTM', 'All tests pass.', 'No changes needed; the existing implementation already handles this case correctly.']);
    const n = R.chance(0.05) ? 120 : R.int(3, 18);
    const ws = [];
    for (let i = 0; i < n; i++) ws.push(R.pick(WORDS));
    const text = ws.join(' ');
    const out = text.length > 500 ? `${text.slice(0, 500)}…` : text;
    seenPreviews.push(out);
    return out;
  }

  /**
   * One delegation (and its nested ones) requested from `req`'s session at `t` µs; sub-run events
   * go to `trk` (the tracker's session), or nowhere when the tracker is not bound. Returns its end.
   */
  function delegation(req, trk, parentRunId, depth, t, turnEnd) {
    const gen = req.gen;
    const patterns = gen === 'C' ? ['fan_out', 'fan_out', 'sequential', 'fork'] : ['fan_out', 'fan_out', 'sequential', 'fork', 'pipeline', 'adversarial_review'];
    const pattern = R.pick(patterns);
    let id = R.uuid();
    // A reused id: the same parent run restarting it, another run, or another session.
    if (usedIds.length && R.chance(reuseRate)) {
      const prev = R.pick(usedIds);
      if (prev.endUs < t || (prev.startUs < t && R.chance(0.3))) {
        id = prev.id;
        if (R.chance(0.5)) parentRunId = prev.parentRunId;
        faults.add('reused-id');
      }
    }
    let agents;
    if (pattern === 'fork') agents = [`${R.pick(AGENTS)}×${R.int(2, 4)}`];
    else if (pattern === 'adversarial_review') agents = [R.pick(AGENTS.slice(0, 3)), 'reviewer'];
    else {
      const n = pattern === 'fan_out' && R.chance(0.05) ? R.int(9, 12) : R.int(1, pattern === 'fan_out' ? 4 : 3);
      agents = [];
      for (let i = 0; i < n; i++) agents.push(R.chance(0.1) && agents.length ? R.pick(agents) : R.pick(AGENTS));
    }
    const f = {
      noStart: R.chance(0.04),
      noJoin: R.chance(0.07),
      unbound: R.chance(0.05),
      dropSubStart: R.chance(0.04),
      dropSubDone: R.chance(0.05),
      badTotals: R.chance(0.04),
      badStatus: R.chance(0.03),
      foreignAgent: R.chance(0.03),
      lateResult: R.chance(0.04),
      timeOrder: R.chance(0.03),
      foreignParent: R.chance(0.03),
      dupDone: R.chance(0.03),
      silent: R.chance(0.04),
      lead: R.chance(0.08), // a sub-run start stamped before the delegation's, within the skew
      badAttempt: R.chance(0.03),
      badCount: R.chance(0.02),
    };
    const sub = f.unbound ? null : trk;
    let w = t;
    const startUs = t;
    if (!f.noStart) meta(req, w, startUs, 'delegation_started', { agent_count: f.badCount ? agents.length + 1 : agents.length, agent_ids: agents, delegation_id: id, parent_run_id: parentRunId, pattern });
    else faults.add('orphan');

    const expected = pattern === 'fork' ? Array(Number(agents[0].split('×')[1])).fill(agents[0].split('×')[0]) : pattern === 'adversarial_review' ? [agents[0], agents[1], ...(R.chance(0.5) ? [agents[0], agents[1]] : [])] : agents;
    const results = []; // final results { agent, runId, ok, preview, status, end, paused }
    const completions = []; // deferred completion writes { at, m, sess }
    const serial = pattern === 'sequential' || pattern === 'pipeline' || pattern === 'adversarial_review';
    const batchLate = !serial && (gen === 'B' || (gen === 'C' && R.chance(0.5)));
    let cursor = t + R.int(20_000, 120_000);
    const gap = R.int(100, 3000); // fan_out and fork start every child up front, in list order
    let stop = false;
    for (const agent of expected) {
      if (stop) break;
      // A run id another delegation journaled too (foreign-parent), now and then.
      const runId = seenRuns.length && R.chance(0.01) ? R.pick(seenRuns) : R.uuid();
      seenRuns.push(runId);
      const runStart = serial ? cursor : cursor + results.length * gap;
      // Stamped before the delegation's start: within the skew, or at its 1 s edge (to the µs).
      const stamp = f.lead && results.length === 0 ? startUs - (R.chance(0.4) ? R.pick([999_999, 1_000_000, 1_000_001]) : R.int(1000, 900_000)) : runStart;
      const runParent = f.foreignParent && results.length === 0 ? R.uuid() : parentRunId;
      const runAgent = f.foreignAgent && results.length === 0 ? 'intruder' : agent;
      if (sub && !(f.dropSubStart && results.length === expected.length - 1 && expected.length > 1)) meta(sub, runStart, stamp, 'delegation_sub_run_started', { agent_id: runAgent, delegation_id: id, depth, parent_run_id: runParent, retry_of: null, status: 'running', sub_run_id: runId });
      let end = runStart + R.int(500_000, 40_000_000);
      // A nested delegation from this sub-run (fork children never delegate).
      if (pattern !== 'fork' && depth < 3 && R.chance(0.12)) {
        faults.add('nested');
        const nestedEnd = delegation(R.chance(0.8) ? req : R.pick(sessions), R.chance(0.8) ? trk : R.pick(sessions), runId, depth + 1, runStart + R.int(50_000, 400_000), turnEnd);
        end = Math.max(end, nestedEnd + R.int(10_000, 900_000));
      }
      if (sub && R.chance(0.15)) put(sub, end - 5000, end - 5000, 'transcript_item', { transcript_item: { agent_id: agent, item_seq: R.int(1, 9), message: { content: preview(), role: 'assistant' }, run_id: runId } });
      // Outcome.
      const roll = R.next();
      let status = roll < 0.72 ? 'completed' : roll < 0.9 ? 'failed' : gen === 'C' ? 'cancelled' : 'failed';
      let error = status === 'failed' ? R.pick(['agent execution timeout: shared deadline exceeded', `agent ${agent} exceeded per-stage timeout of 120s`, 'tool crashed', 'sequential model admission timed out']) : status === 'cancelled' ? 'cancelled by parent run' : null;
      let out = status === 'completed' || (status === 'failed' && R.chance(0.3)) ? preview() : null;
      if (f.silent && status === 'completed' && R.chance(0.5)) error = 'partial output';
      let paused = false;
      if (gen === 'C' && sub && R.chance(0.05)) {
        paused = true;
        meta(sub, end - 200_000, end - 200_000, 'sync_marker', { action: 'pause', run_id: runId });
        faults.add('paused');
      } else if (gen === 'C' && sub && status === 'cancelled') meta(sub, end - 300_000, end - 300_000, 'sync_marker', { action: 'cancel_requested', run_id: runId });
      let lastRun = runId;
      // Verification retries (Gen A/B): a successful result rejected by the gate.
      if ((gen === 'A' || gen === 'B') && status === 'completed' && pattern !== 'fork' && R.chance(0.2)) {
        faults.add('retry');
        const attempts = R.chance(0.2) ? 3 : 2;
        for (let a = 2; a <= attempts; a++) {
          const retryRun = R.uuid();
          const reason = 'output too short (4 chars, minimum 10)';
          const at = end + R.int(1000, 200_000);
          if (gen === 'A' && sub) meta(sub, at - 500, at - 500, 'delegation_sub_run_completed', { agent_id: agent, delegation_id: id, error: null, output_preview: 'LGTM', status: 'completed', sub_run_id: lastRun });
          meta(req, at, at, 'delegation_retry', { agent_id: agent, attempt: f.badAttempt ? a + 1 : a, delegation_id: id, original_run_id: lastRun, reason, retry_run_id: retryRun });
          if (sub) meta(sub, at + 1500, at + 1500, 'delegation_sub_run_completed', { agent_id: agent, delegation_id: id, error: reason, output_preview: 'LGTM', status: 'verification_failed', sub_run_id: lastRun });
          if (sub) meta(sub, at + 3000, at + 3000, 'delegation_sub_run_started', { agent_id: agent, delegation_id: id, depth, parent_run_id: parentRunId, retry_of: lastRun, status: 'running', sub_run_id: retryRun });
          lastRun = retryRun;
          end = at + R.int(500_000, 20_000_000);
        }
      }
      const done = { agent_id: agent, delegation_id: id, error, output_preview: out, status, sub_run_id: lastRun };
      if (gen === 'A' && R.chance(0.2)) delete done.output_preview; // Gen 0 shape
      const dropThis = f.dropSubDone && results.length === 0;
      if (sub && !paused && !dropThis) completions.push({ at: end, m: done });
      if (f.timeOrder && sub && results.length === 0 && !paused && !dropThis) completions[completions.length - 1].stamp = runStart - R.int(2000, 3_000_000);
      if (f.dupDone && sub && !paused && !dropThis) completions.push({ at: end + 2000, m: { ...done, status: status === 'completed' ? 'failed' : 'completed', error: 'duplicate' } });
      results.push({ agent, runId: lastRun, ok: status === 'completed' && !error, preview: out, status, end, paused });
      if (serial) cursor = end + R.int(2000, 80_000);
      if (serial && pattern === 'sequential' && status === 'completed' && R.chance(0.6)) stop = true; // stop_on_success
      if (serial && paused) stop = true;
    }
    let joinAt = Math.max(...results.map((r) => r.end)) + R.int(1000, 60_000);
    // Completions: as each finished, or all after the batch (Gen B, some Gen C fan_out).
    const order = batchLate ? [...completions].sort(() => R.next() - 0.5) : completions;
    let k = 0;
    for (const c of order) {
      const at = batchLate ? joinAt - 5000 + k++ * R.int(5, 2000) : c.at;
      meta(sub, at, c.stamp ?? at, 'delegation_sub_run_completed', c.m);
    }
    if (batchLate) joinAt += 2000 * k + 10_000;
    // The join.
    const succeeded = results.filter((r) => r.ok).length;
    const anyPaused = results.some((r) => r.paused);
    let aggregated = results.length === 0 ? (gen === 'A' ? 'completed' : 'failed') : succeeded === results.length ? 'completed' : gen !== 'A' && anyPaused ? 'unfinished' : succeeded > 0 ? 'partial' : 'failed';
    if (f.badStatus) aggregated = aggregated === 'completed' ? 'failed' : 'completed';
    const okOut = results.filter((r) => r.ok && r.preview).map((r) => r.preview);
    // A stale artifact: another delegation's (or a failed run's) output joined in (failed-in-aggregate).
    if (R.chance(0.04) && seenPreviews.length) okOut.push(R.pick(seenPreviews)), faults.add('stale-output');
    if (R.chance(0.02)) okOut.push(...results.filter((r) => !r.ok && r.preview).map((r) => r.preview));
    const aggPreview = pattern === 'fan_out' && okOut.length ? (R.chance(0.5) ? okOut.join('\n---\n') : okOut[0]) : null;
    const total = results.length + (f.badTotals ? 1 : 0);
    const joinM = { aggregated_output_preview: aggPreview, aggregated_status: aggregated, delegation_id: id, failed: total - succeeded, pattern, succeeded, total_sub_runs: total };
    if (gen === 'A' && R.chance(0.2)) delete joinM.aggregated_output_preview;
    if (!f.noJoin) meta(req, joinAt, joinAt, 'delegation_completed', joinM);
    else faults.add('no-join');
    if (f.lateResult && sub && results.length) {
      const late = joinAt + (R.chance(0.4) ? R.pick([999, 1000, 1001]) : R.int(1000, 5_000_000)); // 1 ms after the join: in it or late
      meta(sub, late, late, 'delegation_sub_run_completed', { agent_id: results[0].agent, delegation_id: id, error: null, output_preview: 'late', status: 'completed', sub_run_id: results[0].runId });
      joinAt = late;
    }
    usedIds.push({ id, parentRunId, startUs, endUs: joinAt });
    return joinAt;
  }

  // Each session: turns, some of which delegate; a few sessions share a tracker session.
  let newest = t0;
  const sessionStart = new Map();
  for (const s of sessions) {
    let t = t0 + R.int(0, 3600) * 1_000_000 + (R.chance(0.3) ? R.int(1, 6) * 86_400_000_000 : 0); // some sessions days later
    sessionStart.set(s, t);
    put(s, t, t - 1, 'session_start', s.gen === 'A' && s.sid === 'delegation' ? {} : { model: 'claude-sonnet-4-5' });
    put(s, t + 2, t + 2, 'bootstrap', { metadata: { phases: [{ name: 'config', us: 41210 }], total_us: 455630 } });
    const turns = R.int(1, 3 + scale);
    for (let turn = 1; turn <= turns; turn++) {
      const turnStart = t + R.int(1, 120) * 1_000_000;
      const runId = R.uuid();
      let end = turnStart + R.int(2_000_000, 9_000_000);
      const nDel = R.chance(0.75) ? R.int(1, 2) : 0;
      for (let d = 0; d < nDel; d++) {
        const trk = R.chance(0.85) ? s : R.pick(sessions);
        const dStart = d > 0 && R.chance(0.4) ? turnStart + R.int(3_000_000, 6_000_000) : end + R.int(100_000, 2_000_000);
        // Gen A without a session in the request context: started/retry/completed go to the shared
        // delegation.jsonl, the sub-runs to the tracker's own session file (journal-format.md §8.5).
        const req = s.gen === 'A' && s.sid !== 'delegation' && sharedA && R.chance(0.5) ? sharedA : s;
        end = Math.max(end, delegation(req, trk, runId, 1, dStart, end));
      }
      // Turn-buffered lines: written at the turn's end, stamped earlier (journal-format.md §8.1).
      const flush = end + R.int(1000, 500_000);
      const bigContent = R.chance(0.15) ? 'x'.repeat(R.chance(0.04) ? 1_200_000 : R.int(20_000, 200_000)) : null;
      put(s, flush, turnStart + R.int(100_000, 900_000), 'llm_round', { turn, tokens_in: 5210, tokens_out: 312, duration_ms: 4381, metadata: { finish_reason: 'tool_calls', tool_call_names: ['delegate'] }, round: 0 });
      if (bigContent) put(s, flush + 1, flush - 50_000, 'llm_request_full', { turn, metadata: { body: bigContent } });
      put(s, flush + 2, flush - 40_000, 'trace_span', { turn, metadata: { name: 'tool_exec.delegate', span_id: `sp-${turn}` } });
      put(s, flush + 3, flush, 'turn', { turn, model: 'claude-sonnet-4-5', user_input: preview(), assistant_output: preview(), tool_count: nDel });
      t = flush + R.int(1_000_000, 60_000_000);
    }
    if (R.chance(0.6)) put(s, t, t, 'session_end', { turn: turns });
    newest = Math.max(newest, t);
  }
  for (const f of files.values()) for (const l of f.lines) newest = Math.max(newest, l.w);

  // Write the files: lines in write order; faults of whole files; archives and copies.
  const out = [];
  // A tree copied without its dates (`cp -r`): every file as new as the copy.
  const copiedAt = R.chance(0.08) ? newest + 10 * 86_400_000_000 : null;
  if (copiedAt) faults.add('copied');
  const writeFile = (rel, body, mtimeUs) => {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, body);
    const sec = Math.ceil((copiedAt ?? mtimeUs) / 1000) / 1000;
    utimesSync(p, sec, sec);
  };
  for (const f of files.values()) {
    f.lines.sort((a, b) => a.w - b.w || a.seq - b.seq);
    let lines = f.lines.map((l) => l.text);
    const lastW = f.lines.length ? f.lines[f.lines.length - 1].w : t0;
    if (R.chance(0.05)) lines.splice(R.int(0, lines.length), 0, '{"type":"delegation_sub_run_started","ts":"garbage'); // a torn write mid-file
    if (R.chance(0.04)) lines.splice(R.int(1, lines.length), 0, '');
    const crlf = R.chance(0.06);
    const bom = R.chance(0.05);
    const torn = R.chance(0.12);
    const encode = (ls, cut) => {
      let text = ls.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n');
      if (cut) {
        const last = ls[ls.length - 1];
        const keep = R.chance(0.3) ? last.length : R.int(1, Math.max(1, last.length - 1));
        text = ls.slice(0, -1).map((l) => l + (crlf ? '\r\n' : '\n')).join('') + last.slice(0, keep);
      }
      return Buffer.from((bom ? '\ufeff' : '') + text);
    };
    const mode = R.next();
    if (mode < 0.1 && lines.length > 4) {
      // Rotated: the archive holds the earlier part (its last lines may repeat at the head of the .jsonl).
      const k = R.int(2, lines.length - 2);
      const overlap = R.int(0, 2);
      writeFile(`${f.rel}.gz`, gzipSync(Buffer.from(lines.slice(0, k).join('\n') + '\n')), f.lines[Math.min(k, f.lines.length) - 1]?.w ?? lastW);
      writeFile(f.rel, encode(lines.slice(Math.max(0, k - overlap)), torn), lastW);
      out.push({ rel: `${f.rel}.gz`, plain: false }, { rel: f.rel, plain: true });
      faults.add('rotated');
    } else if (mode < 0.2) {
      writeFile(`${f.rel}.gz`, gzipSync(encode(lines, false)), lastW);
      out.push({ rel: `${f.rel}.gz`, plain: false });
      faults.add('archived');
    } else if (mode < 0.25) {
      writeFile(`${f.rel}.gz`, gzipSync(Buffer.from(lines.join('\n') + '\n')), lastW);
      writeFile(f.rel, encode(lines, torn), lastW);
      out.push({ rel: `${f.rel}.gz`, plain: false }, { rel: f.rel, plain: true });
      faults.add('both-copies');
    } else {
      writeFile(f.rel, encode(lines, torn), lastW);
      out.push({ rel: f.rel, plain: true });
      if (f.rel.startsWith('v1/') && R.chance(0.08)) {
        // The same session also in the legacy layout (a copy, maybe only its earlier part).
        const legacyRel = `${f.sid}.jsonl`;
        writeFile(legacyRel, Buffer.from(lines.slice(0, R.int(1, lines.length)).join('\n') + '\n'), lastW);
        out.push({ rel: legacyRel, plain: true });
        faults.add('both-layouts');
      }
    }
    if (torn) faults.add('torn');
    if (crlf) faults.add('crlf');
    if (bom) faults.add('bom');
  }
  // "now": just after the newest write (some delegations still running), or days later.
  const nowUs = newest + (R.chance(0.3) ? R.int(1, 300) * 1_000_000 : R.int(1, 5) * 86_400_000_000);
  return { files: out, now: new Date(Math.floor(nowUs / 1000)).toISOString(), faults: [...faults].sort() };
}

// `node gen.mjs <seed> <dir>`: writes one tree (for a repro) and prints what was generated.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [seed, dir] = [Number(process.argv[2]), process.argv[3]];
  if (!Number.isInteger(seed) || !dir) {
    console.error('usage: node test/differential/gen.mjs <seed> <dir>');
    process.exit(2);
  }
  console.log(JSON.stringify(generateTree(seed, dir), null, 1));
}
