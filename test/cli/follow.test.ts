// --follow runs the real binary on a temp tree while the test appends to its journals.
// (Built binary: `npm test` builds first; otherwise run `npx tsc -p .`.)
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FIXTURES } from '../helpers/cli.js';
import { hasMkfifo, mkfifo } from '../helpers/fifo.js';
import { ev, journal } from '../helpers/journal.js';
import { killFollowers, READY, sleep, startFollow } from '../helpers/follow.js';

const dirs: string[] = [];
afterEach(() => {
  killFollowers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const follow = startFollow;

const iso = (ms = Date.now()) => new Date(ms).toISOString().replace('Z', '000000+00:00');

function tree(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-follow-'));
  dirs.push(dir);
  return dir;
}

const started = (id: string, ts = iso()) => ev.started(ts, { delegation_id: id, parent_run_id: `p-${id}`, pattern: 'fan_out', agent_ids: ['coder'] });
const subStarted = (id: string, ts = iso()) => ev.subStarted(ts, { delegation_id: id, sub_run_id: `r-${id}`, parent_run_id: `p-${id}`, agent_id: 'coder' });
const subDone = (id: string, ts = iso()) => ev.subCompleted(ts, { delegation_id: id, sub_run_id: `r-${id}`, agent_id: 'coder', status: 'completed', output_preview: `done ${id}` });
const completed = (id: string, ts = iso()) => ev.completed(ts, { delegation_id: id, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `done ${id}` });
const whole = (id: string) => [started(id), subStarted(id), subDone(id), completed(id)];

/** A tree of one journal holding delegation `id` whole, followed as NDJSON until its report is out. */
async function followingOne(id: string, target: string[] = []): Promise<{ dir: string; file: string; f: Follow }> {
  const dir = tree();
  const file = path.join(dir, 's-1.jsonl');
  writeFileSync(file, journal(...whole(id)));
  const f = follow(dir, [...target, '--format', 'ndjson']);
  await f.waitFor(READY, 45_000, 'stderr');
  await f.waitFor(new RegExp(`"id":"${id}"`));
  return { dir, file, f };
}

/**
 * Delegation `id` (coder and tester, a minute ago) whose join came before the tester's result:
 * `joined` is its start, both runs, the coder's result and the join (partial, 1 of 2); `late` is
 * the tester's result, after the join.
 */
function missedJoin(id: string): { joined: string[]; late: string } {
  const t0 = Date.now() - 60_000;
  const at = (s: number) => iso(t0 + s * 1000);
  const parent = `p-${id}`;
  const run = (agent: string, s: number) => ev.subStarted(at(s), { delegation_id: id, sub_run_id: `r-${agent}`, parent_run_id: parent, agent_id: agent });
  const done = (agent: string, s: number) => ev.subCompleted(at(s), { delegation_id: id, sub_run_id: `r-${agent}`, agent_id: agent, status: 'completed', output_preview: `${agent} out` });
  return {
    joined: [
      ev.started(at(0), { delegation_id: id, parent_run_id: parent, pattern: 'fan_out', agent_ids: ['coder', 'tester'] }),
      run('coder', 1),
      run('tester', 1),
      done('coder', 2),
      ev.completed(at(5), { delegation_id: id, pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial', aggregated_output_preview: 'coder out' }),
    ],
    late: done('tester', 8),
  };
}

describe('--follow', () => {
  it('replays, then prints each delegation as it completes, waiting for a partial line to end', async () => {
    const dir = tree();
    const journalPath = path.join(dir, 's-1.jsonl');
    writeFileSync(journalPath, journal(...whole('d-1'), started('d-2')));
    const f = follow(dir, []);
    await f.waitFor(/Delegation Trace: d-1/); // replayed
    expect(f.out()).not.toContain('d-2');

    appendFileSync(journalPath, journal(subStarted('d-2'), subDone('d-2')));
    const last = completed('d-2');
    appendFileSync(journalPath, last.slice(0, 80)); // the writer is mid-line
    await sleep(800); // several polls and file events
    expect(f.out()).not.toContain('Delegation Trace: d-2');
    appendFileSync(journalPath, `${last.slice(80)}\n`);
    await f.waitFor(/Delegation Trace: d-2[\s\S]*delegation completed: succeeded=1 failed=0 status=completed/);

    // A new session in a new owner folder is picked up too.
    const owner = path.join(dir, 'v1', 'users', 'b64-bmV3', 'sessions');
    mkdirSync(owner, { recursive: true });
    writeFileSync(path.join(owner, 's-2.jsonl'), journal(...whole('d-3')));
    await f.waitFor(/Delegation Trace: d-3/);

    expect(await f.stop()).toBe(0);
    const out = f.out();
    expect(out.match(/Delegation Trace: /g)).toHaveLength(3); // each printed once
    expect(out.indexOf('d-1')).toBeLessThan(out.indexOf('Delegation Trace: d-2'));
    expect(out).not.toMatch(/malformed|partial/i); // the half-written line was never consumed as one
    expect(f.err()).toBe(`trace-delegation: following 1 journal file under ${dir} (Ctrl-C to stop)\n`);
  });

  it('warns about a delegation that stays open past --stale-after, and reports it when it completes', async () => {
    const dir = tree();
    const journalPath = path.join(dir, 's-1.jsonl');
    writeFileSync(journalPath, journal(started('d-open'), subStarted('d-open')));
    const f = follow(dir, ['--stale-after', '1s']);
    await f.waitFor(/Delegation Trace: d-open/);
    expect(f.err()).toMatch(/delegation d-open is still open: no delegation_completed and nothing new in its journals for (\d+[smhd] ?)+ \(--stale-after 1s\)/);
    expect(f.out()).toMatch(/\[warning\] delegation-incomplete: no delegation_completed/);
    expect(f.out()).toMatch(/missing-completion: sub-run r-d-open \(agent coder\) started but never completed/);

    appendFileSync(journalPath, journal(subDone('d-open'), completed('d-open')));
    await f.waitFor(/delegation completed: succeeded=1 failed=0 status=completed/);
    expect(await f.stop()).toBe(0);
    expect(f.out().match(/Delegation Trace: d-open/g)).toHaveLength(2); // the warning, then the final report
  });

  it("says a journal's torn last line in a stale report, as --all does, without printing it again for that", async () => {
    const dir = tree();
    const journalPath = path.join(dir, 's-1.jsonl');
    writeFileSync(journalPath, journal(started('d-torn'), subStarted('d-torn')));
    const f = follow(dir, ['--stale-after', '4s']);
    await f.waitFor(READY, 45_000, 'stderr');
    expect(f.out()).toBe(''); // not stale yet: the torn line below is there when it goes stale
    appendFileSync(journalPath, completed('d-torn').slice(0, 80)); // the writer crashed mid-line
    await f.waitFor(/Delegation Trace: d-torn[\s\S]*Limits:/);
    await sleep(1500); // judged at every poll since: nothing new, nothing printed again
    expect(await f.stop()).toBe(0);
    const torn = 's-1.jsonl: the last line has no trailing newline; it may still be being written.';
    expect(f.out()).toContain(`- ${torn}`);
    expect(f.out().match(/Delegation Trace: d-torn/g)).toHaveLength(1);
    expect(f.err().match(/is still open/g)).toHaveLength(1);
    const all = spawnSync(process.execPath, [BIN, '--all', '--sessions', dir, '--stale-after', '4s', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(all.stdout).toContain(`- ${torn}`);
    // The cause too: the torn line is the write the crash interrupted, in both.
    const crashed = (text: string) => text.split('\n').filter((l) => l.includes('crashed ('));
    expect(crashed(f.out())).toHaveLength(2);
    expect(crashed(f.out())[0]).toContain('a line cut short follows');
    expect(crashed(f.out())).toEqual(crashed(all.stdout));
  });

  it('prints a stale report once when its journal, ending in a torn line, is then archived', async () => {
    // The archive is read to its end, the torn line counted: the stale report read it so already.
    const dir = tree();
    const journalPath = path.join(dir, 's-1.jsonl');
    writeFileSync(journalPath, journal(started('d-torn'), subStarted('d-torn')));
    const f = follow(dir, ['--stale-after', '3s']);
    await f.waitFor(READY, 45_000, 'stderr');
    appendFileSync(journalPath, `{"type":"llm_round","ts":"${iso(Date.now() + 1000)}","text":"cut`);
    await f.waitFor(/Delegation Trace: d-torn[\s\S]*Limits:/);
    writeFileSync(`${journalPath}.gz`, gzipSync(readFileSync(journalPath)));
    unlinkSync(journalPath);
    await sleep(2500); // the archive is found and read within a poll or two
    expect(await f.stop()).toBe(0);
    expect(f.out().match(/Delegation Trace: d-torn/g)).toHaveLength(1);
    expect(f.err()).not.toContain('what its report says changed');
  });

  it('drops an open delegation whose journal is removed (not archived) before it goes stale: no report citing the deleted file', async () => {
    const dir = tree();
    const gone = path.join(dir, 's-1.jsonl');
    writeFileSync(gone, journal(started('d-gone'), subStarted('d-gone')));
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(...whole('d-stays')));
    const f = follow(dir, ['--stale-after', '2s', '--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-stays"/);
    unlinkSync(gone);
    await sleep(3500); // past --stale-after: a delegation still held would be reported now
    expect(await f.stop()).toBe(0);
    expect(f.out()).not.toMatch(/d-gone/);
    expect(f.err()).not.toMatch(/d-gone/);
  });

  it('waits for its whole session to be quiet before the stale notice, and says it again when its session goes on and the report changes', async () => {
    const dir = tree();
    // The delegation's events in the archive; nothing after them yet: "crashed".
    writeFileSync(path.join(dir, 's-9.jsonl.gz'), gzipSync(journal(started('d-arch', iso(Date.now() - 5000)), subStarted('d-arch', iso(Date.now() - 4900)))));
    const f = follow(dir, ['--stale-after', '1s', '--format', 'ndjson']);
    await f.waitFor(/crashed/);
    // The session goes on in its plain journal: when that is quiet too, the report says engine error.
    writeFileSync(path.join(dir, 's-9.jsonl'), journal(JSON.stringify({ type: 'turn', ts: iso(), session_id: 's-9', turn: 2 })));
    await f.waitFor(/engine error \(its session goes on in/);
    expect(await f.stop()).toBe(0);
    expect(f.err()).toMatch(/delegation d-arch is still open: .*; what its report says changed/);
    const causes = f.out().trim().split('\n').map((l) => JSON.parse(l).findings.find((x: { id: string }) => x.id === 'delegation-incomplete')?.message);
    expect(causes.map((m: string) => /: (crashed|engine error|still running)/.exec(m)?.[1])).toEqual(['crashed', 'engine error']);
  });

  it('follows only the target it is given', async () => {
    const dir = tree();
    const journalPath = path.join(dir, 's-1.jsonl');
    writeFileSync(journalPath, journal(started('d-a'), started('d-b')));
    const f = follow(dir, ['d-b', '--format', 'json']);
    await f.waitFor(READY, 45_000, 'stderr');
    appendFileSync(journalPath, journal(subStarted('d-a'), subDone('d-a'), completed('d-a'), subStarted('d-b'), subDone('d-b'), completed('d-b')));
    await f.waitFor(/"id": "d-b"/);
    expect(await f.stop()).toBe(0);
    expect(f.out()).not.toContain('"id": "d-a"');
    expect(JSON.parse(f.out()).delegations.map((d: { id: string }) => d.id)).toEqual(['d-b']);
  });

  it('last follows the newest delegation and every one that starts after it', async () => {
    const dir = tree();
    const journalPath = path.join(dir, 's-1.jsonl');
    writeFileSync(journalPath, journal(...whole('d-old'), started('d-new')));
    const f = follow(dir, ['last']);
    // The replay must end before the append, or the appended starts are part of it.
    await f.waitFor(READY, 45_000, 'stderr');
    // Two delegations start and finish within one look, then the replay's newest completes.
    appendFileSync(journalPath, journal(...whole('d-x'), ...whole('d-y'), subStarted('d-new'), subDone('d-new'), completed('d-new')));
    await f.waitFor(/Delegation Trace: d-new/);
    await f.waitFor(/Delegation Trace: d-y/);
    expect(await f.stop()).toBe(0);
    const printed = [...f.out().matchAll(/Delegation Trace: (\S+)/g)].map((m) => m[1]).sort();
    expect(printed).toEqual(['d-new', 'd-x', 'd-y']);
  });

  it.each([
    ['as the engine leaves them', false],
    ['all new, as a copy leaves them (the tree is indexed to find the newest start)', true],
  ])('last replays only the files it needs (modification times %s); the others are read when they change, their old lines as replay', async (_, copied) => {
    const dir = tree();
    const HOUR = 3600_000;
    const now = Date.now();
    /** A journal whose modification time is its last event's, as the engine's appends leave it (or now, once copied). */
    const put = (name: string, lines: string[], ms: number) => {
      const p = path.join(dir, name);
      writeFileSync(p, journal(...lines));
      if (!copied) utimesSync(p, new Date(ms), new Date(ms));
      return p;
    };
    const at = (ms: number) => iso(ms);
    const old = (id: string, ms: number) => [started(id, at(ms)), subStarted(id, at(ms + 10)), subDone(id, at(ms + 20)), completed(id, at(ms + 30))];
    // Old sessions. d-x, still open, has its events in s-x, which nothing touches again.
    const fileA = put('s-a.jsonl', [...old('d-a', now - 50 * HOUR), started('d-z', at(now - 49 * HOUR))], now - 49 * HOUR);
    put('s-x.jsonl', [started('d-x', at(now - 49 * HOUR)), subStarted('d-x', at(now - 49 * HOUR + 10))], now - 49 * HOUR + 10);
    const fileB = put('s-b.jsonl', old('d-b', now - 48 * HOUR), now - 48 * HOUR);
    const fileC = put('s-c.jsonl', [started('d-c', at(now - 47 * HOUR)), subStarted('d-c', at(now - 47 * HOUR + 10))], now - 47 * HOUR);
    // The newest delegation, started an hour ago and still running.
    const fileN = put('s-n.jsonl', [started('d-n', at(now - HOUR)), subStarted('d-n', at(now - HOUR + 10))], now - HOUR + 10);

    const f = follow(dir, ['last', '--format', 'ndjson', '--stale-after', '5h']);
    await f.waitFor(READY, 45_000, 'stderr');
    expect(f.err()).toMatch(/following 5 journal files/);
    // Late events of old delegations, appended to files the replay did not read: not new delegations.
    appendFileSync(fileB, journal(subDone('d-x'), completed('d-x'))); // d-x's start is in s-x, still unread
    appendFileSync(fileC, journal(subDone('d-c'), completed('d-c'))); // d-c's start is in s-c itself
    // A new delegation in an old file: printed, with the line numbers of the whole file.
    appendFileSync(fileA, journal(...whole('d-new')));
    await f.waitFor(/"id":"d-new"/);
    appendFileSync(fileN, journal(subDone('d-n'), completed('d-n')));
    await f.waitFor(/"id":"d-n"/);
    await sleep(600); // a few more polls: nothing else comes
    expect(await f.stop()).toBe(0);

    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string }) => d.id).sort()).toEqual(['d-n', 'd-new']);
    const dNew = printed.find((d: { id: string }) => d.id === 'd-new');
    const linesOfA = readFileSync(fileA, 'utf8').trimEnd().split('\n');
    expect(dNew.timeline.map((t: { line: number }) => t.line)).toEqual([6, 7, 8, 9]); // after s-a's five old lines
    for (const t of dNew.timeline) expect(linesOfA[t.line - 1]).toContain('"delegation_id":"d-new"');
    expect(dNew.findings.filter((x: { severity: string }) => x.severity !== 'info')).toEqual([]);
  });

  it.skipIf(process.platform !== 'linux')('last on a tree copied without its dates does not hold the whole tree while following', async () => {
    const dir = tree();
    const now = Date.now();
    for (let f = 0; f < 40; f++) {
      const lines: string[] = [];
      for (let k = 0; k < 250; k++) {
        const id = `d-${f}-${k}`;
        const t = now - 86_400_000 + (f * 250 + k) * 60_000;
        lines.push(started(id, iso(t)), subStarted(id, iso(t + 10)), subDone(id, iso(t + 20)), completed(id, iso(t + 30)));
      }
      writeFileSync(path.join(dir, `s-${f}.jsonl`), journal(...lines)); // 40,000 events, all files new
    }
    const peakWhileFollowing = async (args: string[], root = dir) => {
      const f = follow(root, [...args, '--format', 'ndjson']);
      await f.waitFor(READY, 90_000, 'stderr'); // the tree indexed, on a loaded CI machine
      const kib = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${f.child.pid}/status`, 'utf8'))![1]);
      expect(await f.stop()).toBe(0);
      return { kib, out: f.out() };
    };
    const last = await peakWhileFollowing(['last']);
    expect(last.out.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-39-249']);
    const idle = await peakWhileFollowing([], tree()); // a follower of nothing
    // Measured: 28 MB above an idle follower; 88 MB when last replayed every file into memory.
    expect(last.kib - idle.kib).toBeLessThan(45 * 1024);
  }, 240_000);

  it.skipIf(!hasMkfifo)('a followed journal replaced by a FIFO is never opened for reading: the other journals go on', async () => {
    const dir = tree();
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-1')));
    const swapped = path.join(dir, 's-2.jsonl');
    writeFileSync(swapped, journal(started('d-2')));
    const f = follow(dir, []);
    await f.waitFor(READY, 45_000, 'stderr');
    unlinkSync(swapped);
    mkfifo(swapped); // opening it for reading would wait for a writer
    await sleep(600); // several polls
    appendFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-3')));
    await f.waitFor(/Delegation Trace: d-3/);
    expect(await f.stop()).toBe(0);
  });

  it("checks each delegation against its linked group and every other group's outputs, as --all does", async () => {
    // A stale artifact: d-new's and d-live's aggregates hold d-old's output, in a group of its own.
    const dir = tree();
    const stale = 'stale artifact of an earlier run: the schema migration plan';
    const at = (s: number) => iso(Date.parse('2026-03-01T10:00:00Z') + s * 1000);
    const delegation = (id: string, t: number, preview: string, aggregate: string) => [
      started(id, at(t)),
      subStarted(id, at(t + 1)),
      ev.subCompleted(at(t + 2), { delegation_id: id, sub_run_id: `r-${id}`, agent_id: 'coder', status: 'completed', output_preview: preview }),
      ev.completed(at(t + 3), { delegation_id: id, pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: aggregate }),
    ];
    writeFileSync(path.join(dir, 's-old.jsonl'), journal(...delegation('d-old', 0, stale, stale)));
    writeFileSync(path.join(dir, 's-new.jsonl'), journal(...delegation('d-new', 10, 'fresh work', `fresh work\n---\n${stale}`)));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    writeFileSync(path.join(dir, 's-live.jsonl'), journal(...delegation('d-live', 20, 'live work', `live work\n---\n${stale}`)));
    await f.waitFor(/"id":"d-live"/);
    expect(await f.stop()).toBe(0);

    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const expected = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string }) => d.id)).toEqual(['d-old', 'd-new', 'd-live']);
    expect(printed).toEqual(expected);
    for (const id of ['d-new', 'd-live']) {
      const block = printed.find((d: { id: string }) => d.id === id);
      expect(block.findings.map((x: { message: string }) => x.message).join('\n')).toContain('of delegation d-old');
    }
  });

  it('puts live delegations to sleep once quiet, and wakes them as --all would read them: a late event, an output in another aggregate, a rewrite', async () => {
    // Every quiet group sleeps after 1 ms (30 s by default): each live delegation below is asleep
    // by the time the next event comes, and the reports must be the ones of holding every event.
    const dir = tree();
    const stale = 'stale artifact of an earlier run: the schema migration plan';
    const at = (s: number) => iso(Date.now() - 120_000 + s * 1000);
    const f = follow(dir, ['--format', 'ndjson'], { TRACE_DELEGATION_SLEEP_AFTER_MS: '1' });
    await f.waitFor(READY, 45_000, 'stderr');
    const live = path.join(dir, 's-live.jsonl');
    const { joined, late } = missedJoin('d-late');
    writeFileSync(live, journal(...joined));
    await f.waitFor(/"id":"d-late"/);
    appendFileSync(live, journal(started('d-old', at(10)), subStarted('d-old', at(11)), ev.subCompleted(at(12), { delegation_id: 'd-old', sub_run_id: 'r-d-old', agent_id: 'coder', status: 'completed', output_preview: stale }), completed('d-old', at(13))));
    await f.waitFor(/"id":"d-old"/);
    await sleep(500); // several evaluations: both sleep
    // d-new's aggregate holds the sleeping d-old's output; the tester's late result wakes d-late.
    appendFileSync(live, journal(started('d-new', at(20)), subStarted('d-new', at(21)), subDone('d-new', at(22)), ev.completed(at(23), { delegation_id: 'd-new', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `done\n---\n${stale}` })));
    await f.waitFor(/"id":"d-new"/);
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(late));
    await f.waitFor(/delegation d-late has 1 new event since its report: reported again/, 45_000, 'stderr');
    await sleep(500);
    // The journal rewritten with d-old's result failed: the sleeping d-old wakes and is reported again.
    const failed = readFileSync(live, 'utf8').replace(`"sub_run_id":"r-d-old","agent_id":"coder","status":"completed"`, `"sub_run_id":"r-d-old","agent_id":"coder","status":"failed"`);
    expect(failed).not.toBe(readFileSync(live, 'utf8'));
    writeFileSync(`${live}.tmp`, failed);
    renameSync(`${live}.tmp`, live);
    await f.waitFor(/delegation d-old changed since its report/, 45_000, 'stderr');
    await sleep(300);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const expected = new Map(all.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((d) => [d.id, d]));
    const lastOf = new Map(printed.map((d) => [d.id, d]));
    for (const id of ['d-late', 'd-new']) expect(lastOf.get(id), id).toEqual(expected.get(id));
    // d-old's last report is its rewritten one (d-new, reported before the rewrite, is not reprinted: its own lines did not change).
    expect(lastOf.get('d-old').findings.map((x: { id: string }) => x.id)).toEqual(expected.get('d-old').findings.map((x: { id: string }) => x.id));
    expect(lastOf.get('d-late').findings.map((x: { id: string }) => x.id)).toContain('late-result');
    expect(printed.find((d) => d.id === 'd-new').findings.map((x: { message: string }) => x.message).join('\n')).toContain('of delegation d-old');
  });

  it('replays journals and archives interleaved as --all reads them', async () => {
    const dir = tree();
    const at = (s: number) => iso(Date.parse('2026-03-01T10:00:00Z') + s * 1000);
    const delegation = (id: string, t: number) => [started(id, at(t)), subStarted(id, at(t + 1)), subDone(id, at(t + 2)), completed(id, at(t + 3))];
    const filler = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ type: 'llm_round', ts: at(0), i, text: 'x'.repeat(2000) }));
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...delegation('d-1', 0), ...filler(50)));
    writeFileSync(path.join(dir, 's-2.jsonl.gz'), gzipSync(journal(...delegation('d-2', 10), ...filler(200))));
    writeFileSync(path.join(dir, 's-3.jsonl'), journal(...delegation('d-3', 20)));
    writeFileSync(path.join(dir, 's-4.jsonl.gz'), gzipSync(journal(...filler(100), ...delegation('d-4', 30))));
    const f = follow(dir, ['--format', 'ndjson', '--all']);
    await f.waitFor(READY, 45_000, 'stderr');
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    expect(printed.map((d: { id: string }) => d.id)).toEqual(['d-1', 'd-2', 'd-3', 'd-4']);
    expect(printed).toEqual(all.stdout.trim().split('\n').map((l) => JSON.parse(l)));
  });

  it("judges an open delegation by its whole session, as --all does: the plain journal going on after its archive is an engine error", async () => {
    const dir = tree();
    cpSync(path.join(FIXTURES, 'checks', 'delegation-incomplete', 'trigger-engine-error-archived'), dir, { recursive: true });
    const now = { TRACE_DELEGATION_NOW: '2026-03-11T00:00:00Z' };
    const f = follow(dir, ['--format', 'ndjson', '--all'], now);
    await f.waitFor(READY, 45_000, 'stderr');
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...now } });
    const findings = (docs: { findings: { message: string }[] }[]) => docs.flatMap((d) => d.findings.map((x) => x.message));
    expect(findings(printed).some((m) => m.includes('engine error (its session goes on in'))).toBe(true);
    expect(findings(printed)).toEqual(findings(all.stdout.trim().split('\n').map((l) => JSON.parse(l))));
  });

  it('reads a journal replaced by another file (written aside and renamed over it) from the start', async () => {
    const { file, f } = await followingOne('d-a');
    // Larger than before, and different from its first byte: read from the old offset it would
    // start mid-line and lose d-replacing's start.
    writeFileSync(`${file}.tmp`, journal(...whole('d-replacing-with-a-longer-id'), ...whole('d-a')));
    renameSync(`${file}.tmp`, file);
    await f.waitFor(/"id":"d-replacing-with-a-longer-id"/);
    await sleep(400);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    const replacing = printed.find((d: { id: string }) => d.id === 'd-replacing-with-a-longer-id');
    expect(replacing.findings.filter((x: { severity: string }) => x.severity !== 'info')).toEqual([]);
    expect(replacing.timeline.map((t: { line: number }) => t.line)).toEqual([1, 2, 3, 4]);
    expect(f.err()).not.toMatch(/malformed|orphan/);
  });

  it('keeps a line repeated within one journal, as --all does (only a .jsonl.gz sibling can repeat it)', async () => {
    const dir = tree();
    const at = (s: number) => iso(Date.parse('2026-03-01T10:00:00Z') + s * 1000);
    const done = subDone('d-rep', at(2));
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(started('d-rep', at(0)), subStarted('d-rep', at(1)), done, done, completed('d-rep', at(3))));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-rep"/);
    expect(await f.stop()).toBe(0);
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const [followed] = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(followed.timeline.map((t: { line: number }) => t.line)).toEqual([1, 2, 3, 4, 5]);
    expect(followed).toEqual(JSON.parse(all.stdout));
  });

  it('reads a journal rewritten in place (cp over it, larger) from the start: its first bytes changed', async () => {
    const { file, f } = await followingOne('d-a');
    writeFileSync(file, journal(...whole('d-rewritten-in-place-with-a-longer-id'), ...whole('d-b'))); // same inode
    await f.waitFor(/"id":"d-b"/);
    await sleep(300);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string }) => d.id)).toEqual(['d-a', 'd-rewritten-in-place-with-a-longer-id', 'd-b']);
    for (const d of printed) expect(d.findings.filter((x: { severity: string }) => x.severity !== 'info'), d.id).toEqual([]);
  });

  it('reads a journal rewritten in place with its first bytes kept from the start: same size, or a shorter line then an append', async () => {
    const { file, f } = await followingOne('d-a');
    // Same size, one value changed in the middle (same inode, first bytes kept): written again with no byte added.
    const before = readFileSync(file, 'utf8');
    const failed = before.replace('"aggregated_status":"completed"', '"aggregated_status":"failed"   ');
    expect(failed.length).toBe(before.length);
    writeFileSync(file, failed);
    await f.waitFor(/"id":"d-a"[\s\S]*"id":"d-a"/);
    // An earlier line 3 bytes shorter, and a new delegation after it: the old offset falls inside a line.
    writeFileSync(file, failed.replace('"aggregated_status":"failed"   ', '"aggregated_status":"failed"') + journal(...whole('d-b')));
    await f.waitFor(/"id":"d-b"/);
    await sleep(300);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string; status: { aggregated: string } }) => `${d.id} ${d.status.aggregated}`)).toEqual(['d-a completed', 'd-a failed', 'd-b completed']);
    const all = spawnSync(process.execPath, [BIN, '--sessions', path.dirname(file), '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: path.dirname(file), encoding: 'utf8' });
    expect(printed.slice(1)).toEqual(all.stdout.trim().split('\n').map((l) => JSON.parse(l)));
  });

  it('without watch events, polls every file in turn: a quiet one among 700 is read within a few polls', async () => {
    const dir = tree();
    for (let i = 0; i < 700; i++) writeFileSync(path.join(dir, `s-${String(i).padStart(3, '0')}.jsonl`), i === 0 ? journal(...whole('d-first')) : '');
    const f = follow(dir, ['--format', 'ndjson'], { TRACE_DELEGATION_WATCH: '0', TRACE_DELEGATION_POLL_MS: '50' });
    await f.waitFor(READY, 45_000, 'stderr');
    // Files that changed lately are looked at every poll; these were only read by the replay.
    appendFileSync(path.join(dir, 's-350.jsonl'), journal(...whole('d-quiet-middle')));
    appendFileSync(path.join(dir, 's-699.jsonl'), journal(...whole('d-quiet-last')));
    await f.waitFor(/"id":"d-quiet-middle"/);
    await f.waitFor(/"id":"d-quiet-last"/);
    // A file that just changed is now looked at every poll: its next append comes at the next one.
    appendFileSync(path.join(dir, 's-350.jsonl'), journal(...whole('d-active')));
    await f.waitFor(/"id":"d-active"/, 2_000);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id).sort()).toEqual(['d-active', 'd-first', 'd-quiet-last', 'd-quiet-middle']);
  });

  it('does not double a live journal\'s events when its .jsonl.gz archive is written beside it in steps', async () => {
    const dir = tree();
    const t0 = Date.now() - 60_000; // recent: not stale when the replay ends
    const at = (s: number) => iso(t0 + s * 1000);
    const lines = [started('d-arch', at(0)), subStarted('d-arch', at(1)), subDone('d-arch', at(2)), completed('d-arch', at(3))];
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...lines.slice(0, 3)));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    writeFileSync(path.join(dir, 's-1.jsonl.gz'), gzipSync(journal(...lines.slice(0, 2))));
    await sleep(400);
    writeFileSync(path.join(dir, 's-1.jsonl.gz'), gzipSync(journal(...lines.slice(0, 3))));
    await sleep(400);
    appendFileSync(path.join(dir, 's-1.jsonl'), journal(lines[3]));
    await f.waitFor(/"id":"d-arch"/);
    expect(await f.stop()).toBe(0);
    const [report] = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(report.timeline.map((t: { kind: string }) => t.kind)).toEqual(['started', 'sub-run started', 'sub-run completed', 'delegation completed']);
    expect(report.limits.join('\n')).not.toMatch(/more than once/);
  });

  it('does not print a session\'s delegations again while its archive is written in steps, then the journal removed', async () => {
    // gzip(1) writes the .jsonl.gz as it goes: read early, it is cut short (a Limits line about the
    // file), which is how the archive was read, not news about the delegations.
    const dir = tree();
    const sid = 's-g';
    const filler = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ type: 'turn', ts: iso(), session_id: sid, turn: i, assistant_output: `${i} ${'lorem ipsum '.repeat(100)}${Math.random()}` }));
    const text = journal(...whole('d-g1'), ...filler, ...whole('d-g2'));
    writeFileSync(path.join(dir, `${sid}.jsonl`), text);
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-g2"/);
    const gz = gzipSync(text);
    const archive = path.join(dir, `${sid}.jsonl.gz`);
    for (let at = 0; at < gz.length; at += Math.ceil(gz.length / 4)) {
      appendFileSync(archive, gz.subarray(at, at + Math.ceil(gz.length / 4)));
      await sleep(500);
    }
    unlinkSync(path.join(dir, `${sid}.jsonl`));
    await sleep(1000);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-g1', 'd-g2']);
    expect(f.err()).not.toMatch(/reported again/);
  });

  it('prints an open delegation again when its cause changes, not when only the line its session goes on to moves', async () => {
    const dir = tree();
    const file = path.join(dir, 's-o.jsonl');
    writeFileSync(file, journal(started('d-o', iso(Date.now() - 5000)), subStarted('d-o', iso(Date.now() - 4900))));
    const f = follow(dir, ['--stale-after', '1s', '--format', 'ndjson']);
    await f.waitFor(/crashed/);
    for (let turn = 1; turn <= 3; turn++) {
      appendFileSync(file, journal(JSON.stringify({ type: 'turn', ts: iso(), session_id: 's-o', turn })));
      await sleep(2000); // quiet past --stale-after: judged again, with the session gone on to another line
    }
    expect(await f.stop()).toBe(0);
    const causes = f.out().trim().split('\n').map((l) => JSON.parse(l).findings.find((x: { id: string }) => x.id === 'delegation-incomplete')?.message);
    expect(causes.map((m: string) => /: (crashed|engine error|still running)/.exec(m)?.[1])).toEqual(['crashed', 'engine error']);
  });

  it('prints an open delegation again when a count in a finding changes (its nested tree grew)', async () => {
    const dir = tree();
    const file = path.join(dir, 's-t.jsonl');
    const nestedRun = (n: number) => ev.subStarted(iso(), { delegation_id: 'inner', sub_run_id: `n${n}`, parent_run_id: 'r1', agent_id: 'b', depth: 2 });
    writeFileSync(file, journal(
      ev.started(iso(), { delegation_id: 'outer', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }),
      ev.subStarted(iso(), { delegation_id: 'outer', sub_run_id: 'r1', parent_run_id: 'p', agent_id: 'a' }),
      ev.started(iso(), { delegation_id: 'inner', parent_run_id: 'r1', pattern: 'fan_out', agent_ids: ['b', 'b', 'b'] }),
      nestedRun(1), nestedRun(2), nestedRun(3),
    ));
    const f = follow(dir, ['outer', '--max-tree', '3', '--stale-after', '1s', '--format', 'ndjson']);
    await f.waitFor(/holds 4 distinct sub-runs/);
    appendFileSync(file, journal(nestedRun(4), nestedRun(5)));
    await f.waitFor(/holds 6 distinct sub-runs/);
    expect(await f.stop()).toBe(0);
    expect(f.err()).toMatch(/delegation outer is still open: .*; what its report says changed/);
  });

  it('says so when a delegation printed from its completion alone gets its start: the same delegation, reported again', async () => {
    const dir = tree();
    const startedAt = iso(Date.now() - 2000);
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    writeFileSync(path.join(dir, 'b.jsonl'), journal(subDone('d-x'), completed('d-x')));
    await f.waitFor(/"id":"d-x"/);
    writeFileSync(path.join(dir, 'a.jsonl'), journal(started('d-x', startedAt), subStarted('d-x', startedAt)));
    await f.waitFor(/delegation d-x has 2 new events since its report: reported again/, 45_000, 'stderr');
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-x', 'd-x']);
  });

  it('reads gzip data under a plain name (a <sid>.jsonl that is an archive) as the archive it is, as the plain command does', async () => {
    const dir = tree();
    writeFileSync(path.join(dir, 's-z.jsonl'), gzipSync(journal(...whole('d-z1'), ...whole('d-z2'))));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(/"id":"d-z2"/);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-z1', 'd-z2']);
  });

  it('looks at a journal made a symbolic link while followed at every poll, as one that was a link from the start', async () => {
    const dir = tree();
    const elsewhere = tree();
    // 2,600 journals: a poll's turn reaches the last one after 11 polls, 16 s at 1.5 s a poll.
    for (let i = 0; i < 2600; i++) writeFileSync(path.join(dir, `a-${String(i).padStart(4, '0')}.jsonl`), journal(JSON.stringify({ type: 'turn', ts: iso(), session_id: `a-${i}` })));
    const p = path.join(dir, 'z-last.jsonl');
    writeFileSync(p, journal(started('d-moved'), subStarted('d-moved')));
    const f = follow(dir, ['--format', 'ndjson'], { TRACE_DELEGATION_POLL_MS: '1500' });
    await f.waitFor(READY, 60_000, 'stderr');
    // Moved to another folder (the same file: a hard link there, then a link swapped in atomically): nothing changed for follow.
    const moved = path.join(elsewhere, 'z-last.jsonl');
    linkSync(p, moved);
    symlinkSync(moved, `${p}.tmp`);
    renameSync(`${p}.tmp`, p);
    await sleep(1000);
    appendFileSync(moved, journal(subDone('d-moved'), completed('d-moved'))); // a watch event in a folder not watched
    await f.waitFor(/"id":"d-moved"/, 5_000);
    expect(await f.stop()).toBe(0);
  }, 90_000);

  it('takes a hard link made while following for the journal it names, not for a second journal', async () => {
    const dir = tree();
    const v1 = path.join(dir, 'v1', 'users', 'b64-bG9jYWw', 'sessions');
    mkdirSync(v1, { recursive: true });
    const followed = path.join(v1, 's-h.jsonl');
    writeFileSync(followed, journal(...whole('d-h1')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(/"id":"d-h1"/);
    linkSync(followed, path.join(dir, 's-h.jsonl')); // sorts before the followed path
    await sleep(600);
    appendFileSync(followed, journal(...whole('d-h2')));
    await f.waitFor(/"id":"d-h2"/);
    await sleep(600);
    expect(await f.stop()).toBe(0);
    expect(f.out()).not.toMatch(/repeat another journal/);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-h1', 'd-h2']);
  });

  it('names what it follows in JSON: target.query is the target, or --all without one', async () => {
    const dir = tree();
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-q')));
    for (const [args, query] of [[[], '--all'], [['d-q'], 'd-q']] as const) {
      const f = follow(dir, [...args, '--format', 'json']);
      await f.waitFor(/"schemaVersion"[\s\S]*\n\}\n/);
      expect(await f.stop()).toBe(0);
      const [first] = f.out().split(/\n\}\n/); // the first document (each report is one)
      expect(JSON.parse(`${first}\n}`).target, f.out() + f.err()).toEqual({ query, kind: 'follow' });
    }
  });

  it('last does not take an old session that appears (archived or copied in) for new delegations', async () => {
    const dir = tree();
    const t0 = Date.now() - 60_000;
    const at = (s: number) => iso(t0 + s * 1000);
    const lines = (id: string, s: number) => [started(id, at(s)), subStarted(id, at(s + 1)), subDone(id, at(s + 2)), completed(id, at(s + 3))];
    writeFileSync(path.join(dir, 's-now.jsonl'), journal(...lines('d-now', 0)));
    const f = follow(dir, ['last', '--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-now"/);
    // A week-old session archived into the tree, then a delegation that really is new.
    writeFileSync(path.join(dir, 's-old.jsonl.gz'), gzipSync(journal(...lines('d-week-old', -7 * 86_400))));
    await sleep(400);
    writeFileSync(path.join(dir, 's-new.jsonl'), journal(...lines('d-later', 10)));
    await f.waitFor(/"id":"d-later"/);
    await sleep(300);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-now', 'd-later']);
  });

  it('reports a delegation again when events come after its report (a result that missed the join)', async () => {
    const dir = tree();
    const file = path.join(dir, 's-1.jsonl');
    const { joined, late } = missedJoin('d-late');
    writeFileSync(file, journal(...joined.slice(0, 4)));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    appendFileSync(file, journal(joined[4]));
    await f.waitFor(/"id":"d-late"/);
    appendFileSync(file, journal(late)); // after the join
    await f.waitFor(/new event since its report: reported again/, 45_000, 'stderr');
    await f.waitFor(/late-result/);
    expect(await f.stop()).toBe(0);
    const [first, again] = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(first.findings.map((x: { id: string }) => x.id)).toContain('missing-completion');
    expect(again.findings.map((x: { id: string }) => x.id)).toContain('late-result');
    expect(again.findings.map((x: { id: string }) => x.id)).not.toContain('missing-completion');
  });

  it('reports a delegation again when a marker of its run or a delegation nested under it comes after its report', async () => {
    const dir = tree();
    const file = path.join(dir, 's-1.jsonl');
    writeFileSync(file, journal(...whole('d-outer')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-outer"/);
    appendFileSync(file, journal(ev.marker(iso(), 'cancel_requested', 'r-d-outer')));
    await f.waitFor(/delegation d-outer has 1 new event since its report: reported again/, 45_000, 'stderr');
    // A delegation started by the outer's sub-run: the outer's report lists it as nested.
    appendFileSync(file, journal(ev.started(iso(), { delegation_id: 'd-inner', parent_run_id: 'r-d-outer', pattern: 'fan_out', agent_ids: ['coder'] })));
    await f.waitFor(/(d-outer has 1 new event since its report: reported again[\s\S]*){2}/, 45_000, 'stderr');
    await sleep(300);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.id === 'd-outer');
    expect(printed).toHaveLength(3);
    expect(printed[1].children[0].attempts[0].markers.map((m: { action: string }) => m.action)).toEqual(['cancel_requested']);
    expect(printed[2].nested).toEqual(['d-inner']);
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    expect(printed[2]).toEqual(all.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((d: { id: string }) => d.id === 'd-outer'));
  });

  it('reports a delegation again when a later delegation reuses one of its sub_run_ids (foreign-parent), as --all reports it', async () => {
    const dir = tree();
    const file = path.join(dir, 's-1.jsonl');
    writeFileSync(file, journal(...whole('d-first')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-first"/);
    // d-second's sub-run carries d-first's run id: one result can be joined by both.
    appendFileSync(file, journal(
      ev.subStarted(iso(), { delegation_id: 'd-second', sub_run_id: 'r-d-first', parent_run_id: 'p-d-second', agent_id: 'coder' }),
      ev.subCompleted(iso(), { delegation_id: 'd-second', sub_run_id: 'r-d-first', agent_id: 'coder', status: 'completed', output_preview: 'again' }),
      ev.completed(iso(), { delegation_id: 'd-second', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'again' }),
    ));
    await f.waitFor(/delegation d-first has 2 new events since its report: reported again/, 10_000, 'stderr');
    await f.waitFor(/also appears in delegation d-second \(parent run \?\)/);
    // Its start comes later, from another journal: the finding now names its parent run.
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(ev.started(iso(Date.now() - 1000), { delegation_id: 'd-second', parent_run_id: 'p-d-second', pattern: 'fan_out', agent_ids: ['coder'] })));
    await f.waitFor(/delegation d-first has 1 new event since its report: reported again/, 10_000, 'stderr');
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.id === 'd-first');
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const expected = all.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((d: { id: string }) => d.id === 'd-first');
    expect(expected.findings.map((x: { message: string }) => x.message).join('\n')).toContain('also appears in delegation d-second (parent run p-d-second)');
    expect(printed.at(-1)).toEqual(expected);
  });

  it('reports a delegation again when events it was printed with go back to another delegation (a journal removed, then archived)', async () => {
    // d-x is used twice; the second use's start is in s-b, its sub-run in s-a. While s-b is gone
    // (removed before its archive is written) the sub-run joins the first use, which is printed
    // with it; once the archive is read, the sub-run is the second use's again, and so is --all's.
    const dir = tree();
    const t0 = Date.now() - 3600_000;
    const at = (s: number) => iso(t0 + s * 1000);
    const first = [
      ev.started(at(0), { delegation_id: 'd-x', parent_run_id: 'P1', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.completed(at(1), { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 0, succeeded: 0, failed: 0, aggregated_status: 'completed' }),
    ];
    const run = [
      ev.subStarted(at(11), { delegation_id: 'd-x', sub_run_id: 'r-2', parent_run_id: 'P2', agent_id: 'coder' }),
      ev.subCompleted(at(12), { delegation_id: 'd-x', sub_run_id: 'r-2', agent_id: 'coder', status: 'completed', output_preview: 'second out' }),
    ];
    const second = [
      ev.started(at(10), { delegation_id: 'd-x', parent_run_id: 'P2', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.completed(at(13), { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'second out' }),
    ];
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    const sb = path.join(dir, 's-b.jsonl');
    writeFileSync(sb, journal(...second));
    await f.waitFor(/"parentRunId":"P2"/);
    writeFileSync(path.join(dir, 's-a.jsonl'), journal(...first, ...run));
    await f.waitFor(/"parentRunId":"P1"/);
    rmSync(sb);
    await f.waitFor(/delegation d-x has 2 new events since its report: reported again/, 10_000, 'stderr');
    writeFileSync(`${sb}.gz`, gzipSync(journal(...second)));
    await f.waitFor(/delegation d-x changed since its report \(2 fewer events\): reported again/, 10_000, 'stderr');
    await sleep(500);
    expect(await f.stop()).toBe(0);
    const last = new Map(f.out().trim().split('\n').map((l) => JSON.parse(l)).map((d) => [d.key, d]));
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const expected = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(expected.map((d: { key: string; children: unknown[] }) => [d.key, d.children.length])).toEqual([['d-x', 0], ['d-x#2', 1]]);
    expect(last.get('d-x').children).toEqual([]);
    expect(last.get('d-x')).toEqual(expected[0]);
  });

  it('wakes a replayed group when one of its journals is removed: events that go to another of its delegations print it again', async () => {
    // d-x is used twice; the second use's start is in s-b, its sub-run in s-a. s-b is cleaned up
    // after the replay: the sub-run is the first use's now, in --all as in follow.
    const dir = tree();
    const t0 = Date.now() - 3600_000;
    const at = (s: number) => iso(t0 + s * 1000);
    writeFileSync(path.join(dir, 's-a.jsonl'), journal(
      ev.started(at(0), { delegation_id: 'd-x', parent_run_id: 'P1', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.completed(at(1), { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 0, succeeded: 0, failed: 0, aggregated_status: 'completed' }),
      ev.subStarted(at(11), { delegation_id: 'd-x', sub_run_id: 'r-2', parent_run_id: 'P2', agent_id: 'coder' }),
      ev.subCompleted(at(12), { delegation_id: 'd-x', sub_run_id: 'r-2', agent_id: 'coder', status: 'completed', output_preview: 'second out' }),
    ));
    writeFileSync(path.join(dir, 's-b.jsonl'), journal(
      ev.started(at(10), { delegation_id: 'd-x', parent_run_id: 'P2', pattern: 'fan_out', agent_ids: ['coder'] }),
      ev.completed(at(13), { delegation_id: 'd-x', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'second out' }),
    ));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    rmSync(path.join(dir, 's-b.jsonl'));
    await f.waitFor(/delegation d-x has 2 new events since its report: reported again/, 10_000, 'stderr');
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.parentRunId === 'P1');
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const expected = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(expected.map((d: { key: string; children: unknown[] }) => [d.key, d.children.length])).toEqual([['d-x', 1]]);
    expect(printed.map((d) => d.children.length)).toEqual([0, 1]);
    expect(printed[1]).toEqual(expected[0]);
  });

  it('prints a nested delegation again when its outer delegation\'s journal is removed: it names no parent delegation then', async () => {
    const dir = tree();
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-out')));
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(ev.started(iso(), { delegation_id: 'd-in', parent_run_id: 'r-d-out', pattern: 'fan_out', agent_ids: ['coder'] }), completed('d-in')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    rmSync(path.join(dir, 's-1.jsonl'));
    await f.waitFor(/delegation d-in changed since its report \(1 fewer event\): reported again/, 10_000, 'stderr');
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.id === 'd-in');
    expect(printed.map((d) => d.parentDelegation)).toEqual(['d-out', null]);
  });

  it('prints a stale open delegation again when a delegation nested under its run appears in another session', async () => {
    const dir = tree();
    const t0 = Date.now() - 3600_000;
    const f = follow(dir, ['--format', 'ndjson', '--stale-after', '1s']);
    await f.waitFor(READY, 45_000, 'stderr');
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(started('d-open', iso(t0)), subStarted('d-open', iso(t0 + 1000))));
    await f.waitFor(/delegation d-open is still open/, 10_000, 'stderr');
    // A delegation started by d-open's sub-run, in another session's journal: d-open's own journals stay quiet.
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(ev.started(iso(t0 + 2000), { delegation_id: 'd-inner', parent_run_id: 'r-d-open', pattern: 'fan_out', agent_ids: ['coder'] })));
    await f.waitFor(/delegation d-open is still open: .*; what its report says changed/, 10_000, 'stderr');
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.id === 'd-open');
    expect(printed.map((d) => d.nested)).toEqual([[], ['d-inner']]);
  });

  it('wakes a delegation reported during the replay when a late event links to it, from another journal', async () => {
    // The replay is kept as an index: d-late's events are read again from s-1 when the result that
    // missed its join arrives in s-2, and its second report is the one --all gives.
    const dir = tree();
    const { joined, late } = missedJoin('d-late');
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...joined, ...whole('d-other')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    expect(f.out().match(/"id":"d-late"/g)).toHaveLength(1);
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(late));
    await f.waitFor(/delegation d-late has 1 new event since its report: reported again/, 45_000, 'stderr');
    await f.waitFor(/late-result[\s\S]*\n/);
    expect(await f.stop()).toBe(0);
    const [first, other, again] = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect([first.id, other.id, again.id]).toEqual(['d-late', 'd-other', 'd-late']);
    expect(first.findings.map((x: { id: string }) => x.id)).toContain('missing-completion');
    const all = spawnSync(process.execPath, [BIN, '--sessions', dir, '--all', '--format', 'ndjson', '--fail-on', 'none'], { cwd: dir, encoding: 'utf8' });
    const expected = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(again).toEqual(expected.find((d: { id: string }) => d.id === 'd-late'));
    expect(again.timeline).toHaveLength(6); // each replayed event once, and the late one
  });

  it('does not read a rewritten journal\'s replayed lines back: its events come from the new read once', async () => {
    const { file, f } = await followingOne('d-a');
    // The same lines and more, renamed over it: read again from the start, d-a's four events are
    // the new read's; the replay's copies of them are left out.
    writeFileSync(`${file}.tmp`, readFileSync(file, 'utf8') + journal(...whole('d-next')));
    renameSync(`${file}.tmp`, file);
    await f.waitFor(/"id":"d-next"/);
    await sleep(400);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string }) => d.id), f.err()).toEqual(['d-a', 'd-next']);
    expect(f.err()).not.toMatch(/reported again/);
  });

  it('reads a journal that was unreadable once it can, though nothing is written to it again', async (ctx) => {
    // Root reads anything: the follower then runs as user 65534, if that user can run the CLI here.
    const nobody = process.getuid?.() === 0 ? 65534 : undefined;
    if (nobody !== undefined && spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(BIN)})`], { uid: nobody, gid: nobody }).status !== 0)
      ctx.skip('running as root and user 65534 cannot run the built CLI here, so permission denied cannot happen');
    const dir = tree();
    chmodSync(dir, 0o755);
    const plain = path.join(dir, 's-plain.jsonl');
    const archive = path.join(dir, 's-arc.jsonl.gz');
    const f = follow(dir, ['--format', 'ndjson'], {}, nobody);
    await f.waitFor(READY, 45_000, 'stderr');
    // Both appear complete but unreadable; a chmod later changes neither their size nor their time.
    writeFileSync(plain, journal(...whole('d-plain')), { mode: 0o000 });
    writeFileSync(archive, gzipSync(journal(...whole('d-arc'))), { mode: 0o000 });
    chmodSync(plain, 0o000);
    chmodSync(archive, 0o000);
    await sleep(800); // several polls and a rediscovery see them unreadable
    expect(f.out()).toBe('');
    chmodSync(plain, 0o644);
    chmodSync(archive, 0o644);
    await f.waitFor(/"id":"d-plain"[\s\S]*\n[\s\S]*"id":"d-arc"|"id":"d-arc"[\s\S]*\n[\s\S]*"id":"d-plain"/, 10_000);
    expect(await f.stop()).toBe(0);
  });

  it('reports a delegation again when its journal is rewritten and what it says changed, not when only its lines moved', async () => {
    const dir = tree();
    const file = path.join(dir, 's-1.jsonl');
    const failedRun = ev.subCompleted(iso(), { delegation_id: 'd-rw', sub_run_id: 'r-d-rw', agent_id: 'coder', status: 'failed', error: 'boom' });
    const partial = ev.completed(iso(), { delegation_id: 'd-rw', pattern: 'fan_out', total_sub_runs: 1, succeeded: 0, failed: 1, aggregated_status: 'failed' });
    const head = [started('d-rw'), subStarted('d-rw')];
    writeFileSync(file, journal(...head, failedRun, partial));
    const other = journal(...whole('d-other'));
    writeFileSync(path.join(dir, 's-2.jsonl'), other);
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    await f.waitFor(/"id":"d-other"/);
    // The same start and number of events, now saying the run succeeded: written aside and renamed over it.
    writeFileSync(`${file}.tmp`, journal(...head, subDone('d-rw'), completed('d-rw')));
    renameSync(`${file}.tmp`, file);
    await f.waitFor(/"id":"d-rw"[\s\S]*"id":"d-other"[\s\S]*"id":"d-rw"/);
    // d-other's journal archived: the same report from another file, not printed again.
    writeFileSync(path.join(dir, 's-2.jsonl.gz'), gzipSync(other));
    unlinkSync(path.join(dir, 's-2.jsonl'));
    await sleep(800);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string }) => d.id)).toEqual(['d-rw', 'd-other', 'd-rw']);
    expect(printed.map((d: { status: { aggregated: string } }) => d.status.aggregated)).toEqual(['failed', 'completed', 'completed']);
    expect(f.err()).toMatch(/delegation d-rw changed since its report \(its journal was rewritten\): reported again/);
  });

  it('prints each use of a reused id once, even when a use that sorts earlier arrives later and renumbers the #n keys', async () => {
    const dir = tree();
    const t0 = Date.now() - 3 * 3600_000;
    const use = (parent: string, hours: number) => {
      const at = (s: number) => iso(t0 + hours * 3600_000 + s * 1000);
      return [
        ev.started(at(0), { delegation_id: 'd-r', parent_run_id: parent, pattern: 'fan_out', agent_ids: ['coder'] }),
        ev.subStarted(at(1), { delegation_id: 'd-r', sub_run_id: `r-${parent}`, parent_run_id: parent, agent_id: 'coder' }),
        ev.subCompleted(at(2), { delegation_id: 'd-r', sub_run_id: `r-${parent}`, agent_id: 'coder', status: 'completed', output_preview: `out ${parent}` }),
        ev.completed(at(3), { delegation_id: 'd-r', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: `out ${parent}` }),
      ];
    };
    writeFileSync(path.join(dir, 's-a.jsonl'), journal(...use('P1', 0)));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    appendFileSync(path.join(dir, 's-a.jsonl'), journal(...use('P9', 2))); // d-r#2
    await f.waitFor(/"parentRunId":"P9"/);
    writeFileSync(path.join(dir, 's-b.jsonl'), journal(...use('P10', 1))); // sorts before P9's: now #2, and P9's #3
    await f.waitFor(/"parentRunId":"P10"/);
    await sleep(1000); // several polls: nothing else is due
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l) as { key: string; parentRunId: string });
    expect(printed.map((d) => [d.parentRunId, d.key])).toEqual([
      ['P1', 'd-r'],
      ['P9', 'd-r#2'],
      ['P10', 'd-r#2'],
    ]);
  });

  it('reads a journal archived while followed (written as .jsonl.gz, the .jsonl removed) from its archive', async () => {
    // The .jsonl's lines are gone and its archive's were left out as repeats of them: the archive
    // is read again, and a late event of a delegation reported during the replay finds them there.
    const dir = tree();
    const { joined: lines, late } = missedJoin('d-arc');
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...lines));
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(...whole('d-other')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    writeFileSync(path.join(dir, 's-1.jsonl.gz'), gzipSync(journal(...lines)));
    unlinkSync(path.join(dir, 's-1.jsonl'));
    await sleep(600); // polls and rediscovery: the archive is found
    appendFileSync(path.join(dir, 's-2.jsonl'), journal(late));
    await f.waitFor(/late-result[\s\S]*\n/);
    expect(await f.stop()).toBe(0);
    const printed = f.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(printed.map((d: { id: string }) => d.id)).toEqual(['d-arc', 'd-other', 'd-arc']);
    expect(printed[2].timeline).toHaveLength(6);
    expect(printed[2].timeline.slice(0, 5).map((t: { file: string }) => t.file)).toEqual(Array(5).fill('s-1.jsonl.gz'));
    expect(f.err()).not.toMatch(/could not be read back/);
  });

  it('says so when replayed lines are no longer where they were (rewritten, not detected), and keeps following', async () => {
    // Rewritten in place with the same first bytes, the same bytes before the old end and a larger
    // size, it looks appended to: d-x's start line, which a late event needs, is no event any more.
    const dir = tree();
    const head = JSON.stringify({ type: 'llm_round', ts: iso(), session_id: 'x', metadata: { text: 'x'.repeat(300) } });
    const file = path.join(dir, 's-1.jsonl');
    writeFileSync(file, `${head}\n${journal(...whole('d-x'))}`);
    writeFileSync(path.join(dir, 's-2.jsonl'), journal(...whole('d-stays')));
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(READY, 45_000, 'stderr');
    const replayed = readFileSync(file, 'utf8');
    const changed = replayed.replace('"type":"delegation_started"', '"type":"delegation_startex"');
    expect(changed).not.toBe(replayed);
    writeFileSync(file, `${changed}${journal(...whole('d-y'))}`);
    await sleep(400);
    appendFileSync(path.join(dir, 's-2.jsonl'), journal(subDone('d-x')));
    await f.waitFor(/\d+ replayed lines? could not be read back \(the journal was removed or rewritten since\): reports leave (it|them) out\n/, 45_000, 'stderr');
    appendFileSync(path.join(dir, 's-2.jsonl'), journal(...whole('d-after')));
    await f.waitFor(/"id":"d-after"/);
    expect(await f.stop()).toBe(0);
  });

  it('reads a journal\'s .jsonl.gz sibling again before reporting, when the journal is replaced', async () => {
    // d-n2 is nested in d-a1's sub-run, whose events are in the archive. Replacing the .jsonl drops
    // the archive's events too (its repeats of the journal's lines were left out): they are read
    // again in the same look, so d-n2's report, printed then, still finds its parent delegation.
    for (let round = 0; round < 3; round++) {
      const dir = tree();
      const file = path.join(dir, 's-1.jsonl');
      writeFileSync(`${file}.gz`, gzipSync(journal(...whole('d-a1'))));
      const f = follow(dir, ['--format', 'ndjson'], { TRACE_DELEGATION_POLL_MS: '3000' }); // file events only, in practice
      await f.waitFor(READY, 45_000, 'stderr');
      writeFileSync(file, journal(...whole('d-zero'))); // after the archive: looked at after it
      await f.waitFor(/"id":"d-zero"/);
      await sleep(500); // no evaluation for a while: the look the rename brings evaluates at once
      const nested = [
        ev.started(iso(), { delegation_id: 'd-n2', parent_run_id: 'r-d-a1', pattern: 'fan_out', agent_ids: ['coder'] }),
        ev.subStarted(iso(), { delegation_id: 'd-n2', sub_run_id: 'r-n2', parent_run_id: 'r-d-a1', agent_id: 'coder' }),
        ev.subCompleted(iso(), { delegation_id: 'd-n2', sub_run_id: 'r-n2', agent_id: 'coder', status: 'completed', output_preview: 'n2' }),
        ev.completed(iso(), { delegation_id: 'd-n2', pattern: 'fan_out', total_sub_runs: 1, succeeded: 1, failed: 0, aggregated_status: 'completed', aggregated_output_preview: 'n2' }),
      ];
      writeFileSync(`${file}.tmp`, readFileSync(file, 'utf8') + journal(...nested));
      renameSync(`${file}.tmp`, file);
      await f.waitFor(/"id":"d-n2"/);
      expect(await f.stop()).toBe(0);
      const n2 = f.out().trim().split('\n').map((l) => JSON.parse(l)).find((d: { id: string }) => d.id === 'd-n2');
      expect(n2.parentDelegation, `round ${round}`).toBe('d-a1');
    }
  });

  /** 20 journals of 250 completed delegations each, a day old: 5,000 reports to replay. */
  function longReplayTree(): string {
    const dir = tree();
    const t0 = Date.now() - 86_400_000;
    for (let f = 0; f < 20; f++) {
      const lines: string[] = [];
      for (let k = 0; k < 250; k++) {
        const id = `d-${f}-${k}`;
        const t = t0 + (f * 250 + k) * 60_000;
        lines.push(started(id, iso(t)), subStarted(id, iso(t + 10)), subDone(id, iso(t + 20)), completed(id, iso(t + 30)));
      }
      writeFileSync(path.join(dir, `s-${f}.jsonl`), journal(...lines));
    }
    return dir;
  }

  it('stops cleanly on Ctrl-C during a long replay: exit 0, no report cut short, no "following" notice', async () => {
    const dir = longReplayTree();
    const f = follow(dir, ['--format', 'ndjson']);
    await f.waitFor(/"id":"d-0-0"/); // replaying: 5,000 reports to go
    f.child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => f.child.on('exit', resolve));
    expect(code).toBe(0);
    const out = f.out();
    expect(out.endsWith('\n')).toBe(true);
    const printed = out.trim().split('\n').map((l) => JSON.parse(l).id);
    expect(printed.length).toBeLessThan(5000);
    expect(f.err()).not.toMatch(/following/);
  });

  it('reads what was written during the replay, to a journal it had read or a new one, once it follows: no watch event told of it', async () => {
    const dir = longReplayTree();
    // Polls a minute apart: only a look when following starts can find these in time.
    const f = follow(dir, ['--format', 'ndjson'], { TRACE_DELEGATION_POLL_MS: '60000' });
    await f.waitFor(/"id":"d-0-0"/); // every journal read, 5,000 reports being printed: not watched yet
    appendFileSync(path.join(dir, 's-0.jsonl'), journal(...whole('d-appended')));
    writeFileSync(path.join(dir, 's-new.jsonl'), journal(...whole('d-new-file')));
    await f.waitFor(READY, 60_000, 'stderr');
    await f.waitFor(/"id":"d-appended"/, 5_000);
    await f.waitFor(/"id":"d-new-file"/, 5_000);
    expect(await f.stop()).toBe(0);
  });

  it('tells an archive written once beside a lone journal from new lines: its repeats are not counted twice', async () => {
    // A lone journal's lines are not digested; when its .jsonl.gz appears, the journal is read
    // again with digests first, so the archive's copies of its lines drop out as repeats.
    const { file, f } = await followingOne('d-one');
    writeFileSync(`${file}.gz`, gzipSync(readFileSync(file)));
    await sleep(600);
    appendFileSync(file, journal(...whole('d-two')));
    await f.waitFor(/"id":"d-two"/);
    await sleep(400);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-one', 'd-two']);
    expect(f.err()).not.toMatch(/reported again/);
  });

  it('says when a named target matches nothing yet, even with --quiet, and reports it once it appears', async () => {
    const dir = tree();
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-known')));
    const f = follow(dir, ['--format', 'ndjson', '-q', 'd-typo']);
    await f.waitFor(/nothing matches d-typo yet \(no delegation id or prefix, parent run or session\): its delegations are reported if they appear\n/, 45_000, 'stderr');
    appendFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-typo')));
    await f.waitFor(/"id":"d-typo"/);
    // A target that matches at replay gets no such line.
    const g = follow(dir, ['--format', 'ndjson', 'd-known']);
    await g.waitFor(READY, 45_000, 'stderr');
    expect(await g.stop()).toBe(0);
    expect(g.err()).not.toContain('nothing matches');
    // A sub-run id is not a target: the warning names its delegation.
    const h = follow(dir, ['--format', 'ndjson', 'r-d-known']);
    await h.waitFor(/nothing matches r-d-known yet .*; r-d-known is a sub-run of delegation d-known: follow that\n/, 45_000, 'stderr');
    expect(await h.stop()).toBe(0);
    // --quiet: the warning only, no "following" notice (stopped by a signal once it is out).
    f.child.kill('SIGINT');
    await new Promise((r) => f.child.once('exit', r));
    expect(f.err()).not.toContain('following');
  });

  it('refuses a prefix of several delegation ids as the plain command does: candidates listed, exit 2', async () => {
    const dir = tree();
    writeFileSync(path.join(dir, 's-1.jsonl'), journal(...whole('d-ab1'), ...whole('d-ab2')));
    const f = follow(dir, ['d-ab']);
    const code = await new Promise<number | null>((resolve) => f.child.on('exit', resolve));
    expect(code).toBe(2);
    expect(f.out()).toBe('');
    expect(f.err()).toBe('trace-delegation: target d-ab is ambiguous: it is a prefix of 2 delegation ids\n  d-ab1\n  d-ab2\n');
  });

  it('keeps a prefix on the id it resolved to: a later id with the same prefix is named on stderr, not followed', async () => {
    const { file, f } = await followingOne('d-ab1', ['d-ab']);
    appendFileSync(file, journal(...whole('d-ab2'), ...whole('d-other')));
    await f.waitFor(/d-ab now also matches delegation d-ab2; still following d-ab1 \(name the other in full to follow it\)\n/, 10_000, 'stderr');
    // A late event of the one it follows is still reported.
    appendFileSync(file, journal(subDone('d-ab1')));
    await f.waitFor(/"id":"d-ab1"[\s\S]*"id":"d-ab1"/);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-ab1', 'd-ab1']);
    expect(f.err().match(/now also matches/g)).toHaveLength(1);
  });

  it('leaves a pinned prefix for an exact id that appears later, as the plain command resolves it', async () => {
    const { file, f } = await followingOne('d-abc', ['d-ab']);
    appendFileSync(file, journal(...whole('d-ab')));
    await f.waitFor(/d-ab now names a delegation id exactly; following it instead of d-abc\n/, 10_000, 'stderr');
    await f.waitFor(/"id":"d-ab"/);
    await sleep(300);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-abc', 'd-ab']);
    expect(f.err()).not.toMatch(/now also matches/);
  });

  it('a prefix that matched nothing at the replay follows the first id that appears, and names the others', async () => {
    const dir = tree();
    const file = path.join(dir, 's-1.jsonl');
    writeFileSync(file, journal(...whole('d-other')));
    const f = follow(dir, ['d-cd', '--format', 'ndjson']);
    await f.waitFor(/nothing matches d-cd yet/, 45_000, 'stderr');
    appendFileSync(file, journal(...whole('d-cd1'), ...whole('d-cd2')));
    await f.waitFor(/d-cd now also matches delegation d-cd2; still following d-cd1/, 10_000, 'stderr');
    await f.waitFor(/"id":"d-cd1"/);
    await sleep(300);
    expect(await f.stop()).toBe(0);
    expect(f.out().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d-cd1']);
  });

  it('refuses standard input and --output with one sentence', async () => {
    const dir = tree();
    for (const args of [['--stdin'], ['--output', `json=${path.join(dir, 'x.json')}`]]) {
      const f = follow(dir, args);
      expect(await new Promise((r) => f.child.on('exit', r))).toBe(2);
      expect(f.err()).toMatch(/^trace-delegation: .*--follow.*\n$/);
    }
  });
});
