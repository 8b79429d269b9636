// Ctrl-C or SIGTERM ends --follow with exit 0 even when the reader of its output stopped reading
// (a full pipe): the binary waits a moment for the output to drain, then drops what is left.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { READY } from '../helpers/follow.js';

const dir = mkdtempSync(path.join(tmpdir(), 'td-stalled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 1,200 small completed delegations: their reports are far more than a pipe holds (64 KiB). */
function writeTree(): void {
  const ts = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
  for (let f = 0; f < 4; f++) {
    let text = '';
    for (let k = 0; k < 300; k++) {
      const id = `d-${f}-${k}`;
      const n = f * 300 + k;
      const line = (type: string, s: number, metadata: object) => `${JSON.stringify({ type, ts: ts(s), session_id: `s${f}`, metadata })}\n`;
      text += line('delegation_started', n, { agent_count: 1, agent_ids: ['coder'], delegation_id: id, parent_run_id: `p${id}`, pattern: 'fan_out' });
      text += line('delegation_completed', n + 0.5, { aggregated_output_preview: 'x'.repeat(200), aggregated_status: 'completed', delegation_id: id, failed: 0, pattern: 'fan_out', succeeded: 0, total_sub_runs: 0 });
    }
    writeFileSync(path.join(dir, `s${f}.jsonl`), text);
  }
}

describe('--follow stopped while its reader is stalled', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: exit 0 within a few seconds, not a wait for the reader`, async () => {
      writeTree();
      const child = spawn(process.execPath, [BIN, '--follow', '--sessions', dir, '--format', 'ndjson'], {
        env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_POLL_MS: '100' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // stdout is never read: the pipe fills and the reports queue in the follower.
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        for (let waited = 0; !READY.test(err); waited += 50) {
          if (waited > 30_000) throw new Error(`no "following" notice: ${err}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const sent = Date.now();
        child.kill(signal);
        const timeout = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 8000));
        expect(await Promise.race([exited, timeout])).toBe(0);
        expect(Date.now() - sent).toBeLessThan(8000);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 60_000);
  }
});
