// Status → CSS class from a fixed list: journal status strings never become class names.

const KNOWN = ['completed', 'failed', 'verification_failed', 'cancelled', 'paused', 'waiting', 'partial', 'unfinished'] as const;

/** `st-<status>` for known statuses, `st-open` for runs still going, `st-unknown` otherwise. */
export function statusClass(status: string | null, open = false): string {
  if (open && (status === null || status === 'running')) return 'st-open';
  return (KNOWN as readonly string[]).includes(status ?? '') ? `st-${status}` : 'st-unknown';
}

/** Legend entries: class and words, in the order a reader meets them. */
export const LEGEND: [string, string][] = [
  ['st-completed', 'completed'],
  ['st-failed', 'failed'],
  ['st-verification_failed', 'verification failed'],
  ['st-cancelled', 'cancelled'],
  ['st-paused', 'paused / waiting'],
  ['st-open', 'open (no completion)'],
  ['st-unknown', 'other or no status'],
];

/** Worst severity of a list of findings, for badges. */
export function worstSeverity(severities: string[]): 'error' | 'warning' | 'info' | null {
  if (severities.includes('error')) return 'error';
  if (severities.includes('warning')) return 'warning';
  return severities.length ? 'info' : null;
}
