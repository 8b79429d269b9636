// The worker-thread scan must be invisible in results: same events, same stats, same order as
// the sequential scan, on the bundled demo tree and on a tree with every awkward case.
// Workers load dist/journal/worker.js: `npm test` builds first (run `npx tsc -p .` otherwise).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { discoverJournals } from '../../src/journal/discover.js';
import { defaultJobs, PROGRESS_STEP_BYTES, scanJournalsParallel } from '../../src/journal/parallel.js';
import { scanJournals } from '../../src/journal/scan.js';
import { FIXTURES, ROOT } from '../helpers/cli.js';
import { ev, journal } from '../helpers/journal.js';

const TS = (m: number, s: number) => `2025-11-03T09:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.123456789+00:00`;
const llm = (m: number) => JSON.stringify({ type: 'llm_round', ts: TS(m, 0), session_id: 's', turn: 1, metadata: { finish_reason: 'stop', text: 'delegation_started is mentioned here' } });

let dir: string;

/** One delegation per session, spread over files with every reader edge case. */
function buildTree(root: string): void {
  const sessions = path.join(root, 'v1', 'users', 'b64-bG9jYWw', 'sessions');
  mkdirSync(sessions, { recursive: true });
  for (let i = 0; i < 6; i++) {
    const d = `d-${i}`;
    const lines = [
      ev.started(TS(i, 1), { delegation_id: d, parent_run_id: `p-${i}`, pattern: 'fan_out', agent_ids: ['coder', 'reviewer'] }),
      llm(i),
      ev.subStarted(TS(i, 2), { delegation_id: d, sub_run_id: `r-${i}-a`, parent_run_id: `p-${i}`, agent_id: 'coder' }),
      ev.subStarted(TS(i, 3), { delegation_id: d, sub_run_id: `r-${i}-b`, parent_run_id: `p-${i}`, agent_id: 'reviewer' }),
      ev.subCompleted(TS(i, 4), { delegation_id: d, sub_run_id: `r-${i}-a`, agent_id: 'coder', status: 'completed', output_preview: `done ${i}` }),
      ev.completed(TS(i, 6), { delegation_id: d, pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial' }),
    ];
    const folder = i % 2 ? sessions : root; // both layouts
    writeFileSync(path.join(folder, `s-${i}.jsonl`), i === 3 ? lines.join('\r\n') + '\r\n' : journal(...lines));
  }
  // A live pair: the archive holds the first lines again, the plain file goes on.
  const pair = [ev.started(TS(10, 1), { delegation_id: 'd-pair', parent_run_id: 'p-pair', pattern: 'sequential', agent_ids: ['a'] }), llm(10)];
  writeFileSync(path.join(sessions, 'pair.jsonl.gz'), gzipSync(journal(...pair)));
  writeFileSync(path.join(sessions, 'pair.jsonl'), journal(...pair, ev.subStarted(TS(10, 2), { delegation_id: 'd-pair', sub_run_id: 'r-pair', parent_run_id: 'p-pair', agent_id: 'a' })));
  // Gen 0 wrote no preview keys at all.
  writeFileSync(path.join(root, 'gen0.jsonl'), journal(JSON.stringify({ type: 'delegation_sub_run_completed', ts: TS(30, 1), session_id: 's', metadata: { agent_id: 'a', delegation_id: 'd-0', error: null, status: 'completed', sub_run_id: 'r-gen0' } })));
  // Malformed, missing fields, a bad timestamp and a partial last line.
  writeFileSync(
    path.join(root, 'odd.jsonl'),
    `\ufeff${journal('not json', '{"type":"delegation_retry","ts":"x"}', ev.started('yesterday', { delegation_id: 'd-odd', parent_run_id: 'p', pattern: 'fork', agent_ids: ['w×2'] }))}{"type":"delegation_completed","ts":"2025-11-03T0`,
  );
  // An archive cut in half: an error for that file, the rest still read.
  const gz = gzipSync(journal(ev.started(TS(20, 1), { delegation_id: 'd-gz', parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }), ...Array.from({ length: 3000 }, () => llm(20))));
  writeFileSync(path.join(root, 'broken.jsonl.gz'), gz.subarray(0, gz.length >> 1));
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'td-parallel-'));
  buildTree(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function both(root: string, jobs: number) {
  const files = await discoverJournals([root], ROOT);
  const sequential = await scanJournals(files);
  let plan = { threads: -1, fellBack: -1 };
  const parallel = await scanJournalsParallel(files, { jobs, minParallelBytes: 0, onPlan: (p) => (plan = p) });
  return { files, sequential, parallel, plan };
}

describe('defaultJobs', () => {
  it('leaves one core to the runtime\'s own threads (archives, collector, compiler), from 1 to 4 scan threads', () => {
    expect([1, 2, 3, 4, 5, 8, 64].map((cores) => defaultJobs(cores))).toEqual([1, 1, 2, 3, 4, 4, 4]);
  });
});

describe('scanJournalsParallel', () => {
  it('finds the compiled worker (built by `npm test` / `npx tsc -p .`)', () => {
    expect(existsSync(path.join(ROOT, 'dist', 'journal', 'worker.js'))).toBe(true);
  });

  it('gives exactly the sequential events and stats on a tree with every reader edge case', async () => {
    const { files, sequential, parallel, plan } = await both(dir, 2);
    expect(plan).toEqual({ threads: 2, fellBack: 0 });
    expect(files.length).toBe(11);
    expect(parallel.files).toStrictEqual(sequential.files);
    expect(parallel.events).toStrictEqual(sequential.events);
    // The edge cases really are there, so equality means something.
    const byName = new Map(parallel.files.map((f) => [path.basename(f.file), f]));
    expect(byName.get('pair.jsonl.gz')!.duplicateLines + byName.get('pair.jsonl')!.duplicateLines).toBe(1);
    expect(byName.get('odd.jsonl')).toMatchObject({ malformedLines: 1, missingFieldLines: 1, badTimestampLines: 1, partialLines: 1 });
    expect(byName.get('broken.jsonl.gz')!.error).toMatch(/gzip|unexpected end/i);
    expect(parallel.events.filter((e) => e.type === 'delegation_started').map((e) => e.type === 'delegation_started' && e.delegationId)).toContain('d-pair');
    // Gen 0: no output_preview key stays "absent" (undefined), not null, after the thread hop.
    const gen0 = parallel.events.find((e) => e.type === 'delegation_sub_run_completed' && e.subRunId === 'r-gen0');
    expect(gen0 && 'outputPreview' in gen0 && gen0.outputPreview).toBeUndefined();
  });

  it('gives the same result on the demo tree with more workers than files', async () => {
    const { sequential, parallel, plan } = await both(path.join(FIXTURES, 'sessions'), 8);
    expect(plan.threads).toBeGreaterThanOrEqual(2);
    expect(parallel).toStrictEqual(sequential);
  });

  it('reads small inputs in this thread by default', async () => {
    const files = await discoverJournals([dir], ROOT);
    let threads = -1;
    const r = await scanJournalsParallel(files, { jobs: 2, onPlan: (p) => (threads = p.threads) });
    expect(threads).toBe(0);
    expect(r).toStrictEqual(await scanJournals(files));
  });

  it('puts a small input on threads when TRACE_DELEGATION_MIN_PARALLEL_BYTES lowers the threshold (the differential harness), and ignores a value that is not whole bytes', async () => {
    const files = await discoverJournals([dir], ROOT);
    const plans: number[] = [];
    try {
      for (const v of ['0', '1e3', '-1']) {
        vi.stubEnv('TRACE_DELEGATION_MIN_PARALLEL_BYTES', v);
        const r = await scanJournalsParallel(files, { jobs: 2, onPlan: (p) => plans.push(p.threads) });
        expect(r).toStrictEqual(await scanJournals(files));
      }
    } finally {
      vi.unstubAllEnvs();
    }
    expect(plans).toEqual([2, 0, 0]);
  });

  it('stops each file past maxEventsPerFile on a worker as in this thread', async () => {
    // 3,000 delegation lines after 300 KB of others: more than one read, so the stop shows.
    const root = mkdtempSync(path.join(tmpdir(), 'td-parallel-'));
    try {
      const filler = Array.from({ length: 30 }, () => JSON.stringify({ type: 'llm_round', ts: TS(0, 0), text: 'x'.repeat(10_000) }));
      const starts = Array.from({ length: 3000 }, (_, i) => ev.started(TS(1, 1), { delegation_id: `d-${i}`, parent_run_id: 'p', pattern: 'fan_out', agent_ids: ['a'] }));
      for (const name of ['a', 'b', 'c']) writeFileSync(path.join(root, `${name}.jsonl`), journal(...filler, ...starts, ...filler, ...starts));
      const files = await discoverJournals([root], ROOT);
      const here = await scanJournals(files, { maxEventsPerFile: 10 });
      const threads = await scanJournalsParallel(files, { jobs: 2, minParallelBytes: 0, maxEventsPerFile: 10 });
      expect(threads).toStrictEqual(here);
      // Each file stopped after the read that took it past 10 events: well before its 6,000.
      for (const f of files.keys()) {
        const kept = here.events.filter((e) => e.fileIndex === f).length;
        expect(kept).toBeGreaterThan(10);
        expect(kept).toBeLessThan(3000);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('lets its workers end by themselves: terminate() does not wait for V8\'s background tasks, and one can abort the process', async () => {
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const exits: number[] = [];
    const exitSpy = vi.spyOn(Worker.prototype, 'once').mockImplementation(function (this: InstanceType<typeof Worker>, event: string | symbol, listener: (...args: any[]) => void) {
      const wrapped = event === 'exit' ? (code: number) => (exits.push(code), listener(code)) : listener;
      return EventEmitter.prototype.once.call(this, event, wrapped) as InstanceType<typeof Worker>;
    });
    try {
      const { sequential, parallel, plan } = await both(dir, 2);
      expect(plan.threads).toBe(2);
      expect(parallel).toStrictEqual(sequential);
      expect(terminate).not.toHaveBeenCalled();
      expect(exits).toEqual([0]); // ended on its own (a terminated worker exits with 1)
    } finally {
      terminate.mockRestore();
      exitSpy.mockRestore();
    }
  });

  it.each([
    ['a plain journal', false],
    ['an archive (inflated as a stream)', true],
  ])('tells progress within %s too, in steps, ending at its size', async (_, gzip) => {
    const root = mkdtempSync(path.join(tmpdir(), 'td-parallel-'));
    try {
      // Random text, so the archive is large enough to be inflated as a stream.
      const text = journal(...Array.from({ length: 1500 }, () => JSON.stringify({ type: 'llm_round', ts: TS(0, 0), text: randomBytes(5_000).toString('hex') })));
      writeFileSync(path.join(root, `long.jsonl${gzip ? '.gz' : ''}`), gzip ? gzipSync(text, { level: 1 }) : text);
      const files = await discoverJournals([root], ROOT);
      const calls: [number, number, number][] = [];
      const r = await scanJournalsParallel(files, { jobs: 1, onFile: (d, t, b) => calls.push([d, t, b]) });
      const size = r.files[0].bytes;
      const within = calls.filter(([done]) => done === 0);
      expect(within.length).toBeGreaterThanOrEqual(Math.floor(size / PROGRESS_STEP_BYTES)); // 15 MB: 3 steps
      expect(within.map(([, , b]) => b)).toEqual([...within.map(([, , b]) => b)].sort((a, b) => a - b));
      expect(within.every(([, total, b]) => total === 1 && b < size)).toBe(true);
      expect(calls.at(-1)).toEqual([1, 1, size]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('reads a dead worker\'s files here, and still ends (no wait for an exit that already happened)', async () => {
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    const post = Worker.prototype.postMessage;
    // The worker is killed as it gets its first job: it exits with that job unanswered.
    const postMessage = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: InstanceType<typeof Worker>, msg: unknown, transfer?: readonly Transferable[]) {
      post.call(this, msg, transfer as never);
      if ((msg as { type?: string }).type === 'job') void this.terminate();
    });
    try {
      const files = await discoverJournals([dir], ROOT);
      const sequential = await scanJournals(files);
      let plan = { threads: -1, fellBack: -1 };
      // Waiting for the dead worker's exit (it came already) would never end: the test times out.
      const parallel = await scanJournalsParallel(files, { jobs: 2, minParallelBytes: 0, onPlan: (p) => (plan = p) });
      expect(parallel).toStrictEqual(sequential);
      expect(plan.fellBack).toBeGreaterThanOrEqual(1);
    } finally {
      postMessage.mockRestore();
    }
  }, 15_000);

  it('stops with the error of an onFile that throws: its workers end, and nothing is recorded after it', async () => {
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    const post = Worker.prototype.postMessage;
    const workers = new Set<InstanceType<typeof Worker>>();
    const postMessage = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: InstanceType<typeof Worker>, msg: unknown, transfer?: readonly Transferable[]) {
      workers.add(this);
      post.call(this, msg, transfer as never);
    });
    try {
      const files = await discoverJournals([dir], ROOT);
      let calls = 0;
      const onFile = () => {
        calls++;
        throw new Error('stop reading'); // a caller's way to give up: there is no signal option
      };
      await expect(scanJournalsParallel(files, { jobs: 2, minParallelBytes: 0, onFile })).rejects.toThrow('stop reading');
      expect(workers.size).toBe(1);
      // A worker left running would keep the process alive (and throw from its answers later). An ended one's threadId is -1.
      for (let waited = 0; waited < 5000 && [...workers].some((w) => w.threadId !== -1); waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect([...workers].map((w) => w.threadId)).toEqual([-1]);
      expect(calls).toBe(1);
    } finally {
      postMessage.mockRestore();
    }
  }, 15_000);

  it('reports progress once per file, ending at the total', async () => {
    const files = await discoverJournals([dir], ROOT);
    const calls: [number, number, number][] = [];
    const r = await scanJournalsParallel(files, { jobs: 2, minParallelBytes: 0, onFile: (d, t, b) => calls.push([d, t, b]) });
    expect(calls.map((c) => c[0])).toEqual(files.map((_, i) => i + 1));
    expect(calls.at(-1)).toEqual([files.length, files.length, r.files.reduce((n, f) => n + f.bytes, 0)]);
  });
});

describe('pace (follow mode turns the event loop between files, and stops on Ctrl-C)', () => {
  it('is awaited after each file read here, and true stops the scan: one thread, and scanJournals', async () => {
    const files = await discoverJournals([path.join(FIXTURES, 'sessions')], ROOT);
    expect(files.length).toBeGreaterThan(3);
    for (const scan of [(pace: () => Promise<boolean>) => scanJournalsParallel(files, { jobs: 1, pace }), (pace: () => Promise<boolean>) => scanJournals(files, { pace })]) {
      let calls = 0;
      const whole = await scan(async () => (calls++, false));
      expect(calls).toBeGreaterThanOrEqual(3); // once per file, or per session pair read together
      let asked = 0;
      const cut = await scan(async () => ++asked === 2);
      expect(asked).toBe(2);
      expect(cut.files.filter(Boolean).length).toBeLessThan(whole.files.length);
    }
  });
});
