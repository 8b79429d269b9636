/** Builders for journal lines in the engine's exact shape (compact JSON, snake_case types). */
const SID = '11111111-2222-4333-8444-555555555555';

type Meta = Record<string, unknown>;

export function line(type: string, ts: string, metadata: Meta, sessionId = SID): string {
  return JSON.stringify({ type, ts, session_id: sessionId, metadata });
}

export const ev = {
  started: (ts: string, m: { delegation_id: string; parent_run_id: string; pattern: string; agent_ids: string[]; agent_count?: number }) =>
    line('delegation_started', ts, { agent_count: m.agent_count ?? m.agent_ids.length, ...m }),
  subStarted: (ts: string, m: { delegation_id: string; sub_run_id: string; parent_run_id: string; agent_id: string; depth?: number; retry_of?: string | null }) =>
    line('delegation_sub_run_started', ts, { depth: 1, retry_of: null, status: 'running', ...m }),
  retry: (ts: string, m: { delegation_id: string; original_run_id: string; retry_run_id: string; agent_id: string; attempt?: number; reason?: string }) =>
    line('delegation_retry', ts, { attempt: 2, reason: 'output too short (4 chars, minimum 10)', ...m }),
  subCompleted: (ts: string, m: { delegation_id: string; sub_run_id: string; agent_id: string; status: string; error?: string | null; output_preview?: string | null }) =>
    line('delegation_sub_run_completed', ts, { error: null, output_preview: null, ...m }),
  completed: (ts: string, m: { delegation_id: string; pattern: string; total_sub_runs: number; succeeded: number; failed: number; aggregated_status: string; aggregated_output_preview?: string | null }) =>
    line('delegation_completed', ts, { aggregated_output_preview: null, ...m }),
  marker: (ts: string, action: string, runId: string) => line('sync_marker', ts, { action, run_id: runId }),
};

export const journal = (...lines: string[]) => `${lines.join('\n')}\n`;
