// Ctrl-C while the CLI is still loading ends --follow with exit 0, as it does once it follows.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES } from '../helpers/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'td-signal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Preloaded into the binary: the moment it sets its start-up handler, the signal is sent. It is
// delivered at the first turn of the event loop, while the bundle is loading or follow mode is
// taking the handlers over.
const PRELOAD = `
const once = process.once.bind(process);
process.once = function (name, fn) {
  const r = once(name, fn);
  if (name === process.env.TD_SIGNAL && fn.untilFollowStarts) {
    process.stderr.write('signal sent during start-up\\n');
    process.kill(process.pid, name);
  }
  return r;
};
`;

describe('--follow and a signal during start-up', () => {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    it(`${signal}: exit 0, nothing printed but the marker, no report`, () => {
      const preload = path.join(dir, 'preload.cjs');
      writeFileSync(preload, PRELOAD);
      const r = spawnSync(process.execPath, ['--require', preload, BIN, '--follow', '--sessions', path.join(FIXTURES, 'sessions')], {
        env: { ...process.env, TD_SIGNAL: signal },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.stderr).toMatch(/^signal sent during start-up\n/);
      expect(r.stderr).not.toMatch(/Error|at .*\(/);
      expect([r.signal, r.status]).toEqual([null, 0]);
    });
  }
});

// timeout(1) without --foreground signals the process, then its whole group: one stop, two signals.
describe('--follow and the same signal twice at once', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} twice within a moment: exit 0`, async () => {
      const { spawn } = await import('node:child_process');
      const child = spawn(process.execPath, [BIN, '--follow', '--sessions', path.join(FIXTURES, 'sessions')], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', () => {});
      // Following once the replay's reports are out.
      for (let i = 0; i < 200 && !out.includes('Delegation Trace'); i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300));
      const exited = new Promise<[number | null, string | null]>((resolve) => child.on('exit', (code, sig) => resolve([code, sig])));
      child.kill(signal);
      await new Promise((r) => setTimeout(r, 5));
      child.kill(signal);
      expect(await exited).toEqual([0, null]);
    }, 30_000);
  }
});
