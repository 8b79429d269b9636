// Deterministic, realistic journal corpus for `npm run bench`.
//
// Shape (journal-format.md): both layouts (legacy flat `<root>/<sid>.jsonl` for the oldest
// sessions, `v1/users/<owner>/sessions/<sid>.jsonl` for the rest, three owners), ~5% of the
// sessions gzip-archived, long llm_round / transcript_item / turn / trace_span lines around
// a few percent of delegation events, turn-buffered lines written after the delegation they
// precede in time, and each file's mtime set to its last event so "recent first" has history
// to skip. The same parameters always produce the same bytes; a manifest lets runs reuse it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export const GENERATOR_VERSION = 3;
const GIB = 1024 ** 3;
/** 400 sessions per GiB, as in BENCHMARKS.md. */
const SESSIONS_PER_GIB = 400;
const HISTORY_DAYS = 90;
/** The corpus "now": the newest session is still being written just before this instant. */
const END_MS = Date.parse('2025-11-03T18:00:00Z');
const OWNERS = ['local', 'alice@example.com', 'ci-runner'].map((o) => `b64-${Buffer.from(o).toString('base64url')}`);

/** mulberry32: small, fast, deterministic. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    uuid: () => {
      let h = '';
      for (let i = 0; i < 4; i++) h += Math.floor(next() * 4294967296).toString(16).padStart(8, '0');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[Math.floor(next() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}

const WORDS = (
  'the a to of and in is for on with that this it as be by are from at or an not we was have has ' +
  'retry backoff jitter cap delay cargo test build review patch diff module crate function struct ' +
  'error timeout session journal agent reviewer coder planner tester parent child result output ' +
  'merge branch commit file line change config value token budget round tool call response ' +
  'summary check failure success pending queue worker thread lock async await stream buffer ' +
  'delegate delegation sub-run fan-out sequential fork pipeline verify gate attempt reason'
).split(' ');

/** A pool of JSON-safe pseudo text (escaped newlines and quotes included); slices start at words. */
function textPool(r, size) {
  const parts = [];
  let n = 0;
  while (n < size) {
    let w = r.pick(WORDS);
    const roll = r.next();
    if (roll < 0.03) w += '.\\n';
    else if (roll < 0.05) w = `\\"${w}\\"`;
    else if (roll < 0.09) w += ',';
    parts.push(w);
    n += w.length + 1;
  }
  return parts.join(' ');
}

class Text {
  constructor(r) {
    this.r = r;
    this.pool = textPool(r, 1 << 21);
  }
  /** About `len` characters of text, cut at word boundaries so escapes stay whole. */
  take(len) {
    const start = this.pool.indexOf(' ', this.r.int(0, this.pool.length - len - 64)) + 1;
    const end = this.pool.indexOf(' ', start + Math.max(1, len));
    return this.pool.slice(start, end === -1 ? start + len : end);
  }
}

/** RFC 3339 with 9 fraction digits and +00:00, as the engine writes it. */
function ts(ms, ns) {
  const iso = new Date(Math.floor(ms)).toISOString(); // 2025-11-03T09:14:02.118Z
  return `${iso.slice(0, 23)}${String(ns).padStart(6, '0')}+00:00`;
}

/** Writes one session's lines; returns its buffered text and last event time. */
class SessionWriter {
  constructor(r, text, sid, gen) {
    this.r = r;
    this.text = text;
    this.sid = sid;
    this.gen = gen; // 'A' (legacy flat) or 'B'/'C' (v1 layout)
    this.lines = [];
    this.bytes = 0;
    this.lastMs = 0;
    this.delegationLines = 0;
  }
  push(obj) {
    this.lines.push(obj);
    this.bytes += obj.length + 1;
  }
  ev(type, ms, rest) {
    return `{"type":"${type}","ts":"${ts(ms, this.r.int(0, 999999))}","session_id":"${this.sid}"${rest}}`;
  }
  emit(type, ms, rest) {
    this.push(this.ev(type, ms, rest));
    if (ms > this.lastMs) this.lastMs = ms;
  }
  deleg(type, ms, meta) {
    this.emit(type, ms, `,"metadata":${meta}`);
    this.delegationLines++;
  }
}

const q = (s) => (s === null ? 'null' : `"${s}"`);
const AGENTS = ['coder', 'reviewer', 'planner', 'tester', 'researcher', 'doc-writer', 'deep-fixer', 'quick-fixer', 'escalation'];
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1', 'gpt-5'];

function llmRound(w, ms, turn, round, runId) {
  const r = w.r;
  const names = r.chance(0.5) ? `"${r.pick(['read_file', 'grep', 'bash', 'edit_file', 'delegate'])}"` : '';
  const runMeta = runId ? `,"run_id":"${runId}","agent_id":"${r.pick(AGENTS)}"` : '';
  const prompt = w.text.take(r.int(100, 700));
  return w.ev(
    'llm_round',
    ms,
    `,"turn":${turn},"tokens_in":${r.int(2000, 90000)},"tokens_out":${r.int(50, 4000)},"duration_ms":${r.int(400, 30000)},"metadata":{"finish_reason":"${r.pick(['stop', 'tool_use', 'stop'])}","prompt_tail":"${prompt}"${runMeta},"tool_call_names":[${names}]},"ttft_ms":${r.int(200, 3000)},"cache_read_tokens":${r.int(0, 60000)},"round":${round},"tool_calls_returned":${names ? 1 : 0},"offset_ms":${r.int(0, 20000)}`,
  );
}

function traceSpan(w, ms, turn) {
  const r = w.r;
  const attrs = [];
  for (let i = r.int(3, 10); i > 0; i--) attrs.push(`"${r.pick(WORDS)}.${r.pick(WORDS)}":"${w.text.take(r.int(8, 60))}"`);
  return w.ev('trace_span', ms, `,"turn":${turn},"metadata":{"name":"${r.pick(['turn', 'llm.call', 'tool.exec', 'context.assemble'])}","duration_us":${r.int(100, 9000000)},"attributes":{${attrs.join(',')}}}`);
}

function transcriptItem(w, ms, runId, agentId, seq) {
  const r = w.r;
  // Now and then a tool output quotes journal lines: matches grep's needle, must not be a candidate.
  const quoted = r.chance(0.004) ? ` {\\"type\\":\\"delegation_started\\",\\"metadata\\":{\\"delegation_id\\":\\"${r.uuid()}\\"}} ` : '';
  const content = w.text.take(r.chance(0.1) ? r.int(1500, 4000) : r.int(100, 900)) + quoted;
  const src = createHash('sha256').update(`${runId}${seq}`).digest('hex');
  return w.ev('transcript_item', ms, `,"transcript_item":{"source_event_id":"local-transcript:sha256:${src}","run_id":"${runId}","agent_id":"${agentId}","item_seq":${seq},"message":{"content":"${content}","role":"${r.pick(['assistant', 'tool', 'user'])}"}}`);
}

function turnLine(w, ms, turn, model) {
  const r = w.r;
  return w.ev('turn', ms, `,"turn":${turn},"model":"${model}","user_input":"${w.text.take(r.int(20, 300))}","assistant_output":"${w.text.take(r.int(100, 1400))}","tool_count":${r.int(0, 12)},"tokens_in":${r.int(2000, 90000)},"tokens_out":${r.int(50, 4000)},"duration_ms":${r.int(500, 120000)}`);
}

const TIMEOUT_ERRORS = ['agent execution exceeded per-agent timeout of 300s', 'deadline exceeded', 'tool bash failed: exit status 101', 'model returned an empty response'];

/**
 * One delegation, written immediately as the engine does. Returns the time it ended.
 * `open` leaves it running (no completions): the newest session's last delegation.
 */
function delegation(w, ms, parentRunId, depth, open) {
  const r = w.r;
  const genA = w.gen === 'A';
  const patterns = genA ? ['fan_out', 'fan_out', 'sequential', 'pipeline', 'adversarial_review', 'fork'] : w.gen === 'B' ? ['fan_out', 'fan_out', 'sequential', 'fork'] : ['fan_out', 'fan_out', 'sequential', 'fork'];
  const pattern = r.pick(patterns);
  const did = r.uuid();
  let agents;
  let agentIdsJson;
  if (pattern === 'fork') {
    const n = r.int(2, 5);
    const a = r.pick(AGENTS);
    agents = Array(n).fill(a);
    agentIdsJson = `["${a}×${n}"]`;
  } else if (pattern === 'adversarial_review') {
    const pair = ['coder', 'reviewer'];
    agents = [];
    for (let i = r.int(1, 2) * 2; i > 0; i--) agents.push(pair[agents.length % 2]);
    agentIdsJson = '["coder","reviewer"]';
  } else {
    const n = r.int(2, pattern === 'fan_out' ? 5 : 3);
    const pool = [...AGENTS];
    agents = [];
    for (let i = 0; i < n; i++) agents.push(pool.splice(r.int(0, pool.length - 1), 1)[0]);
    agentIdsJson = `[${agents.map((a) => `"${a}"`).join(',')}]`;
  }
  const declared = pattern === 'fork' ? 1 : pattern === 'adversarial_review' ? 2 : agents.length; // agent_ids.length
  let t = ms;
  w.deleg('delegation_started', t, `{"agent_count":${declared},"agent_ids":${agentIdsJson},"delegation_id":"${did}","parent_run_id":"${parentRunId}","pattern":"${pattern}"}`);
  const startSub = (runId, agent, retryOf) => {
    t += r.int(20, 150);
    w.deleg('delegation_sub_run_started', t, `{"agent_id":"${agent}","delegation_id":"${did}","depth":${depth},"parent_run_id":"${parentRunId}","retry_of":${q(retryOf)},"status":"running","sub_run_id":"${runId}"}`);
  };
  const previews = [];
  const complete = (runId, agent, status, error) => {
    // Each preview names its run, so unrelated previews never look alike.
    const text = `${agent} ${runId.slice(0, 8)}: ${w.text.take(r.int(40, 300))}`;
    if (status === 'completed') previews.push(text);
    const preview = status === 'completed' ? `"${text}"` : 'null';
    w.deleg('delegation_sub_run_completed', t, `{"agent_id":"${agent}","delegation_id":"${did}","error":${error ? `"${error}"` : 'null'},"output_preview":${preview},"status":"${status}","sub_run_id":"${runId}"}`);
  };
  const work = (runId, agent) => {
    for (let k = r.int(1, 4); k > 0; k--) {
      t += r.int(500, 20000);
      w.push(transcriptItem(w, t, runId, agent, k));
    }
    // Rarely a child delegates again (nested delegation in the same session file).
    if (depth < 2 && !open && r.chance(0.02)) t = delegation(w, t + 500, runId, depth + 1, false);
  };

  const parallel = pattern === 'fan_out' || pattern === 'fork';
  const results = [];
  let stopped = false;
  const runs = agents.map((a) => ({ id: r.uuid(), agent: a }));
  if (parallel) for (const run of runs) startSub(run.id, run.agent, null);
  for (let i = 0; i < runs.length && !stopped; i++) {
    const run = runs[i];
    if (!parallel) startSub(run.id, run.agent, null);
    work(run.id, run.agent);
    if (open && i === runs.length - 1) return t; // still running: nothing settled yet
    t += r.int(200, 5000);
    const fail = r.chance(0.1);
    if (!fail && w.gen !== 'C' && r.chance(0.08)) {
      // Verification gate rejects the output: retry event, verification_failed, the retry's start.
      const retryId = r.uuid();
      w.deleg('delegation_retry', t, `{"agent_id":"${run.agent}","attempt":2,"delegation_id":"${did}","original_run_id":"${run.id}","reason":"output too short (4 chars, minimum 10)","retry_run_id":"${retryId}"}`);
      complete(run.id, run.agent, 'verification_failed', null);
      startSub(retryId, run.agent, run.id);
      work(retryId, run.agent);
      t += r.int(200, 5000);
      complete(retryId, run.agent, 'completed', null);
      results.push('completed');
    } else if (fail) {
      complete(run.id, run.agent, 'failed', r.pick(TIMEOUT_ERRORS));
      results.push('failed');
    } else {
      complete(run.id, run.agent, 'completed', null);
      results.push('completed');
      if (pattern === 'sequential' && r.chance(0.6)) stopped = true; // stop_on_success
    }
  }
  if (open) return t;
  // ~1% of delegations crash before the aggregate is written (delegation-incomplete).
  if (r.chance(0.01)) return t;
  const ok = results.filter((s) => s === 'completed').length;
  const failed = results.length - ok;
  const status = failed === 0 ? 'completed' : ok === 0 ? 'failed' : 'partial';
  const agg = ok > 0 ? `"${previews.join('\\n---\\n')}"` : 'null'; // AllResults separator
  t += r.int(50, 400);
  w.deleg('delegation_completed', t, `{"aggregated_output_preview":${agg},"aggregated_status":"${status}","delegation_id":"${did}","failed":${failed},"pattern":"${pattern}","succeeded":${ok},"total_sub_runs":${results.length}}`);
  return t;
}

/** One session: bootstrap, then turns until the byte budget is spent. */
function session(r, text, plan) {
  const w = new SessionWriter(r, text, plan.sid, plan.gen);
  const model = r.pick(MODELS);
  let t = plan.startMs;
  w.emit('session_start', t, `,"model":"${model}"`);
  w.emit('bootstrap', t + 1, `,"metadata":{"phases":[{"name":"config","us":${r.int(1000, 90000)}},{"name":"auth","us":${r.int(1000, 400000)}},{"name":"tools","us":${r.int(1000, 900000)}}],"total_us":${r.int(100000, 1400000)}}`);
  let turn = 0;
  while (w.bytes < plan.bytes) {
    turn++;
    const turnStart = t + r.int(5000, plan.gapMs);
    const buffered = [];
    let tt = turnStart;
    const rounds = r.int(1, 3);
    for (let k = 0; k < rounds; k++) {
      tt += r.int(500, 15000);
      buffered.push(llmRound(w, tt, turn, k, null));
    }
    const last = w.bytes + 20000 >= plan.bytes;
    if (r.chance(plan.delegationRate) || (last && plan.openAtEnd)) {
      const parentRunId = r.uuid();
      tt = delegation(w, tt + r.int(100, 2000), parentRunId, 1, last && plan.openAtEnd);
      if (last && plan.openAtEnd) {
        t = tt;
        break; // the turn is still in progress: its buffered lines are not flushed yet
      }
    }
    for (let k = r.int(0, 2); k > 0; k--) {
      tt += r.int(100, 5000);
      w.push(transcriptItem(w, tt, plan.sid, 'main', k));
    }
    for (let k = r.int(1, 2); k > 0; k--) buffered.push(traceSpan(w, turnStart + r.int(0, 1000), turn));
    // The turn buffer is flushed at the end of the turn, after any delegation events.
    for (const b of buffered) w.push(b);
    tt += r.int(100, 2000);
    w.push(turnLine(w, tt, turn, model));
    t = tt;
  }
  if (!plan.openAtEnd) w.emit('session_end', t + r.int(1000, 60000), '');
  w.lastMs = Math.max(w.lastMs, t);
  return w;
}

/** The list of sessions: ids, layouts, start times and byte budgets, oldest first. */
function planSessions(r, sizeBytes) {
  const count = Math.max(4, Math.round((sizeBytes / GIB) * SESSIONS_PER_GIB));
  const weights = [];
  for (let i = 0; i < count; i++) weights.push(0.15 + r.next() * r.next() * 3.4);
  const scale = sizeBytes / weights.reduce((a, b) => a + b, 0);
  const starts = [];
  for (let i = 0; i < count; i++) starts.push(END_MS - HISTORY_DAYS * 86400000 + r.next() * (HISTORY_DAYS * 86400000 - 4 * 3600000));
  starts.sort((a, b) => a - b);
  const plans = [];
  for (let i = 0; i < count; i++) {
    const gen = i < count * 0.25 ? 'A' : i < count * 0.55 ? 'B' : 'C';
    const bytes = Math.round(weights[i] * scale);
    plans.push({
      sid: r.uuid(),
      gen,
      owner: gen === 'A' ? null : OWNERS[r.next() < 0.7 ? 0 : r.int(1, OWNERS.length - 1)],
      startMs: starts[i],
      bytes,
      // Spread the turns over up to three days, ending well before the corpus "now".
      gapMs: Math.max(20000, Math.round((2 * Math.min(3 * 86400000, END_MS - 6 * 3600000 - starts[i])) / Math.max(1, bytes / 7000))),
      delegationRate: 0.026,
      openAtEnd: false,
      gzip: false,
    });
  }
  // The newest session is live: it ends inside a delegation that is still running.
  const live = plans[plans.length - 1];
  live.openAtEnd = true;
  // ~5% of sessions are archived (.jsonl.gz), chosen among those older than a week.
  const old = plans.filter((p) => p.startMs < END_MS - 10 * 86400000);
  const want = Math.max(1, Math.round(count * 0.05));
  for (let k = 0; k < want && old.length; k++) old.splice(r.int(0, old.length - 1), 1)[0].gzip = true;
  return plans;
}

function manifestPath(dir) {
  return path.join(dir, 'manifest.json');
}

export function corpusDir(root, sizeGiB, seed) {
  return path.join(root, `corpus-${sizeGiB}g-seed${seed}-v${GENERATOR_VERSION}`);
}

/** Generates the corpus unless a complete one with the same parameters is already there. */
export function ensureCorpus({ root, sizeGiB, seed = 42, log = () => {} }) {
  const dir = corpusDir(root, sizeGiB, seed);
  // The generator's own source is part of the parameters: any change to it regenerates.
  const source = createHash('sha256').update(readFileSync(new URL(import.meta.url))).digest('hex').slice(0, 16);
  const params = { generator: GENERATOR_VERSION, source, sizeGiB, seed };
  if (existsSync(manifestPath(dir))) {
    try {
      const m = JSON.parse(readFileSync(manifestPath(dir), 'utf8'));
      if (JSON.stringify(m.params) === JSON.stringify(params)) return { dir, ...m, reused: true };
    } catch {
      /* regenerate */
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const r = rng(seed);
  const text = new Text(rng(seed ^ 0x5eed));
  const plans = planSessions(r, Math.round(sizeGiB * GIB));
  const files = [];
  let bytes = 0;
  let lines = 0;
  let delegationLines = 0;
  const began = Date.now();
  for (let i = 0; i < plans.length; i++) {
    const p = plans[i];
    const w = session(r, text, p);
    const folder = p.gen === 'A' ? dir : path.join(dir, 'v1', 'users', p.owner, 'sessions');
    mkdirSync(folder, { recursive: true });
    const plain = path.join(folder, `${p.sid}.jsonl`);
    const body = w.lines.join('\n') + '\n';
    let file = plain;
    if (p.gzip) {
      file = `${plain}.gz`;
      writeFileSync(file, gzipSync(Buffer.from(body), { level: 6 }));
    } else {
      const fd = openSync(plain, 'w');
      writeSync(fd, body);
      closeSync(fd);
    }
    const mtime = new Date(w.lastMs);
    utimesSync(file, mtime, mtime);
    files.push(path.relative(dir, file));
    bytes += Buffer.byteLength(body);
    lines += w.lines.length;
    delegationLines += w.delegationLines;
    if (i % 25 === 0) log(`  generated ${i + 1}/${plans.length} sessions, ${(bytes / 1e6).toFixed(0)} MB (${((Date.now() - began) / 1000).toFixed(0)} s)`);
  }
  const manifest = { params, files: files.length, gzipped: plans.filter((p) => p.gzip).length, bytes, lines, delegationLines };
  writeFileSync(manifestPath(dir), JSON.stringify(manifest, null, 2));
  return { dir, ...manifest, reused: false };
}
