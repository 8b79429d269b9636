import { EOL } from 'node:os';
import type { Writable } from 'node:stream';
import { ReportAssembler, type AnalyzeOptions, type ReportSource } from '../analyze.js';
import { SEVERITY_RANK } from '../checks/types.js';
import { safeTerminalText as safe } from '../format/terminal.js';
import { githubAnnotations } from '../format/github.js';
import { delegationBlock } from '../format/text.js';
import type { FormatContext } from '../format/types.js';
import type { DelegationReport } from '../report/types.js';
import { writePiecesToStream } from './chunked-writer.js';
import { EXIT } from './io.js';

/**
 * Formats whose document can be written delegation by delegation, byte for byte what their
 * formatter returns for the whole report (test/cli/stream-report.test.ts holds them equal).
 * A large `--all` then never holds every report block, nor one giant string, in memory.
 */
export const STREAMED_FORMATS: ReadonlySet<string> = new Set(['json', 'ndjson', 'text', 'github']);

const WRAP_HEAD = '{\n  "d": [\n'.length;
const WRAP_TAIL = '\n  ]\n}'.length;

/**
 * One element of the top-level `delegations` array, indented as JSON.stringify(report, null, 2)
 * indents it: stringified inside a same-depth wrapper and cut out (a regex re-indent is 3× slower).
 */
function asArrayElement(value: unknown): string {
  const s = JSON.stringify({ d: [value] }, null, 2);
  return s.slice(WRAP_HEAD, s.length - WRAP_TAIL);
}

/**
 * Writes the report in `format` (json, ndjson, text or github) as it is built; returns the exit code.
 * `onDelegation` hears how many delegations have been written so far.
 */
export async function writeReportStream(
  stream: Writable,
  format: string,
  prepared: ReportSource,
  options: AnalyzeOptions,
  ctx: FormatContext,
  onDelegation?: (written: number) => void,
  onScanLimits?: (limits: readonly string[]) => void,
): Promise<number> {
  const assembler = new ReportAssembler(prepared.scan, prepared, options, prepared);
  const min = ctx.failOn === 'none' ? Number.POSITIVE_INFINITY : SEVERITY_RANK[ctx.failOn];
  let failing = false;
  let count = 0;
  // Each delegation checked when reached (`count` includes it); notes whether a finding reaches --fail-on.
  function* reports(): Generator<DelegationReport> {
    for (const { delegation, all } of prepared.items()) {
      const r = assembler.delegationReport(delegation, all);
      if (r.findings.some((f) => SEVERITY_RANK[f.severity] >= min)) failing = true;
      count++;
      yield r;
      onDelegation?.(count); // written by now
    }
  }

  // The document's pieces, built as they are written. Separators and elements go apart: joined,
  // each 10 KB element was copied twice more (the join, then its flattening).
  function* pieces(): Generator<string> {
    if (format === 'json') {
      const head = assembler.head();
      // JSON.stringify(report, null, 2) with a marker in place of the delegations gives the text
      // around them; each delegation is indented to its place in the array.
      const marker = `"@@delegations-${Math.random().toString(36).slice(2)}@@"`;
      const around = (tail: object) => JSON.stringify({ ...head, delegations: [JSON.parse(marker)], ...tail }, null, 2).split(marker);
      for (const r of reports()) {
        // Up to `[\n` before the first element; each element brings its indent.
        yield count > 1 ? ',\n' : around({})[0].slice(0, -4);
        yield asArrayElement(r);
      }
      if (count === 0) yield `${JSON.stringify({ ...head, delegations: [], ...assembler.tail() }, null, 2)}\n`;
      else yield `${around(assembler.tail())[1]}\n`;
    } else if (format === 'ndjson') {
      // One line per delegation, as the ndjson package's serializer writes it (no cycles to guard).
      for (const r of reports()) {
        yield JSON.stringify(r);
        yield EOL;
      }
      // A line is a delegation: what the scan could not read has no line of its own (the caller says it).
      onScanLimits?.(assembler.tail().limits);
    } else if (format === 'github') {
      // Annotations only: no head, no tail (an empty report is no output); the scan's limits go to stderr, as for ndjson.
      for (const r of reports()) yield githubAnnotations(r);
      onScanLimits?.(assembler.tail().limits);
    } else {
      for (const r of reports()) {
        if (count > 1) yield '\n\n';
        yield delegationBlock(r, ctx);
      }
      if (count === 0) yield 'No delegation found.'; // --all over a tree without one
      const { limits } = assembler.tail();
      if (limits.length) yield `\n\n${['Scan limits:', ...limits.map((l) => `- ${safe(l)}`)].join('\n')}`;
      yield '\n';
    }
  }

  await writePiecesToStream(stream, pieces());
  return failing ? EXIT.findings : EXIT.ok;
}
