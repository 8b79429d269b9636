/** Turns journal text per file into canonical events without touching the disk (model tests). */
import { groupDelegations } from '../../src/model/group.js';
import { normalizeLine } from '../../src/journal/normalize.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { Delegation } from '../../src/model/delegation.js';

/** Files in scan order (object key order), each a list of JSONL lines. */
export function eventsOf(files: Record<string, string[]>): JournalEvent[] {
  const out: JournalEvent[] = [];
  Object.entries(files).forEach(([file, lines], fileIndex) => {
    lines.forEach((text, i) => {
      const r = normalizeLine(JSON.parse(text), { file, line: i + 1, fileIndex });
      if (r.kind === 'event') out.push(r.event);
    });
  });
  return out;
}

export const group = (files: Record<string, string[]>): Delegation[] => groupDelegations(eventsOf(files));

/** The one delegation with this key; throws when it is not there (a clearer failure than undefined). */
export function byKey(ds: Delegation[], key: string): Delegation {
  const d = ds.find((x) => x.key === key);
  if (!d) throw new Error(`no delegation ${key} among ${ds.map((x) => x.key).join(', ')}`);
  return d;
}
