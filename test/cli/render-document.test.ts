// A whole-document format past the longest string V8 builds: a usage error naming the way out.
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderDocument } from '../../src/cli/report-command.js';
import { runMain } from '../helpers/cli.js';
import { UsageError } from '../../src/cli/io.js';
import type { TraceReport } from '../../src/report/types.js';

// The page's pieces: the head, then a section past the longest string (a RangeError from V8).
// The CLI writes the page from two reads (pagePieces); htmlPieces is the page of a report in memory.
vi.mock('../../src/format/html.js', async (original) => {
  const m = await original<typeof import('../../src/format/html.js')>();
  const tooLong = function* () {
    yield '<!doctype html>';
    throw new RangeError('Invalid string length');
  };
  return { ...m, htmlPieces: tooLong, pagePieces: tooLong };
});

const report = { delegations: [{}, {}, {}] } as unknown as TraceReport;
const ctx = { color: false, failOn: 'error' as const };

// Folders made by a test, removed after it (they piled up in the machine's temp folder).
const made: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('renderDocument', () => {
  it('returns what the formatter renders', () => {
    expect(renderDocument(() => '<html>', 'html', report, ctx)).toBe('<html>');
  });

  it('turns the string-length RangeError into a usage error that names the streamed formats', () => {
    const tooLong = () => {
      throw new RangeError('Invalid string length');
    };
    expect(() => renderDocument(tooLong, 'sarif', report, ctx)).toThrow(UsageError);
    expect(() => renderDocument(tooLong, 'sarif', report, ctx)).toThrow(
      'the sarif report of 3 delegations is longer than one string can hold (about 512 MiB); name a target, or use --format json, ndjson, github or text, which are written as they go',
    );
  });

  it('lets any other error through: it is a defect, not an input problem', () => {
    const broken = () => {
      throw new TypeError('x is undefined');
    };
    expect(() => renderDocument(broken, 'html', report, ctx)).toThrow(TypeError);
  });

  it('an --output file refused part-way is removed, not left half-written', async () => {
    const dir = tempDir('td-half-');
    const file = path.join(dir, 'page.html');
    const r = await runMain(['--demo', '--all', '--format', 'json', '-o', `html=${file}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a part of the html report');
    expect(existsSync(file)).toBe(false);
    expect(r.stdout).toBe(''); // exit 2 prints nothing on stdout
  });

  it('an --output through a symbolic link refused part-way leaves no half document at its target', async () => {
    const dir = tempDir('td-half-link-');
    const real = path.join(dir, 'real.html');
    const link = path.join(dir, 'link.html');
    writeFileSync(real, 'an older page');
    symlinkSync(real, link);
    const r = await runMain(['--demo', '--all', '--format', 'json', '-o', `html=${link}`]);
    expect(r.code).toBe(2);
    expect(existsSync(real)).toBe(false);
  });

  it('a format written in pieces: one piece too long is the same kind of usage error, naming the part', async () => {
    const r = await runMain(['--demo', '--all', '--format', 'html']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'trace-delegation: a part of the html report (one delegation with the delegations nested in it) is longer than one string can hold (about 512 MiB); name a target, or use --format json, ndjson, github or text, which are written as they go\n',
    );
  });
});
