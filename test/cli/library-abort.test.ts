// analyze, loadJournals and streamAll stop when the caller's AbortSignal fires: before the scan,
// during it (at the next file), between report blocks, and while standard input never ends.
import { PassThrough } from 'node:stream';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, InputError, loadJournals, streamAll } from '../../src/index.js';
import { FIXTURES } from '../helpers/cli.js';

const sessions = [path.join(FIXTURES, 'sessions')];
const isAbortError = (e: unknown) => e instanceof Error && e.name === 'AbortError';

describe('library: AbortSignal', () => {
  it('rejects at once when the signal is already aborted, before any file is read', async () => {
    const signal = AbortSignal.abort();
    let files = 0;
    const onFile = () => void files++;
    for (const run of [() => analyze({ sessions, all: true, signal, onFile }), () => loadJournals({ sessions, signal, onFile }), () => streamAll({ sessions, signal, onFile })]) {
      const err = await run().then(() => 'resolved', (e: unknown) => e);
      expect(isAbortError(err)).toBe(true);
    }
    expect(files).toBe(0);
  });

  it('stops the scan at the next file once aborted, with the reason the caller gave', async () => {
    const controller = new AbortController();
    const reason = new Error('enough');
    const seen: number[] = [];
    const err = await analyze({
      sessions,
      all: true,
      jobs: 1,
      signal: controller.signal,
      onFile: (done) => {
        seen.push(done);
        controller.abort(reason);
      },
    }).then(() => 'resolved', (e: unknown) => e);
    expect(err).toBe(reason);
    expect(seen).toEqual([1]); // the tree has more files: none was read after the abort
  });

  it('goes on unchanged while the signal does not fire', async () => {
    const plain = await analyze({ sessions, all: true });
    const withSignal = await analyze({ sessions, all: true, signal: new AbortController().signal });
    expect(withSignal.report.delegations.map((d) => [d.id, d.findings.map((f) => f.id)])).toEqual(plain.report.delegations.map((d) => [d.id, d.findings.map((f) => f.id)]));
  });

  it("stops streamAll's delegations between blocks", async () => {
    const controller = new AbortController();
    const r = await streamAll({ sessions, signal: controller.signal });
    const ids: string[] = [];
    const err = (() => {
      try {
        for (const d of r.delegations) {
          ids.push(d.id);
          controller.abort();
        }
        return 'finished';
      } catch (e) {
        return e;
      }
    })();
    expect(isAbortError(err)).toBe(true);
    expect(ids).toHaveLength(1);
  });

  it('stops reading standard input that never ends, and destroys it', async () => {
    const stdin = new PassThrough();
    stdin.write('{"type":"turn","ts":"2025-01-01T00:00:00Z"}\n');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await analyze({ stdin, all: true, signal: controller.signal }).then(() => 'resolved', (e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect(stdin.destroyed).toBe(true);
  });

  it('refuses a signal that is not an AbortSignal, in one sentence', async () => {
    const err = await analyze({ sessions, all: true, signal: { aborted: false } as unknown as AbortSignal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe('signal must be an AbortSignal (new AbortController().signal), not {"aborted":false}');
  });
});
