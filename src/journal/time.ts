import type { Instant } from './types.js';

// RFC 3339 with 0-9 fraction digits and `Z` or a numeric offset. Date keeps only milliseconds,
// so the digits below the millisecond are kept separately to order 9-digit timestamps exactly.
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})$/;

export function parseTimestamp(ts: unknown): Instant | null {
  if (typeof ts !== 'string' || ts.length > 64) return null;
  const m = RFC3339.exec(ts);
  if (!m) return null;
  const frac = (m[3] ?? '').padEnd(9, '0');
  const zone = m[4] === 'z' ? 'Z' : m[4].length === 5 ? `${m[4].slice(0, 3)}:${m[4].slice(3)}` : m[4];
  const ms = Date.parse(`${m[1]}T${m[2]}.${frac.slice(0, 3)}${zone}`);
  if (Number.isNaN(ms)) return null;
  return { ms, subNs: Number(frac.slice(3)) };
}

export function compareInstants(a: Instant, b: Instant): number {
  return a.ms - b.ms || a.subNs - b.subNs;
}

/** Difference a − b in milliseconds, with sub-millisecond precision. */
export function diffMs(a: Instant, b: Instant): number {
  return a.ms - b.ms + (a.subNs - b.subNs) / 1e6;
}

export function instantToIso(t: Instant): string {
  return new Date(t.ms).toISOString();
}

/** Nanoseconds since the epoch as a decimal string (OTLP wants this; a double cannot hold it). */
export function instantToNanos(t: Instant): string {
  return (BigInt(t.ms) * 1_000_000n + BigInt(t.subNs)).toString();
}

/** Durations for --stale-after / --clock-skew: `500ms`, `30s`, `10m`, `2h`, or plain seconds. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return n * factor;
}

/** Milliseconds on a monotonic clock (the global `performance` costs ≈ 2 ms of start-up: perf_hooks). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
