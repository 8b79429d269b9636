// Follow mode's memory under a steady stream of live delegations (docs/follow.md): a follower runs
// in this process while a writer appends 5 delegations of two sub-runs every 50 ms; the heap is
// measured after full collections. node --expose-gc bench/follow-memory.mjs [sleepAfterMs=30000] [seconds=40]
// (a huge sleepAfterMs keeps every group in memory, as before groups could sleep).
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { main } from '../dist/index.js';
import { tmpdir } from 'node:os';
const [sleepMs, secs] = [process.argv[2] ?? '30000', Number(process.argv[3] ?? 40)];
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const dir = `${tmpdir()}/trace-delegation-follow-memory-${process.pid}`;
rmSync(dir, { recursive: true, force: true }); mkdirSync(dir, { recursive: true });
const file = `${dir}/s-live.jsonl`;
writeFileSync(file, '');
let out = 0, err = '';
const stdout = new Writable({ write(c, e, cb) { out += c.length; cb(); } });
const stderr = new Writable({ write(c, e, cb) { err += c; cb(); } });
const env = { ...process.env, TRACE_DELEGATION_POLL_MS: '200', TRACE_DELEGATION_SLEEP_AFTER_MS: sleepMs };
void main({ argv: ['--follow', '--sessions', dir, '--format', 'json'], stdout, stderr, env });
for (let i = 0; !/following/.test(err); i++) { if (i === 100) { console.error("no notice:", err); process.exit(1); } await new Promise((r) => setTimeout(r, 50)); }
const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed / 1048576; };
const h0 = heap();
const L = (type, ts, m) => JSON.stringify({ type, ts, session_id: 's-live', metadata: m });
let n = 0;
const t0 = Date.now();
while (Date.now() - t0 < secs * 1000) {
  const lines = [];
  for (let k = 0; k < 5; k++, n++) {
    const ts = new Date().toISOString(), id = `d-${n}-${Math.random().toString(16).slice(2, 14)}`, p = `p-${n}`;
    lines.push(L('delegation_started', ts, { agent_count: 2, agent_ids: ['coder', 'tester'], delegation_id: id, parent_run_id: p, pattern: 'fan_out' }));
    for (const ag of ['coder', 'tester']) lines.push(L('delegation_sub_run_started', ts, { agent_id: ag, delegation_id: id, depth: 1, parent_run_id: p, retry_of: null, status: 'running', sub_run_id: `r-${n}-${ag}` }));
    for (const ag of ['coder', 'tester']) lines.push(L('delegation_sub_run_completed', ts, { agent_id: ag, delegation_id: id, error: null, output_preview: `output ${n} of the ${ag}: plan and notes`, status: 'completed', sub_run_id: `r-${n}-${ag}` }));
    lines.push(L('delegation_completed', ts, { aggregated_output_preview: `output ${n} of the coder: plan and notes\n---\noutput ${n} of the tester: plan and notes`, aggregated_status: 'completed', delegation_id: id, failed: 0, pattern: 'fan_out', succeeded: 2, total_sub_runs: 2 }));
  }
  appendFileSync(file, lines.join('\n') + '\n');
  await new Promise((r) => setTimeout(r, 50));
}
await new Promise((r) => setTimeout(r, Math.min(10000, Math.max(3000, Number(sleepMs) + 1500))));
const h1 = heap();
console.log(JSON.stringify({ sleepMs, secs, delegations: n, reports: (out / 1e6).toFixed(1) + ' MB', heapStartMB: +h0.toFixed(1), heapEndMB: +h1.toFixed(1), bytesPerDelegation: Math.round(((h1 - h0) * 1048576) / n), rssMB: Math.round(process.memoryUsage().rss / 1048576) }));
rmSync(dir, { recursive: true, force: true });
process.exit(0);
