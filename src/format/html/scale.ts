// Time axis of a swimlane: epoch ms → SVG x, with round-number ticks relative to the start.

export interface Scale {
  t0: number;
  t1: number;
  x0: number;
  x1: number;
  x(ms: number): number;
}

export function linearScale(t0: number, t1: number, x0: number, x1: number): Scale {
  const span = t1 > t0 ? t1 - t0 : 1;
  return { t0, t1, x0, x1, x: (ms) => x0 + ((ms - t0) / span) * (x1 - x0) };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Steps that land on round times: 1-2-5 below a second, then 1, 2, 5, 10, 15, 30 s and min, 1, 2, 3, 6, 12 h, then days. */
const TIME_STEPS = [
  ...[1, 2, 5, 10, 15, 30].map((n) => n * SECOND),
  ...[1, 2, 5, 10, 15, 30].map((n) => n * MINUTE),
  ...[1, 2, 3, 6, 12].map((n) => n * HOUR),
];

/** The smallest 1-2-5 × 10ᵏ multiple of `unit` that `fits`. */
function oneTwoFive(unit: number, fits: (step: number) => boolean): number {
  for (let p = 0; ; p++) {
    const step = [1, 2, 5][p % 3] * 10 ** Math.floor(p / 3) * unit;
    if (fits(step)) return step;
  }
}

/** The smallest round step giving at most `max` ticks over `span` ms. */
function tickStep(span: number, max: number): number {
  const fits = (step: number) => span / step <= max;
  if (fits(SECOND)) return oneTwoFive(1, fits);
  return TIME_STEPS.find(fits) ?? oneTwoFive(DAY, fits);
}

/** Tick offsets (ms from `origin`) at a round time step giving at most `max` ticks over [t0, t1]. */
export function ticks(origin: number, t0: number, t1: number, max = 10): number[] {
  const step = tickStep(Math.max(t1 - t0, 1), max);
  const out: number[] = [];
  for (let k = Math.ceil((t0 - origin) / step); origin + k * step <= t1; k++) out.push(k * step);
  return out;
}

/** A human duration: `850ms`, `12.5s`, `2m 05s`, `1h 02m`. */
export function duration(ms: number): string {
  const sign = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a === 0) return '0s';
  if (a < 1000) return `${sign}${Math.round(a)}ms`;
  if (a < 60_000) return `${sign}${trim((a / 1000).toFixed(a < 10_000 ? 2 : 1))}s`;
  const s = Math.round(a / 1000);
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${sign}${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const trim = (n: string) => n.replace(/\.?0+$/, '');

/** Offset label for the axis and tooltips: `+0s`, `+8s`, `+1m 30s`. */
export const offset = (ms: number): string => (ms >= 0 ? `+${duration(ms)}` : duration(ms));
