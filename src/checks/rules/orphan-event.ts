import { loc } from '../../model/evidence.js';
import type { DelegationEvent } from '../../journal/types.js';
import type { Check } from '../types.js';

/** `2 delegation_sub_run_started, 1 delegation_completed`: what kind of events were orphaned. */
function kinds(events: DelegationEvent[]): string {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${n} ${t}`).join(', ');
}

export const orphanEvent: Check = {
  meta: {
    id: 'orphan-event',
    category: 'trace',
    defaultSeverity: 'warning',
    description: 'Delegation events whose delegation_id has no delegation_started in the files read.',
    symptom: 'Delegation never starts',
    docs: {
      why: 'One delegation can span several session files (the request session and the tracker session, or the Gen A delegation.jsonl). Events without their start usually mean the search was too narrow.',
      example: '{"type":"delegation_sub_run_started",…,"metadata":{"delegation_id":"d-9",…}}\n(no delegation_started for d-9 in any file read)',
      reportLine: '- [warning] orphan-event: 2 events of delegation d-9 (2 delegation_sub_run_started) have no delegation_started in the files read; widen --sessions (o.jsonl:1, o.jsonl:2)',
      fix: 'Widen --sessions to every owner directory and the legacy root (and .jsonl.gz archives); if the start is really missing, the journal write failed (writes are best-effort).',
    },
  },
  run({ delegation: d }) {
    if (d.started || d.events.length === 0) return [];
    return [
      {
        message: `${d.events.length === 1 ? '1 event' : `${d.events.length} events`} of delegation ${d.id} (${kinds(d.events)}) ${d.events.length === 1 ? 'has' : 'have'} no delegation_started in the files read; widen --sessions`,
        evidence: d.events.map(loc),
        runs: [...d.runs.keys()],
      },
    ];
  },
};
