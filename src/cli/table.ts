// The `list` table, in cli-table3's default look (every row boxed, one space of padding). Drawn
// here: cli-table3's layout pass is quadratic in the rows (10,000 rows: 11 s; here 0.1 s). Widths
// come from cli-table3's own measure, so wide characters count as it counts them; a test compares
// the bytes with cli-table3's.
import { createRequire } from 'node:module';

export function renderTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  // Loaded on first use: it costs every other command's start-up otherwise.
  const { strlen } = createRequire(import.meta.url)('cli-table3/src/utils.js') as { strlen: (s: string) => number };
  const widths = head.map((h) => strlen(h));
  const measured = rows.map((row) => row.map((cell, c) => {
    const w = strlen(cell);
    if (w > widths[c]) widths[c] = w;
    return w;
  }));
  const rule = (left: string, cross: string, right: string) => `${left}${widths.map((w) => '─'.repeat(w + 2)).join(cross)}${right}`;
  const line = (cells: readonly string[], lengths: readonly number[]) => `│${cells.map((cell, c) => ` ${cell}${' '.repeat(widths[c] - lengths[c])} `).join('│')}│`;
  const between = rule('├', '┼', '┤');
  const out = [rule('┌', '┬', '┐'), line(head, head.map((h) => strlen(h)))];
  rows.forEach((row, i) => out.push(between, line(row, measured[i])));
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}

/**
 * How many characters of each id the table shows: at least `min`, and enough that no two shown
 * ids look the same (one character past the longest prefix it shares with another), so a cut id
 * still names one row.
 */
export function distinctCuts(ids: readonly string[], min: number): Map<string, number> {
  const sorted = [...new Set(ids)].sort();
  const common = (a: string, b: string) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  const cuts = new Map<string, number>();
  sorted.forEach((id, i) => {
    const shared = Math.max(i > 0 ? common(id, sorted[i - 1]) : 0, i + 1 < sorted.length ? common(id, sorted[i + 1]) : 0);
    cuts.set(id, Math.max(min, shared + 1));
  });
  return cuts;
}
