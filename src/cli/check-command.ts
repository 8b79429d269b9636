import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { analyze } from '../analyze.js';
import type { Finding } from '../checks/types.js';
import { discoverCases, type CheckCase } from '../expectations/cases.js';
import { compareFindings, type Problem } from '../expectations/compare.js';
import { expectationsFor, parseExpectations, serializeExpectations, type Expectation } from '../expectations/file.js';
import { InputError } from '../journal/discover.js';
import { paint, safeTerminalText as safe } from '../format/terminal.js';
import { addAnalysisOptions, resolveSettings, useColor, type ScanFlags } from './common.js';
import { EXIT, UsageError, type CliIO } from './io.js';

export interface CheckFlags extends Pick<ScanFlags, 'rule' | 'config' | 'maxFanout' | 'maxTree' | 'maxAttempts' | 'staleAfter' | 'clockSkew' | 'now'> {
  subset?: boolean;
  update?: boolean;
  quiet?: boolean;
  color?: boolean;
}

/** The analysis options a check run honours (the journal set comes from the cases). */
export function addCheckOptions(cmd: Command): Command {
  return addAnalysisOptions(cmd)
    .option('--subset', 'let findings that no expectation mentions pass (default: exact)')
    .option('--update', 'write or rewrite the expectations of failing and new cases from the current findings (refused when CI is set)')
    .option('-q, --quiet', 'print only failing cases and the summary')
    .option('--no-color', 'never colour the output (NO_COLOR is honoured too)');
}

/** `CI` set to anything but empty, 0 or false, as snapshot tools read it. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** The expectations beside a case; null when there is none yet (or, under --update, it is unusable). */
function readExpectations(c: CheckCase, update: boolean): Expectation[] | null {
  let text: string;
  try {
    text = readFileSync(c.expectedFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InputError(`cannot read ${c.display}.expected.json: ${(err as Error).message}`);
  }
  try {
    return parseExpectations(text, `${c.display}.expected.json`);
  } catch (err) {
    if (update) return null;
    throw err;
  }
}

const where = (f: Finding) => (f.evidence.length ? ` (${f.evidence.map((e) => `${safe(e.file)}:${e.line}`).join(', ')})` : '');
const findingLine = (f: Finding) => `[${f.severity}] ${f.id} in ${safe(f.delegation)}: ${safe(f.message)}${where(f)}`;

function selector(e: Expectation): string {
  const parts = [safe(e.id), e.delegation ? `in ${safe(e.delegation)}` : 'in any delegation'];
  if (e.severity) parts.push(`at ${e.severity}`);
  return parts.join(' ');
}

const wanted = (e: Expectation) => (e.count === undefined ? 'at least 1' : String(e.count));

/** A problem as indented lines: what was expected, what was found, and where. */
function problemLines(p: Problem, keys: ReadonlySet<string>): string[] {
  switch (p.kind) {
    case 'missing': {
      // A delegation the case does not have (a prefix, a typo) can never match: say so.
      const d = p.expectation.delegation;
      const none = d !== undefined && !keys.has(d) ? ` (the case has no delegation ${safe(d)}: "delegation" is a whole id, or a key such as <id>#2)` : '';
      return [`missing: ${selector(p.expectation)}: expected ${wanted(p.expectation)}, found ${p.found.length}${none}`, ...p.found.map((f) => `  found ${findingLine(f)}`)];
    }
    case 'too-many':
      return [`too many: ${selector(p.expectation)}: expected ${wanted(p.expectation)}, found ${p.found.length}`, ...p.found.map((f) => `  found ${findingLine(f)}`)];
    case 'severity':
      return [
        `different severity: ${selector({ ...p.expectation, severity: undefined })}: expected ${p.expectation.severity}, found ${[...new Set(p.other.map((f) => f.severity))].join(', ')}`,
        ...[...p.found, ...p.other].map((f) => `  found ${findingLine(f)}`),
      ];
    case 'unexpected':
      return [`unexpected: ${findingLine(p.finding)}`];
  }
}

/** `check`: compare each case's findings with its expectations file; exit 1 on any failure. */
export async function runCheck(paths: string[], flags: CheckFlags, io: CliIO): Promise<number> {
  const env = io.env ?? process.env;
  if (flags.update && isCI(env)) throw new UsageError('--update is refused when CI is set: record expectations locally, review them and commit them');
  const cwd = io.cwd ?? process.cwd();
  const cases = discoverCases(paths, cwd, !!flags.update);
  const { options } = resolveSettings(flags, io);
  // Every expectations file is validated before any case runs, so a typo is exit 2, not a half run.
  const loaded = cases.map((c) => ({ c, expected: readExpectations(c, !!flags.update) }));
  for (const { c, expected } of loaded) {
    if (expected === null && !flags.update) throw new InputError(`${c.display} has no expectations file; run check --update ${c.display} to record the current findings`);
  }
  const color = useColor(io, flags.color);
  const out = (s: string) => io.stdout.write(`${s}\n`);
  let passed = 0;
  let failed = 0;
  let written = 0;
  for (const { c, expected } of loaded) {
    const { report } = await analyze({ ...options, sessions: c.sessions, all: true });
    const findings = report.delegations.flatMap((d) => d.findings);
    const problems = expected ? compareFindings(expected, findings, !!flags.subset) : null;
    if (flags.update && (problems === null || problems.length > 0)) {
      const next = expectationsFor(findings);
      try {
        writeFileSync(c.expectedFile, serializeExpectations(next));
      } catch (err) {
        throw new UsageError(`cannot write ${c.display}.expected.json: ${(err as Error).message}`);
      }
      out(`${paint(color, 'yellow', expected ? 'UPDATED' : 'CREATED')} ${safe(c.display)}.expected.json (${next.length} ${next.length === 1 ? 'expectation' : 'expectations'})`);
      written++;
      passed++;
    } else if (!problems?.length) {
      if (!flags.quiet) out(`${paint(color, 'cyan', 'PASS')} ${safe(c.display)}`);
      passed++;
    } else {
      out(`${paint(color, 'red', 'FAIL')} ${safe(c.display)}`);
      const keys = new Set(report.delegations.flatMap((d) => [d.key, d.id]));
      for (const p of problems) for (const line of problemLines(p, keys)) out(`  ${line}`);
      failed++;
    }
  }
  if (written) out(`${written} expectations ${written === 1 ? 'file' : 'files'} written`);
  if (failed && !flags.update) out(`Accept the current findings with: trace-delegation check --update ${paths.join(' ')}`);
  out(`${passed} passed, ${failed} failed`);
  return failed ? EXIT.findings : EXIT.ok;
}
