// `--follow last` picks the files to replay as `last` reads them, fallbacks included: it must
// follow the delegation `last` shows. (Built binary: `npm test` builds first.)
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/cli.js';
import { ev, journal, line } from '../helpers/journal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const H = 3_600_000;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000000+00:00');
const started = (id: string, ms: number) => ev.started(iso(ms), { delegation_id: id, parent_run_id: `p-${id}`, pattern: 'fan_out', agent_ids: ['coder'] });
const subStarted = (id: string, ms: number) => ev.subStarted(iso(ms), { delegation_id: id, sub_run_id: `r-${id}`, parent_run_id: `p-${id}`, agent_id: 'coder' });
const subDone = (id: string, ms: number) => ev.subCompleted(iso(ms), { delegation_id: id, sub_run_id: `r-${id}`, agent_id: 'coder', status: 'completed', output_preview: `done ${id}` });
const completed = (id: string, ms: number) =>
  ev.completed(iso(ms), { delegation_id: id, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `done ${id}` });

/** The ndjson reports `--follow last` prints before it is stopped, once it follows. */
function followLast(dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--follow', 'last', '--sessions', dir, '--format', 'ndjson', '--now', iso(NOW)], {
      env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_POLL_MS: '100', TRACE_DELEGATION_NOW: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (/following \d+ journal files?/.test(err)) setTimeout(() => child.kill('SIGINT'), 300);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l).key) : []);
    });
  });
}

it('--follow last follows the delegation last shows when an unread start is newer than the newest one read', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-follow-last-'));
  dirs.push(dir);
  const put = (name: string, lines: string[], mtime: number) => {
    const p = path.join(dir, name);
    writeFileSync(p, journal(...lines));
    utimesSync(p, new Date(mtime), new Date(mtime));
  };
  // Months of older sessions: the recent files are a small share of the tree.
  for (let k = 0; k < 8; k++) put(`s-old-${k}.jsonl`, Array.from({ length: 50 }, (_, i) => line('turn', iso(NOW - 400 * H + k * H + i), { n: i })), NOW - 400 * H + k * H + 50);
  put('s-a.jsonl', [started('d-a', NOW - 2 * H), subStarted('d-a', NOW - 2 * H + 10), subDone('d-a', NOW - 2 * H + 20), completed('d-a', NOW - 2 * H + 30)], NOW - 2 * H + 30);
  // d-b's session, its modification time set back (a restore tool) to before its content.
  put('s-b.jsonl', [started('d-b', NOW - H), completed('d-b', NOW - 30 * 60_000 + 30)], NOW - 5 * H);
  // The tracker's session holds d-b's sub-run, written 30 minutes ago: read, it shows d-b is newer than d-a.
  put('s-c.jsonl', [subStarted('d-b', NOW - 30 * 60_000), subDone('d-b', NOW - 30 * 60_000 + 20)], NOW - 30 * 60_000 + 20);

  const last = await runBin(['--sessions', dir, '--format', 'json', '--now', iso(NOW)]);
  expect(JSON.parse(last.stdout).delegations.map((d: { key: string }) => d.key)).toEqual(['d-b']);
  expect(await followLast(dir)).toEqual(['d-b']);
}, 60_000);

it('--follow last follows a delegation that starts after the replay when one of its sub-runs was journaled before its start, in a file the replay left', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-follow-last-'));
  dirs.push(dir);
  const p = (name: string) => path.join(dir, name);
  writeFileSync(p('s-b.jsonl'), journal(started('d-b', NOW - H)));
  // d-c's sub-run is written first, in its own session (the newest file, no start in it): the replay reads only d-b's group.
  writeFileSync(p('s-c.jsonl'), journal(subStarted('d-c', NOW - 30 * 60_000 + 10)));
  const child = spawn(process.execPath, [BIN, '--follow', 'last', '--sessions', dir, '--format', 'ndjson', '--stale-after', '1000000h', '--now', iso(NOW)], {
    env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_POLL_MS: '50', TRACE_DELEGATION_WATCH: '0', TRACE_DELEGATION_NOW: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const exited = new Promise((r) => child.on('exit', r));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  while (!/following \d+ journal files?/.test(err)) await sleep(20);
  expect(err).toMatch(/following 2 journal files/);
  appendFileSync(p('s-a.jsonl'), journal(started('d-c', NOW - 30 * 60_000)));
  await sleep(400);
  appendFileSync(p('s-c.jsonl'), journal(subDone('d-c', NOW - 30 * 60_000 + 20)));
  appendFileSync(p('s-a.jsonl'), journal(completed('d-c', NOW - 30 * 60_000 + 30)));
  const t0 = Date.now();
  while (!out.includes('"d-c"') && Date.now() - t0 < 5000) await sleep(50);
  child.kill('SIGINT');
  await exited;
  clearTimeout(timer);
  const reports = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  // d-c started after d-b: followed, and printed complete with its sub-run, as `last` shows it.
  expect(reports.map((r) => r.key)).toEqual(['d-c']);
  expect(reports[0].status.aggregated).toBe('completed');
  expect(reports[0].findings).toEqual([]);
  const last = await runBin(['--sessions', dir, 'last', '--format', 'json', '--now', iso(NOW)]);
  expect(JSON.parse(last.stdout).delegations.map((d: { key: string }) => d.key)).toEqual(['d-c']);
}, 40_000);

it.each([
  ['truncated', (p: string, text: string) => writeFileSync(p, text)],
  ['replaced (written aside, renamed over it)', (p: string, text: string) => {
    writeFileSync(`${p}.new`, text);
    renameSync(`${p}.new`, p);
  }],
])('--follow last follows a delegation that starts after the replay in a file the replay left, %s since', async (_, change) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-follow-last-'));
  dirs.push(dir);
  const p = (name: string) => path.join(dir, name);
  // An old session, not read by the replay (modified long before the newest delegation started).
  const old = Array.from({ length: 40 }, (_, i) => [started(`d-old${i}`, NOW - 400 * H + i), completed(`d-old${i}`, NOW - 400 * H + i + 1)]).flat();
  writeFileSync(p('s-old.jsonl'), journal(...old));
  utimesSync(p('s-old.jsonl'), new Date(NOW - 399 * H), new Date(NOW - 399 * H));
  writeFileSync(p('s-b.jsonl'), journal(started('d-b', NOW - H), subStarted('d-b', NOW - H + 10), subDone('d-b', NOW - H + 20), completed('d-b', NOW - H + 30)));
  const child = spawn(process.execPath, [BIN, '--follow', 'last', '--sessions', dir, '--format', 'ndjson', '--now', iso(NOW)], {
    env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_POLL_MS: '50', TRACE_DELEGATION_NOW: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const exited = new Promise((r) => child.on('exit', r));
  while (!/following \d+ journal files?/.test(err)) await sleep(20);
  // The old session's file now holds a new delegation only, shorter than what it held.
  change(p('s-old.jsonl'), journal(started('d-c', NOW - 10 * 60_000), subStarted('d-c', NOW - 10 * 60_000 + 10), subDone('d-c', NOW - 10 * 60_000 + 20), completed('d-c', NOW - 10 * 60_000 + 30)));
  const t0 = Date.now();
  while (!out.includes('"d-c"') && Date.now() - t0 < 4000) await sleep(50);
  child.kill('SIGINT');
  await exited;
  clearTimeout(timer);
  // d-c started after d-b: followed, as in any other file; none of the file's new content is the replay's.
  expect(out.trim().split('\n').map((l) => JSON.parse(l).key)).toEqual(['d-b', 'd-c']);
}, 40_000);
