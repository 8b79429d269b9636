// White text sits on the status and severity colours (run ids in bars, pills, counts): each must
// keep WCAG AA's 4.5:1 contrast with it (the first palette's green and orange gave about 3:1).
import { describe, expect, it } from 'vitest';
import { STYLES } from '../../src/format/html/styles.js';

/** WCAG 2 relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrastWithWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);
const contrast = (a: string, b: string) => (Math.max(luminance(a), luminance(b)) + 0.05) / (Math.min(luminance(a), luminance(b)) + 0.05);

describe('html palette', () => {
  const root = /:root \{([^}]*)\}/.exec(STYLES)![1];
  const vars = new Map([...root.matchAll(/--([\w-]+): (#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]] as const));
  it.each(['ok', 'bad', 'vf', 'cancel', 'pause', 'open', 'unknown', 'partial', 'err', 'warn', 'info'])('--%s holds white text at 4.5:1 or more', (name) => {
    const hex = vars.get(name);
    expect(hex, name).toBeDefined();
    expect(contrastWithWhite(hex!)).toBeGreaterThanOrEqual(4.5);
  });
  it.each([
    ['light', /:root \{([^}]*)\}/],
    ['dark', /prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}/],
  ])('%s: text in status colours (links, counts in words, the late label) keeps 4.5:1 on the page and lane backgrounds', (_, block) => {
    const own = new Map([...block.exec(STYLES)![1].matchAll(/--([\w-]+): (#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]] as const));
    const pick = (name: string) => own.get(name) ?? vars.get(name)!;
    for (const text of ['link', 'ok-fg', 'bad-fg', 'warn-fg']) for (const back of ['bg', 'lane']) expect(contrast(pick(text), pick(back)), `${text} on ${back}`).toBeGreaterThanOrEqual(4.5);
  });
  it('computes contrast as WCAG does (white on #767676 is the 4.5:1 boundary)', () => {
    expect(contrastWithWhite('#767676')).toBeCloseTo(4.54, 1);
  });
});
