// --follow across the engine's file lifecycle (journal-format.md §1.2): archiving, atomic rewrites,
// truncation. Runs the real binary on a temp tree (built binary: `npm test` builds first).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';
import { killFollowers, READY, sleep, startFollow } from '../helpers/follow.js';

const dirs: string[] = [];
afterEach(() => {
  killFollowers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SID = '11111111-2222-4333-8444-555555555555';

function tree(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-follow-lc-'));
  dirs.push(dir);
  return dir;
}

/** NDJSON reports, polling every 50 ms. */
const follow = (dir: string, args: string[], env: NodeJS.ProcessEnv = {}) => startFollow(dir, ['--format', 'ndjson', ...args], { TRACE_DELEGATION_POLL_MS: '50', ...env });

const printed = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as { key: string; parentRunId: string; limits: string[] });

/** One use of delegation `id`, started by run `parent` a minute ago, whole. */
function use(id: string, parent: string): string[] {
  const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString().replace('Z', '000000+00:00');
  const run = `r-${parent}`;
  return [
    ev.started(at(0), { delegation_id: id, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['coder'] }),
    ev.subStarted(at(1), { delegation_id: id, sub_run_id: run, parent_run_id: parent, agent_id: 'coder' }),
    ev.subCompleted(at(2), { delegation_id: id, sub_run_id: run, agent_id: 'coder', status: 'completed', output_preview: `out ${parent}` }),
    ev.completed(at(3), { delegation_id: id, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `out ${parent}` }),
  ];
}

describe('--follow: the journal lifecycle', () => {
  it.each([
    ['archived (the .jsonl.gz written beside it, then the journal removed)', (p: string) => {
      const body = readFileSync(p);
      writeFileSync(`${p}.gz.tmp`, gzipSync(body));
      renameSync(`${p}.gz.tmp`, `${p}.gz`);
      return sleep(300).then(() => rmSync(p));
    }],
    ['replaced by a copy of itself (written aside, renamed over it)', (p: string) => {
      writeFileSync(`${p}.new`, readFileSync(p));
      renameSync(`${p}.new`, p);
    }],
  ])('does not print an earlier use of a reused id again when its journal is %s: only its Limits line changed', async (_, change) => {
    const dir = tree();
    const p = path.join(dir, `${SID}.jsonl`);
    writeFileSync(p, journal(...use('d-x', 'P1')));
    const f = follow(dir, []);
    await f.waitFor(READY, 30_000, 'stderr');
    await f.waitFor(/"parentRunId":"P1"/);
    appendFileSync(p, journal(...use('d-x', 'P2'))); // the same id, used again by another run
    await f.waitFor(/"parentRunId":"P2"/);
    await change(p);
    await sleep(1500); // many polls: the journal is read again from its start
    expect(await f.stop()).toBe(0);
    // The first use was printed before the second existed, so without the reused line; the second carries it.
    expect(printed(f.out()).map((d) => [d.key, d.parentRunId, d.limits.some((l) => l.startsWith('delegation id reused'))])).toEqual([
      ['d-x', 'P1', false],
      ['d-x#2', 'P2', true],
    ]);
    expect(f.err()).not.toMatch(/changed since its report/);
    // The plain command on the final tree names the same two uses.
    const all = spawnSync(process.execPath, [BIN, '--all', '--sessions', dir, '--format', 'ndjson', '--fail-on', 'none'], { encoding: 'utf8' });
    expect(printed(all.stdout).map((d) => [d.key, d.parentRunId])).toEqual([
      ['d-x', 'P1'],
      ['d-x#2', 'P2'],
    ]);
  });

  it('does not print a stale open delegation again when its session, moved to the other layout, goes on: only the journal its cause names changed', async () => {
    const dir = tree();
    const p = path.join(dir, `${SID}.jsonl`);
    const t0 = Date.now() - 60_000;
    const at = (s: number) => new Date(t0 + s * 1000).toISOString().replace('Z', '000000+00:00');
    const turn = (ts: string) => JSON.stringify({ type: 'turn', ts, session_id: SID, turn: 1 });
    writeFileSync(p, journal(
      ev.started(at(0), { delegation_id: 'd-open', parent_run_id: 'P', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.subStarted(at(1), { delegation_id: 'd-open', sub_run_id: 'r-1', parent_run_id: 'P', agent_id: 'coder' }),
      turn(at(2)),
    ));
    const f = follow(dir, ['--stale-after', '1s']);
    await f.waitFor(READY, 30_000, 'stderr');
    await f.waitFor(/engine error/); // its session went on after its last event
    const moved = path.join(dir, 'v1', 'users', 'b64-bG9jYWw', 'sessions', `${SID}.jsonl`);
    mkdirSync(path.dirname(moved), { recursive: true });
    renameSync(p, moved);
    await sleep(500);
    appendFileSync(moved, journal(turn(at(3)))); // and goes on there: judged again once quiet
    await sleep(2500);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n')).toHaveLength(1);
    expect(f.err()).not.toMatch(/what its report says changed/);
    // The plain command on the final tree gives the same cause, naming the journal where it is now.
    const all = spawnSync(process.execPath, [BIN, '--all', '--stale-after', '1s', '--sessions', dir, '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const cause = (out: string) => (JSON.parse(out.trim()) as { findings: { id: string; message: string }[] }).findings.find((x) => x.id === 'delegation-incomplete')!.message;
    expect(cause(all.stdout)).toBe(`no delegation_completed: engine error (${path.relative(dir, moved)} goes on to line 4 after its last event)`);
    expect(cause(f.out())).toBe(`no delegation_completed: engine error (${SID}.jsonl goes on to line 3 after its last event)`);
  });

  it('finds a session in layout folders made one level at a time after it started, from the watch events, not the polls', async () => {
    const dir = tree();
    // Polls far apart: only the folders' watch events can find the new session in time.
    const f = follow(dir, [], { TRACE_DELEGATION_POLL_MS: '60000' });
    await f.waitFor(READY, 30_000, 'stderr');
    const sessions = path.join(dir, 'v1', 'users', 'b64-bG9jYWw', 'sessions');
    for (const level of [path.join(dir, 'v1'), path.join(dir, 'v1', 'users'), path.dirname(sessions), sessions]) {
      mkdirSync(level);
      await sleep(300); // each level noticed before the next one is made
    }
    writeFileSync(path.join(sessions, `${SID}.jsonl`), journal(...use('d-new', 'P')));
    const began = Date.now();
    await f.waitFor(/"key":"d-new"/);
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(await f.stop()).toBe(0);
  });
  it.each([
    ['plain lines replaced by gzip data', false, true],
    ['gzip data replaced by plain lines', true, false],
    ['plain lines replaced by plain lines', false, false],
  ])('reads a plain-named journal as the plain command does after it is replaced: %s', async (_, gzipBefore, gzipAfter) => {
    const dir = tree();
    const p = path.join(dir, `${SID}.jsonl`);
    // Gzip data under the plain name: a link to an archive's bytes, which the plain command reads as an archive.
    const bytes = (text: string, gzip: boolean) => (gzip ? gzipSync(text) : text);
    const first = journal(...use('d-1', 'P1'));
    writeFileSync(p, bytes(first, gzipBefore));
    const f = follow(dir, []);
    await f.waitFor(READY, 30_000, 'stderr');
    await f.waitFor(/"key":"d-1"/);
    const text = first + journal(...use('d-2', 'P2'));
    writeFileSync(`${p}.new`, bytes(text, gzipAfter));
    renameSync(`${p}.new`, p);
    await f.waitFor(/"key":"d-2"/, 5_000);
    await sleep(500);
    expect(await f.stop()).toBe(0);
    expect(printed(f.out()).map((d) => d.key)).toEqual(['d-1', 'd-2']);
    const all = spawnSync(process.execPath, [BIN, '--all', '--sessions', dir, '--format', 'ndjson', '--fail-on', 'none'], { encoding: 'utf8' });
    expect(printed(all.stdout).map((d) => d.key)).toEqual(['d-1', 'd-2']);
  });
});
