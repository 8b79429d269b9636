// Output that cannot be written: a reader that stops early (`trace-delegation … | head`) ends the
// run quietly; a full disk is one sentence and exit 2. Never Node's stack trace of an unhandled
// stream error.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXED_NOW, ROOT } from '../helpers/cli.js';

const ENV = { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_NOW: FIXED_NOW };

const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

/**
 * Runs the binary into `head -c 1` through a real pipe (64 KiB of buffer: a socket, as spawn()
 * would give, holds the whole document and hides the problem); returns the binary's status and
 * stderr.
 */
function runIntoHead(args: string[]): { code: number; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-pipe-'));
  try {
    const errFile = path.join(dir, 'stderr');
    const script = '"$0" "$@" 2>"$ERR_FILE" | head -c 1 > /dev/null; exit "${PIPESTATUS[0]}"';
    const r = spawnSync('bash', ['-c', script, process.execPath, BIN, ...args], { cwd: ROOT, env: { ...ENV, ERR_FILE: errFile }, encoding: 'utf8' });
    return { code: r.status ?? -1, stderr: readFileSync(errFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('output that cannot be written', () => {
  // SARIF and HTML are written as one large document: the reader is gone before it is all out.
  // SARIF and HTML (90–140 KB here) are written as one document, JSON and text as they are built.
  it.skipIf(!hasBash).each(['sarif', 'html', 'json', 'text'])('a reader that stops early (--format %s | head -c 1) ends the run quietly', (format) => {
    for (let i = 0; i < 3; i++) {
      const r = runIntoHead(['--demo', '--all', '--format', format]);
      expect(r.stderr, format).toBe('');
      expect([0, 1], format).toContain(r.code); // the command's own result when it was known, else 0
    }
  });

  // The report is whole before a byte of html, sarif or otlp goes out: its exit code is known.
  it.skipIf(!hasBash).each(['html', 'sarif', 'otlp'])('a whole document cut short by its reader (--format %s | head -c 1) keeps its exit code', (format) => {
    for (let i = 0; i < 3; i++) {
      const r = runIntoHead(['--demo', '--all', '--format', format]);
      expect([r.code, r.stderr], format).toEqual([1, '']); // the demo has errors
    }
  });

  it.skipIf(!existsSync('/dev/full'))('a full disk is one sentence on stderr and exit 2', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [BIN, '--demo', '--all', '--format', 'sarif'], { cwd: ROOT, env: ENV, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe('trace-delegation: cannot write the output (no space left on the device).\n');
    } finally {
      closeSync(fd);
    }
    // An -o file on a full disk: worded like the other -o errors.
    const o = spawnSync(process.execPath, [BIN, '--demo', '--all', '-o', 'sarif=/dev/full'], { cwd: ROOT, env: ENV, encoding: 'utf8' });
    expect([o.status, o.stdout, o.stderr]).toEqual([2, '', 'trace-delegation: cannot write --output sarif=/dev/full: no space left on the device\n']);
  });
});
