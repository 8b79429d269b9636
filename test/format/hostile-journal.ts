/** A delegation whose every free-text field was written to break out of HTML, SVG, JSON or scripts. */
import { ev, journal } from '../helpers/journal.js';

export const HOSTILE = {
  delegationId: `d-"><iframe src=javascript:alert(4)>`,
  agent: `<img src=x onerror=alert(1)>`,
  runId: `run"><svg onload="window.__pwned=5">`,
  preview: `<script>window.__pwned = 1</script></script><script>window.__pwned = 3</script><!-- \u2028 \u202e`,
  error: `"><img src=x onerror="window.__pwned=2">`,
  aggregated: `</textarea><style>body{display:none}</style>`,
} as const;

export const HOSTILE_JOURNAL = journal(
  ev.started('2025-11-03T12:00:00.000000000+00:00', { delegation_id: HOSTILE.delegationId, parent_run_id: `p' onmouseover='x`, pattern: 'fan_out', agent_ids: [HOSTILE.agent, 'ok-agent'] }),
  ev.subStarted('2025-11-03T12:00:00.100000000+00:00', { delegation_id: HOSTILE.delegationId, sub_run_id: HOSTILE.runId, parent_run_id: 'p', agent_id: HOSTILE.agent }),
  ev.subStarted('2025-11-03T12:00:00.200000000+00:00', { delegation_id: HOSTILE.delegationId, sub_run_id: 'run-ok', parent_run_id: 'p', agent_id: 'ok-agent' }),
  ev.subCompleted('2025-11-03T12:00:04.000000000+00:00', { delegation_id: HOSTILE.delegationId, sub_run_id: HOSTILE.runId, agent_id: HOSTILE.agent, status: 'failed', error: HOSTILE.error, output_preview: HOSTILE.preview }),
  ev.subCompleted('2025-11-03T12:00:05.000000000+00:00', { delegation_id: HOSTILE.delegationId, sub_run_id: 'run-ok', agent_id: 'ok-agent', status: 'completed', output_preview: 'fine' }),
  ev.completed('2025-11-03T12:00:06.000000000+00:00', { delegation_id: HOSTILE.delegationId, pattern: 'fan_out', total_sub_runs: 2, succeeded: 1, failed: 1, aggregated_status: 'partial', aggregated_output_preview: HOSTILE.aggregated }),
);
