import { addAbortSignal } from 'node:stream';
import type { AnalyzeOptions } from './analyze.js';
import { validateAnalyzeOptions } from './analyze-options.js';

/**
 * A library run that honours `options.signal`: thrown at once when already aborted, and at the
 * scan's next file or progress step through `onFile` (whose error stops every scan thread, as a
 * caller's own onFile error does). Standard input is destroyed on abort, so a stream that never
 * ends cannot hold the run. The report checks the signal at each delegation (ReportAssembler).
 */
export function abortable<T extends AnalyzeOptions>(options: T): T {
  const { signal } = options;
  if (signal === undefined) return options;
  validateAnalyzeOptions(options); // a signal that is not one, or a stdin that is not a stream, named before they are used
  signal.throwIfAborted();
  const onFile = options.onFile;
  return {
    ...options,
    onFile: (done: number, total: number, bytes: number) => {
      signal.throwIfAborted();
      onFile?.(done, total, bytes);
    },
    ...(options.stdin ? { stdin: addAbortSignal(signal, options.stdin) } : {}),
  };
}
