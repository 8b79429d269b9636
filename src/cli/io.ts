import type { Readable, Writable } from 'node:stream';
import { SEVERITY_RANK, type Finding, type Severity } from '../checks/types.js';
import { InputError } from '../journal/discover.js';

/** Everything main() touches of the outside world, so tests can run it in-process. */
export interface CliIO {
  argv: string[];
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin?: Readable;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Told the exit code when it is known before the output is written: a reader that stops early (`| head`) must not turn it into 0. */
  exitCodeKnown?: (code: number) => void;
  /** Told that --follow was stopped by Ctrl-C or SIGTERM: the binary then waits only a moment for a reader that stopped reading. */
  stoppedBySignal?: () => void;
}

export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/** Exit 1 when any finding of the delegations shown is at or above the fail-on level. */
export function exitCodeForFindings(delegations: readonly { findings: readonly Finding[] }[], failOn: Severity | 'none'): number {
  if (failOn === 'none') return EXIT.ok;
  // A level read from the environment (`warn`) would otherwise pass every run: a CI gate that never fails.
  if (!Object.hasOwn(SEVERITY_RANK, failOn)) throw new InputError(`failOn must be error, warning, info or none, not ${JSON.stringify(failOn)}`);
  const min = SEVERITY_RANK[failOn];
  return delegations.some((d) => d.findings.some((f) => SEVERITY_RANK[f.severity] >= min)) ? EXIT.findings : EXIT.ok;
}

/** A user-caused error: one sentence on stderr, exit 2, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `CI` set to anything but empty, 0 or false, as snapshot tools read it (progress and `check --update` alike). */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}
