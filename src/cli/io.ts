import type { Readable, Writable } from 'node:stream';

/** Everything main() touches of the outside world, so tests can run it in-process. */
export interface CliIO {
  argv: string[];
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin?: Readable;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/** A user-caused error: one sentence on stderr, exit 2, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}
