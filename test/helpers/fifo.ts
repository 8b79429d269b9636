// FIFOs for the tests that check nothing blocks on one: `mkfifo` exists on Linux and macOS.
import { execFileSync } from 'node:child_process';

/** Whether this machine can make a FIFO (tests that need one are skipped elsewhere). */
export const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return process.platform !== 'win32';
  } catch {
    return false;
  }
})();

/** Makes a FIFO at each path. */
export const mkfifo = (...paths: string[]) => execFileSync('mkfifo', paths);
