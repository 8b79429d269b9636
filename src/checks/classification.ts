import type { Symptom } from './types.js';

/** The seed skill's failure-classification table: symptom → what to inspect in the engine. */
export const SYMPTOM_CHECKS: Record<Symptom, string> = {
  'Delegation never starts': 'Engine configured in AppState, handler ownership check, request validation',
  'No child runs': 'record_sub_run, transition_state(..., Running), request allowlists, recursion depth',
  'Child cannot message parent': 'mailbox router registration and MessageTarget::Parent resolution',
  'Retry loop': 'VerificationGate::verify, max_retries, DelegationRetry.reason',
  'Pause/resume stuck': 'pause_flags, child loop pause boundaries, resume_children_of',
  'Cancellation leak': 'cancel_tokens, cancel_children_of, cleanup_delegation',
  'Wrong aggregate': 'AggregationStrategy and aggregate_results in coordination.rs',
  'Missing UI progress': 'progress_broadcaster, DelegationProgress, SSE event emission',
};
