import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'trace-delegation.cjs');
export const FIXTURES = path.join(ROOT, 'fixtures');
/** A fixed "now" far after every fixture, so "still running" never depends on the clock. */
export const FIXED_NOW = '2030-01-01T00:00:00Z';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built binary as a real subprocess (what users run); `timeoutMs` kills it so a hang fails the test. */
export function runBin(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number; uid?: number } = {},
): Promise<CliResult & { timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, timedOut });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs main() (or another build of it, `entry`) in-process with captured streams (fast; same code path as the binary). */
export async function runMain(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; entry?: typeof main } = {}): Promise<CliResult> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.setEncoding('utf8').on('data', (d) => (stdout += d));
  err.setEncoding('utf8').on('data', (d) => (stderr += d));
  const code = await (opts.entry ?? main)({
    argv: args,
    stdout: out,
    stderr: err,
    stdin: Readable.from([opts.input ?? '']),
    env: { NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW, HOME: '/nonexistent-home', ...opts.env },
    cwd: opts.cwd ?? ROOT,
  });
  return { code, stdout, stderr };
}
