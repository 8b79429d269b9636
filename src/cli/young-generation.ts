// V8 doubles a thread's young generation on long, allocation-heavy runs (8 → 17 → 34 MB) because
// the bytes that survive scavenges add up over time, not because more is alive: a streamed
// `--all` keeps one component at a time, yet a 4 GiB run peaked 35 MB above a 1 GiB one, half of
// it young generation (docs/performance.md#memory). The CLI lets it grow to CAP_BYTES and no
// further, so peak memory follows the number of events, not the length of the run.
//
// Its size cannot be set once Node has started (--max-semi-space-size is read at start-up), but
// V8 reads the growth factor each time it grows it. That is a process-wide flag, so only the
// CLI sets it, never the library. Module loading and discovery (everything survives) would
// double it three times in 0.1 s, so it is held from the moment a whole-tree command starts and
// allowed to grow up to the cap once the scan is under way (held at its start-up size, a 1 GiB
// run took 7% longer). The check repeats after each file scanned and on a timer: Node resets
// V8's flags when it starts a worker thread. The flag has existed in V8 for a decade; were it
// ever removed, V8 would print one "unrecognized flag" line on stderr and nothing else changes.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Young generation size (V8's new space: two semi-spaces) at which growth stops. */
export const CAP_BYTES = 8 * 1024 * 1024;
const CHECK_EVERY_MS = 10;
const REAPPLY_MS = 50;

let timer: NodeJS.Timeout | undefined;
let growing = false;
/** The cap was reached: from then on the factor is 1, and only worker starts can undo it. */
let capped = false;
let lastApplied = Number.NEGATIVE_INFINITY;

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

function apply(factor: number): void {
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  lastApplied = Date.now();
}

/** Sets the growth factor for the young generation's current size (a no-op unless held). */
function settleYoungGeneration(): void {
  if (!timer) return;
  if (capped) {
    // Only a worker start can have put the factor back: once every REAPPLY_MS is enough (≈ 20 µs a call).
    if (Date.now() - lastApplied >= REAPPLY_MS) apply(1);
    return;
  }
  if (growing && newSpaceBytes() >= CAP_BYTES) capped = true;
  apply(growing && !capped ? 2 : 1);
}

/** Holds this process's young generation at its size (idempotent; the check never keeps the process alive). */
export function holdYoungGeneration(): void {
  if (timer) return;
  timer = setInterval(settleYoungGeneration, CHECK_EVERY_MS);
  timer.unref();
  settleYoungGeneration();
}

/** The scan is under way (call it after each file): the young generation may grow to CAP_BYTES, if held. */
export function letYoungGenerationGrow(): void {
  growing = true;
  settleYoungGeneration();
}
