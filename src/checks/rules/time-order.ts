import { compareInstants, diffMs } from '../../journal/time.js';
import { loc, seconds } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

export const timeOrder: Check = {
  meta: {
    id: 'time-order',
    category: 'trace',
    defaultSeverity: 'warning',
    description: 'A sub-run completes before it starts, or an event precedes its delegation start by more than --clock-skew.',
    symptom: 'Missing UI progress',
    docs: {
      why: 'File order is not time order (turn buffers flush late), but timestamps themselves must be causal. A completion before its start or an event long before the delegation began means clock trouble or mixed-up ids.',
      example: '{"type":"delegation_sub_run_started","ts":"2026-01-01T10:00:05+00:00",…,"sub_run_id":"r-1"}\n{"type":"delegation_sub_run_completed","ts":"2026-01-01T10:00:01+00:00",…,"sub_run_id":"r-1"}',
      reportLine: '- [warning] time-order: sub-run r-1 completes at 2026-01-01T10:00:01+00:00, 4s before it starts at 2026-01-01T10:00:05+00:00 (j.jsonl:2, j.jsonl:3)',
      fix: 'Check the clocks of the processes writing the journals and whether ids were reused; the tracker takes ts before the file lock, so microsecond inversions are normal.',
    },
  },
  run({ delegation: d, options }) {
    const out: Report[] = [];
    for (const run of d.runs.values()) {
      const start = run.starts[0];
      if (!start?.time) continue;
      for (const c of run.completions) {
        if (c.time && compareInstants(c.time, start.time) < 0)
          out.push({ message: `sub-run ${run.runId} completes at ${c.ts}, ${seconds(diffMs(start.time, c.time))} before it starts at ${start.ts}`, evidence: [loc(start), loc(c)], runs: [run.runId] });
      }
    }
    const begin = d.started?.time;
    if (begin) {
      const early = d.events.filter((e) => e !== d.started && e.time && diffMs(begin, e.time) > options.clockSkewMs);
      if (early.length > 0)
        out.push({
          message: `${early.length} ${early.length === 1 ? 'event precedes' : 'events precede'} the delegation start (${d.started!.ts}) by more than the ${seconds(options.clockSkewMs)} clock skew allowed (earliest ${early[0].ts})`,
          evidence: [loc(d.started!), ...early.map(loc)],
        });
    }
    return out;
  },
};
