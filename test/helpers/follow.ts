// The built binary in --follow mode on a temp tree, with its output gathered as it comes.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli.js';

export interface Follow {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  waitFor: (what: RegExp, timeoutMs?: number, stream?: 'stdout' | 'stderr') => Promise<void>;
  stop: () => Promise<number | null>;
}

/** Printed on stderr once the replay is over: from then on, appended lines are live. */
export const READY = /^trace-delegation: following \d+ journal files? under .* \(Ctrl-C to stop\)$/m;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const running: ChildProcess[] = [];

/** Kills the followers a test left running (call from afterEach). */
export function killFollowers(): void {
  for (const c of running.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

/** `trace-delegation --follow --sessions <dir> …args`, polling every 100 ms unless `env` says otherwise. */
export function startFollow(dir: string, args: string[], env: NodeJS.ProcessEnv = {}, uid?: number): Follow {
  const child = spawn(process.execPath, [BIN, '--follow', '--sessions', dir, ...args], {
    cwd: dir,
    ...(uid !== undefined ? { uid, gid: uid } : {}),
    env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_POLL_MS: '100', TRACE_DELEGATION_NOW: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    waitFor: (what, timeoutMs = 45_000, stream: 'stdout' | 'stderr' = 'stdout') =>
      new Promise((resolve, reject) => {
        const began = Date.now();
        const tick = setInterval(() => {
          if (what.test(stream === 'stdout' ? out : err)) {
            clearInterval(tick);
            resolve();
          } else if (Date.now() - began > timeoutMs || child.exitCode !== null) {
            clearInterval(tick);
            reject(new Error(`timed out waiting for ${what}; stdout:\n${out}\nstderr:\n${err}`));
          }
        }, 50);
      }),
    stop: async () => {
      // Stopping once the replay is over: every test here means to stop a follower that follows.
      while (child.exitCode === null && !READY.test(err)) await sleep(50);
      child.kill('SIGINT');
      return exited;
    },
  };
}
