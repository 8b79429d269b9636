import type { Instant } from './types.js';

// RFC 3339 with any number of fraction digits (the ninth is the last kept) and `Z` or a numeric
// offset. Date keeps only milliseconds, so the digits below the millisecond are kept separately
// to order 9-digit timestamps exactly.
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:?\d{2})$/;

export function parseTimestamp(ts: unknown): Instant | null {
  if (typeof ts !== 'string' || ts.length > 64) return null;
  return parseEngineTimestamp(ts) ?? parseRfc3339(ts);
}

/** The general path: any form RFC3339 accepts, with Date's calendar rules but no day past the month's end. */
function parseRfc3339(ts: string): Instant | null {
  const m = RFC3339.exec(ts);
  if (!m) return null;
  // Date.parse rolls 2026-02-30 over to March 2: an impossible date is a timestamp that does not parse.
  const [year, month, day] = m[1].split('-').map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // Nor is 24:00:00, which Date.parse also rolls over into the next day.
  if (Number(m[2].slice(0, 2)) > 23) return null;
  // A leap second (23:59:60.5Z, RFC 3339 allows it; Date does not) orders as the last instant of the second before.
  const leap = m[2].endsWith(':60');
  const frac = leap ? '999999999' : (m[3] ?? '').slice(0, 9).padEnd(9, '0');
  if (leap) m[2] = `${m[2].slice(0, 6)}59`;
  const zone = m[4] === 'z' ? 'Z' : m[4].length === 5 ? `${m[4].slice(0, 3)}:${m[4].slice(3)}` : m[4];
  const ms = Date.parse(`${m[1]}T${m[2]}.${frac.slice(0, 3)}${zone}`);
  if (Number.isNaN(ms)) return null;
  // A leap second ends a UTC minute 59 (23:59:60Z, 05:29:60+05:30); :60 elsewhere is no time.
  if (leap && new Date(ms).getUTCMinutes() !== 59) return null;
  return { ms, subNs: Number(frac.slice(3)) };
}

/** The digit at i, or a large negative number that makes any sum it enters out of range. */
function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -100_000;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * The form every engine writes (`2025-11-03T09:15:06.517884203+00:00` or `…Z`), by arithmetic: 4×
 * faster than the regex and Date.parse, and each event's timestamp is read twice on `--all`.
 * Anything else returns null so that the general path decides; test/journal/time.test.ts holds
 * both paths equal.
 */
function parseEngineTimestamp(ts: string): Instant | null {
  const n = ts.length;
  if (n < 20 || ts.charCodeAt(4) !== 45 || ts.charCodeAt(7) !== 45 || ts.charCodeAt(10) !== 84 || ts.charCodeAt(13) !== 58 || ts.charCodeAt(16) !== 58) return null;
  const year = digit(ts, 0) * 1000 + digit(ts, 1) * 100 + digit(ts, 2) * 10 + digit(ts, 3);
  const month = digit(ts, 5) * 10 + digit(ts, 6);
  const day = digit(ts, 8) * 10 + digit(ts, 9);
  const hour = digit(ts, 11) * 10 + digit(ts, 12);
  const minute = digit(ts, 14) * 10 + digit(ts, 15);
  const second = digit(ts, 17) * 10 + digit(ts, 18);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
  let i = 19;
  let ns = 0;
  if (ts.charCodeAt(i) === 46) {
    const first = ++i;
    for (; i < n && i - first < 9; i++) {
      const d = digit(ts, i);
      if (d < 0) break;
      ns = ns * 10 + d;
    }
    if (i === first) return null;
    for (let k = i - first; k < 9; k++) ns *= 10;
  }
  let offsetMinutes = 0;
  const sign = ts.charCodeAt(i);
  if (sign === 43 || sign === 45) {
    if (n !== i + 6 || ts.charCodeAt(i + 3) !== 58) return null;
    const oh = digit(ts, i + 1) * 10 + digit(ts, i + 2);
    const om = digit(ts, i + 4) * 10 + digit(ts, i + 5);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return null;
    offsetMinutes = (sign === 45 ? -1 : 1) * (oh * 60 + om);
  } else if (sign !== 90 || n !== i + 1) return null;
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  return { ms: seconds * 1000 + Math.floor(ns / 1e6), subNs: ns % 1e6 };
}

export function compareInstants(a: Instant, b: Instant): number {
  return a.ms - b.ms || a.subNs - b.subNs;
}

/** Difference a − b in milliseconds, with sub-millisecond precision. */
export function diffMs(a: Instant, b: Instant): number {
  return a.ms - b.ms + (a.subNs - b.subNs) / 1e6;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** Date's toISOString (millisecond precision, UTC), by arithmetic for years 1970–9999: once per timeline entry. */
export function instantToIso(t: Instant): string {
  const ms = t.ms;
  if (!(ms >= 0 && ms < 253_402_300_800_000) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86_400_000);
  const inDay = ms - days * 86_400_000;
  // H. Hinnant's civil_from_days.
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(inDay / 3_600_000);
  const mi = Math.floor((inDay % 3_600_000) / 60_000);
  const s = Math.floor((inDay % 60_000) / 1000);
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(h)}:${pad2(mi)}:${pad2(s)}.${pad3(inDay % 1000)}Z`;
}

/** Nanoseconds since the epoch as a decimal string (OTLP wants this; a double cannot hold it). */
export function instantToNanos(t: Instant): string {
  return (BigInt(t.ms) * 1_000_000n + BigInt(t.subNs)).toString();
}

/** Durations for --stale-after / --clock-skew: `500ms`, `30s`, `10m`, `2h`, or plain seconds. */
export function parseDuration(text: string): number | null {
  const plain = /^\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (plain) return finiteOrNull(Number(plain[1]) * 1000); // plain seconds
  // One unit or several, largest first or not: `500ms`, `10m`, `1m30s`, `2h15m`.
  if (!/^\s*(?:\d+(?:\.\d+)?\s*(?:ms|s|m|h)\s*)+$/.test(text)) return null;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h)/g)) total += Number(n) * DURATION_UNITS[unit];
  return finiteOrNull(total);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration written in a file (config, contract plan): a string parseDuration reads, or a number
 * of seconds. Anything else (a list, whose String() would read as its item) is null.
 */
export function durationValueMs(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v * 1000 : null;
  return typeof v === 'string' ? parseDuration(v) : null;
}

/** 400 digits of seconds is no duration (it reads as infinity). */
const finiteOrNull = (ms: number): number | null => (Number.isFinite(ms) ? ms : null);

/** Milliseconds on a monotonic clock (the global `performance` costs ≈ 2 ms of start-up: perf_hooks). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A span as people read it: 400ms, 45s, 12m 5s, 3h 20m, 387d 7h. */
export function humanDuration(ms: number): string {
  if (ms > 0 && ms < 1000) return `${Math.round(ms)}ms`; // --stale-after 400ms
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? ` ${s % 60}s` : ''}`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600) ? ` ${Math.floor((s % 86_400) / 3600)}h` : ''}`;
}
