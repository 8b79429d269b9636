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
    ['2025-13-03T09:15:06Z'],
    ['yesterday'],
    [`2025-11-03T09:15:06.${'1'.repeat(80)}Z`],
  ])('rejects %j', (ts) => {
    expect(parseTimestamp(ts)).toBeNull();
  });

  it('reads more than 9 fraction digits (RFC 3339 sets no limit; the ninth is the last kept) and a leap second', () => {
    expect(parseTimestamp('2025-11-03T09:15:06.1234567891Z')).toEqual(parseTimestamp('2025-11-03T09:15:06.123456789Z'));
    const leap = parseTimestamp('2016-12-31T23:59:60.5Z')!;
    // Ordered after every instant of 23:59:59 and before the next day starts.
    expect(leap).toEqual({ ms: Date.parse('2016-12-31T23:59:59.999Z'), subNs: 999_999 });
    expect(compareInstants(leap, parseTimestamp('2017-01-01T00:00:00Z')!)).toBeLessThan(0);
    expect(parseTimestamp('2016-12-31T23:30:60Z')).toBeNull(); // :60 only ends a UTC minute 59
    expect(parseTimestamp('2017-01-01T05:29:60+05:30')).toEqual(parseTimestamp('2016-12-31T23:59:60Z'));
  });

  it('rejects non-strings', () => {
    for (const v of [null, undefined, 1_700_000_000_000, {}, ['2025-11-03T09:15:06Z']]) expect(parseTimestamp(v)).toBeNull();
  });
});

/** The definition the fast path must match: RFC 3339 read by Date.parse, sub-millisecond digits kept apart, no day past the month's end (RFC 3339 §5.7; Date.parse would roll it over). */
function reference(ts: string): { ms: number; subNs: number } | null {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:)(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:?\d{2})$/.exec(ts);
  if (!m) return null;
  // A leap second is the last instant of the second before; digits past the ninth are dropped.
  const leap = m[3] === '60';
  const [, date, hm, sec, digits, z] = m;
  const second = leap ? '59' : sec;
  const fraction = leap ? '999999999' : (digits ?? '').slice(0, 9);
  const [y, mo, d] = m[1].split('-').map(Number);
  const probe = new Date(0);
  probe.setUTCFullYear(y, mo - 1, d);
  if (probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) return null;
  if (hm.startsWith('24')) return null; // no hour 24 either
  const frac = fraction.padEnd(9, '0');
  const zone = z === 'z' ? 'Z' : z.length === 5 ? `${z.slice(0, 3)}:${z.slice(3)}` : z;
  const ms = Date.parse(`${date}T${hm}${second}.${frac.slice(0, 3)}${zone}`);
  if (leap && !Number.isNaN(ms) && new Date(ms).getUTCMinutes() !== 59) return null; // a leap second ends a UTC minute 59
  return Number.isNaN(ms) ? null : { ms, subNs: Number(frac.slice(3)) };
}

/** A small seeded generator, so a failure names a reproducible input. */
function lcg(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % n;
  };
}

describe('parseTimestamp fast path', () => {
  const pad = (n: number, w: number) => String(n).padStart(w, '0');

  it('rejects days past the month end on every path (Date.parse would roll 02-30 over to March)', () => {
    for (const ts of ['2026-02-30T10:00:00Z', '2026-02-29T10:00:00+00:00', '2026-04-31T10:00:00.5Z', '2026-02-31 10:00:00z', '2026-06-31T10:00:00+0200', '2026-02-30T10:00:00.123456789+00:00']) expect(parseTimestamp(ts), ts).toBeNull();
    expect(parseTimestamp('2024-02-29T10:00:00+0200')).not.toBeNull();
    for (const ts of ['2026-01-01T24:00:00+00:00', '2026-01-01T24:00:00Z', '2026-01-01 24:00:00z']) expect(parseTimestamp(ts), ts).toBeNull();
  });

  it('agrees with the reference on 20,000 engine-shaped timestamps, impossible days 29–31 and odd offsets included', () => {
    const rnd = lcg(42);
    for (let i = 0; i < 20_000; i++) {
      const date = `${pad(rnd(10_000), 4)}-${pad(rnd(14), 2)}-${pad(rnd(33), 2)}`;
      const time = `${pad(rnd(26), 2)}:${pad(rnd(61), 2)}:${pad(rnd(61), 2)}`;
      const digits = rnd(11);
      const frac = digits === 0 ? '' : `.${pad(rnd(1_000_000_000), 9).slice(0, Math.min(digits, 9))}${digits > 9 ? '7' : ''}`;
      const zone = ['Z', 'z', '+00:00', '-00:00', `+${pad(rnd(25), 2)}:${pad(rnd(61), 2)}`, `-${pad(rnd(25), 2)}${pad(rnd(61), 2)}`][rnd(6)];
      const ts = `${date}${'TTTt '[rnd(5)]}${time}${frac}${zone}`;
      expect(parseTimestamp(ts), ts).toEqual(reference(ts));
    }
  });

  it('agrees on month ends and leap days, and leaves malformed near-misses to the general path, which rejects them', () => {
    for (const ts of ['2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2025-04-31T00:00:00Z', '2025-12-31T23:59:59Z']) expect(parseTimestamp(ts), ts).toEqual(reference(ts));
    for (const ts of ['2025-11-03T09:15:06.Z', '2025-11-03T09:15:06+00:0', '2025-11-03T09:15:06+0000Z', '2025-11-03X09:15:06Z', '2025-1a-03T09:15:06Z', '2025-11-03T09:15:06ZZ']) {
      expect(parseTimestamp(ts), ts).toBeNull();
      expect(reference(ts), ts).toBeNull();
    }
  });
});

describe('instantToIso', () => {
  it('matches Date#toISOString on 20,000 instants from year 0 to 9999, leap days and negative times included', () => {
    const rnd = lcg(7);
    const edges = [0, -1, 951_782_400_000, 951_868_799_999, 253_402_300_799_999, 253_402_300_800_000, -62_135_596_800_000, 1.5, 1_754_868_244_501];
    const picks = Array.from({ length: 20_000 }, () => (rnd(2) ? 1 : -1) * (rnd(2_147_483_647) * 120_000 + rnd(120_000)));
    for (const ms of [...edges, ...picks]) expect(instantToIso({ ms, subNs: 0 }), String(ms)).toBe(new Date(ms).toISOString());
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
    ['1m30s', 90_000],
    ['2h15m', 8_100_000],
    ['1h0m5s500ms', 3_605_500],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([['-5s'], ['10 minutes'], ['m'], [''], ['1e3'], ['1m30'], ['5s-'], ['1m 30x']])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('humanDuration', () => {
  it('reads as people write spans, largest two units', async () => {
    const { humanDuration } = await import('../../src/journal/time.js');
    expect([0, 400, 999, 1_000, 45_000, 60_000, 725_000, 3_600_000, 12_000_000, 86_400_000, 33_466_350_000].map(humanDuration)).toEqual(['0s', '400ms', '999ms', '1s', '45s', '1m', '12m 5s', '1h', '3h 20m', '1d', '387d 8h']);
  });
});
