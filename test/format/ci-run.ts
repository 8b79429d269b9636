// Runs the built binary for the CI formats' tests on the shared sample and fixtures/formats.
import { VERSION } from '../../src/version.js';
import { FIXED_NOW, ROOT, runBin, runMain, type CliResult } from '../helpers/cli.js';

/** The engine sample (a copy of the workspace's shared/samples/astra-sample.jsonl, so a lone clone passes). */
export const SAMPLE = 'fixtures/samples/astra-sample.jsonl';
export const RETRY_AND_FAILURE = 'fixtures/formats/retry-and-failure.jsonl';
export const HOSTILE_TEXT = 'fixtures/formats/hostile-text.jsonl';

/** `trace-delegation --sessions <journal> --all --format <format> …` as users run it. */
export async function runFormat(format: string, journal: string, extra: string[] = []): Promise<CliResult> {
  const cwd = ROOT;
  const r = await runBin(['--sessions', journal, '--all', '--format', format, '--now', FIXED_NOW, ...extra], { cwd });
  // A report run writes nothing on stderr; anything there is the real failure to show.
  if (r.stderr) throw new Error(`trace-delegation --format ${format} ${journal} failed (exit ${r.code}): ${r.stderr}`);
  return r;
}

/** The JSON document for the same run (in-process, it is only the reference), to compare a format's content with. */
export async function reportFor(journal: string, extra: string[] = []) {
  const cwd = ROOT;
  const r = await runMain(['--sessions', journal, '--all', '--format', 'json', '--now', FIXED_NOW, ...extra], { cwd });
  if (r.stderr) throw new Error(`trace-delegation failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as import('../../src/report/types.js').TraceReport;
}

/** Snapshots must not change with every release: the tool version is replaced by a placeholder. */
export const withoutVersion = (s: string) => s.split(`"${VERSION}"`).join('"<version>"');
