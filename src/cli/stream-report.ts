import type { Writable } from 'node:stream';
import { ReportAssembler, type AnalyzeOptions, type PreparedAnalysis } from '../analyze.js';
import { SEVERITY_RANK } from '../checks/types.js';
import { safeTerminalText as safe } from '../format/terminal.js';
import { delegationBlock } from '../format/text.js';
import type { FormatContext } from '../format/types.js';
import { EXIT } from './io.js';

/**
 * Formats whose document can be written delegation by delegation, byte for byte what their
 * formatter returns for the whole report (test/cli/stream-report.test.ts holds them equal).
 * A large `--all` then never holds every report block, nor one giant string, in memory.
 */
export const STREAMED_FORMATS: ReadonlySet<string> = new Set(['json', 'text']);

/** Joins small pieces into ~1 MiB writes and waits when the reader is slower than we are. */
class ChunkedWriter {
  private parts: string[] = [];
  private size = 0;

  constructor(
    private readonly stream: Writable,
    private readonly limit = 1 << 20,
  ) {}

  async write(s: string): Promise<void> {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= this.limit) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (this.stream.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off('drain', done).off('error', done).off('close', done);
        resolve();
      };
      this.stream.on('drain', done).on('error', done).on('close', done);
    });
  }
}

/** Writes the report in `format` (json or text) as it is built; returns the exit code. */
export async function writeReportStream(stream: Writable, format: string, prepared: PreparedAnalysis, options: AnalyzeOptions, ctx: FormatContext): Promise<number> {
  const assembler = new ReportAssembler(prepared.scan, prepared, options, prepared);
  const out = new ChunkedWriter(stream);
  const min = ctx.failOn === 'none' ? Number.POSITIVE_INFINITY : SEVERITY_RANK[ctx.failOn];
  let failing = false;
  const next = (i: number) => {
    const r = assembler.delegationReport(prepared.selected[i]);
    if (r.findings.some((f) => SEVERITY_RANK[f.severity] >= min)) failing = true;
    return r;
  };
  const count = prepared.selected.length;

  if (format === 'json') {
    const head = assembler.head();
    // JSON.stringify(report, null, 2) with a marker in place of the delegations gives the text
    // around them; each delegation is indented to its place in the array.
    const marker = `"@@delegations-${Math.random().toString(36).slice(2)}@@"`;
    const around = (tail: object) => JSON.stringify({ ...head, delegations: [JSON.parse(marker)], ...tail }, null, 2).split(marker);
    if (count === 0) {
      await out.write(`${JSON.stringify({ ...head, delegations: [], ...assembler.tail() }, null, 2)}\n`);
    } else {
      await out.write(around({})[0]);
      for (let i = 0; i < count; i++) await out.write(`${i ? ',\n    ' : ''}${JSON.stringify(next(i), null, 2).replace(/\n/g, '\n    ')}`);
      await out.write(`${around(assembler.tail())[1]}\n`);
    }
  } else {
    for (let i = 0; i < count; i++) await out.write(`${i ? '\n\n' : ''}${delegationBlock(next(i), ctx)}`);
    if (count === 0) await out.write('No delegation found.'); // --all over a tree without one
    const { limits } = assembler.tail();
    if (limits.length) await out.write(`\n\n${['Scan limits:', ...limits.map((l) => `- ${safe(l)}`)].join('\n')}`);
    await out.write('\n');
  }
  await out.flush();
  return failing ? EXIT.findings : EXIT.ok;
}
