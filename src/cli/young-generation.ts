// V8 doubles a thread's young generation on long, allocation-heavy runs (8 → 17 → 34 MB) because
// the bytes that survive scavenges add up over time, not because more is alive: a streamed
// `--all` keeps one component at a time, yet a 4 GiB run peaked 35 MB above a 1 GiB one, half of
// it young generation (docs/performance.md). The CLI lets it grow to CAP_BYTES and no further, so
// peak memory follows the number of events, not the length of the run.
//
// The size cannot be capped once Node has started (--max-semi-space-size is read at start-up),
// but V8 reads the growth factor each time it grows the young generation. It is a process-wide
// flag, so only the CLI sets it, never the library. Start-up (loading modules: everything
// survives) would double it twice in 0.15 s, so it is held from the start, and allowed to grow
// up to the cap when the long work begins. The check repeats: Node resets V8's flags when it
// starts a worker thread.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Young generation size (V8's new space: two semi-spaces) at which growth stops. */
export const CAP_BYTES = 8 * 1024 * 1024;
const CHECK_EVERY_MS = 10;

let timer: NodeJS.Timeout | undefined;
let growing = false;

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

function settle(): void {
  setFlagsFromString(`--semi-space-growth-factor=${growing && newSpaceBytes() < CAP_BYTES ? 2 : 1}`);
}

/** Holds this process's young generation at its size (idempotent; the check never keeps the process alive). */
export function holdYoungGeneration(): void {
  settle();
  if (timer) return;
  timer = setInterval(settle, CHECK_EVERY_MS);
  timer.unref();
}

/** A long scan begins: the young generation may grow to CAP_BYTES (if it is held at all). */
export function letYoungGenerationGrow(): void {
  if (!timer) return;
  growing = true;
  settle();
}
