import { describe, expect, it } from 'vitest';
import { compareInstants, diffMs, instantToIso, instantToNanos, parseDuration, parseTimestamp } from '../../src/journal/time.js';

describe('parseTimestamp', () => {
  it('reads the engine shape: +00:00 with 9 fraction digits, keeping the nanoseconds Date drops', () => {
    const t = parseTimestamp('2025-11-03T09:15:06.517884203+00:00');
    expect(t).toEqual({ ms: Date.UTC(2025, 10, 3, 9, 15, 6, 517), subNs: 884203 });
  });

  it.each([
    ['2025-11-03T09:15:06+00:00', 0, 0],
    ['2025-11-03T09:15:06.5Z', 500, 0],
    ['2025-11-03T09:15:06.517Z', 517, 0],
    ['2025-11-03T09:15:06.517884+00:00', 517, 884000],
    ['2025-11-03T09:15:06.51788420z', 517, 884200],
  ])('accepts %s (0–9 fraction digits, Z or +00:00)', (ts, millis, subNs) => {
    expect(parseTimestamp(ts)).toEqual({ ms: Date.UTC(2025, 10, 3, 9, 15, 6, millis), subNs });
  });

  it('applies numeric offsets, with or without a colon', () => {
    const utc = parseTimestamp('2025-11-03T09:15:06Z')!;
    expect(parseTimestamp('2025-11-03T11:15:06+02:00')).toEqual(utc);
    expect(parseTimestamp('2025-11-03T04:15:06-0500')).toEqual(utc);
  });

  it.each([
    [''],
    ['2025-11-03'],
    ['2025-11-03T09:15:06'],
    ['2025-11-03T09:15:06.1234567890Z'],
    ['2025-13-03T09:15:06Z'],
    ['yesterday'],
    [`2025-11-03T09:15:06.${'1'.repeat(80)}Z`],
  ])('rejects %j', (ts) => {
    expect(parseTimestamp(ts)).toBeNull();
  });

  it('rejects non-strings', () => {
    for (const v of [null, undefined, 1_700_000_000_000, {}, ['2025-11-03T09:15:06Z']]) expect(parseTimestamp(v)).toBeNull();
  });
});

describe('instant arithmetic', () => {
  const a = parseTimestamp('2025-11-03T09:15:06.517884203+00:00')!;
  const b = parseTimestamp('2025-11-03T09:15:06.517884204+00:00')!;

  it('orders timestamps one nanosecond apart, which a Date cannot', () => {
    expect(compareInstants(a, b)).toBeLessThan(0);
    expect(compareInstants(b, a)).toBeGreaterThan(0);
    expect(compareInstants(a, { ...a })).toBe(0);
    expect(new Date(a.ms).getTime()).toBe(new Date(b.ms).getTime());
  });

  it('orders a Z timestamp against the same instant written with +00:00 as equal', () => {
    expect(compareInstants(parseTimestamp('2025-11-03T09:15:06.5Z')!, parseTimestamp('2025-11-03T09:15:06.500000000+00:00')!)).toBe(0);
  });

  it('diffMs keeps sub-millisecond precision', () => {
    const later = parseTimestamp('2025-11-03T09:15:07.518384203+00:00')!;
    expect(diffMs(later, a)).toBeCloseTo(1000.5, 9);
    expect(diffMs(a, later)).toBeCloseTo(-1000.5, 9);
  });

  it('converts to ISO milliseconds and to exact epoch nanoseconds', () => {
    expect(instantToIso(a)).toBe('2025-11-03T09:15:06.517Z');
    expect(instantToNanos(a)).toBe(`${Date.UTC(2025, 10, 3, 9, 15, 6) / 1000}517884203`);
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['45', 45_000],
    ['1.5s', 1500],
    [' 10m ', 600_000],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([['-5s'], ['10 minutes'], ['m'], [''], ['1e3']])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
