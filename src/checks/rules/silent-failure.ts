import type { SubRunCompletedEvent } from '../../journal/types.js';
import { finalCompletion } from '../../model/delegation.js';
import { loc } from '../../model/evidence.js';
import type { Check, Report } from '../types.js';

/**
 * Openings that read as failure or partial work. "error" and "failure" need a delimiter, the end
 * of the output or while/during/when after them ("Failed", "Error.", "error while compiling"), so
 * "Error handling refactored …" is not taken for a failure report; in capitals (a test runner's
 * "FAILED tests: 3", "ERROR ...") they always count.
 */
const FAILURE_WORDING =
  /^\s*(?:(?:error|failure|failed)\s*(?:[:!–—]|\s-|-\s|\.?\s*$)|(?:error|failure|failed)\s+(?:while|during|when)\b|failed to\b|failure to\b|partial(?:ly)?\b|could not\b|couldn't\b|cannot\b|can't\b|unable to\b|i (?:could not|couldn't|cannot|can't|was unable to|am unable to)\b)/i;
// Not a heading ("ERROR HANDLING: …") nor a count of none ("FAILED tests: 0").
const SHOUTED_FAILURE = /^\s*(?:FAILED|FAILURE|ERROR)\b(?!\s+[A-Z]{2,}\b)(?!\s+\w+\s*:\s*0\b)/;

// A test summary's count of none, in any case ("Failed: 0, Passed: 212", "Errors: 0 (3 warnings)"): the zero
// ends the count (end, line break, `,` `;` `(` `|`). Not "0.5s", "0 of 3", "0/3", nor "Error: 0 bytes written".
const COUNT_OF_NONE = /^\s*(?:errors?|failures?|failed)(?:\s+\w+)?\s*:\s*0(?=[ \t]*(?:$|[\r\n,;(|]))/i;

/** Whether an output's opening reads as failure or partial work (the info heuristic). */
export const readsAsFailure = (preview: string): boolean => !COUNT_OF_NONE.test(preview) && (FAILURE_WORDING.test(preview) || SHOUTED_FAILURE.test(preview));
/**
 * Pushback from a downstream passed on as text (seed 002: "it can arrive as a plain text"): a
 * rate limit, 429, 503, a quota. The phrase must end there (punctuation, the end, or words such
 * as "for", "from", "please"): "Rate limited the endpoint", "HTTP 429 responses are now retried"
 * and "Quota exceeded handling added" describe work done.
 */
const PUSHBACK_END = String.raw`(?=\s*(?:[:.,;!(\-–—]|$)|\s+(?:for|from|by|on|in|at|please|try|retry|when|while|after)\b)`;
const PUSHBACK_WORDING = new RegExp(
  String.raw`^\s*(?:(?:rate[- ]limit(?:ed)?(?: exceeded| reached)?|too many requests|service (?:temporarily )?unavailable|quota (?:exceeded|exhausted)|(?:http|status|error)\s*(?:code\s*)?(?:429|503)(?: too many requests| service (?:temporarily )?unavailable)?)${PUSHBACK_END}|(?:429 too many requests|503 service (?:temporarily )?unavailable)\b)`,
  'i',
);

export const silentFailure: Check = {
  meta: {
    id: 'silent-failure',
    category: 'safe',
    defaultSeverity: 'warning',
    description: 'A sub-run reports completed but carries an error, an empty output, or output that reads as failure.',
    symptom: 'Wrong aggregate',
    docs: {
      why:
        'Under the SAFE model a failure must be a value the parent can see, not a success with bad content. A final status of completed with an error, or with an output_preview that is present but null or blank, is a failure the join will treat as a result (warning). An output that starts like a failure report ("Error: …", "Failed to …", "Partial …", "Could not …", "I was unable to …") or like pushback from a downstream service passed on as text ("Rate limit exceeded (HTTP 429) …", "Too many requests", "Service unavailable", "HTTP 503 …", "Quota exceeded") is flagged as info: it is a wording heuristic, not proof (a count of none in a test summary, "Failed: 0, Passed: 212", is not a failure report). Journals without the output_preview key (Gen 0) are not judged on the output, and their Limits say so.',
      example: [
        '{"type":"delegation_started","ts":"2026-03-10T10:00:00.000000000+00:00","session_id":"s-1","metadata":{"agent_count":1,"agent_ids":["coder"],"delegation_id":"d-1","parent_run_id":"r-1","pattern":"fan_out"}}',
        '{"type":"delegation_sub_run_started","ts":"2026-03-10T10:00:00.050000000+00:00","session_id":"s-1","metadata":{"agent_id":"coder","delegation_id":"d-1","depth":1,"parent_run_id":"r-1","retry_of":null,"status":"running","sub_run_id":"run-1"}}',
        '{"type":"delegation_sub_run_completed","ts":"2026-03-10T10:00:30.000000000+00:00","session_id":"s-1","metadata":{"agent_id":"coder","delegation_id":"d-1","error":"tool crashed: cargo test exited 101","output_preview":"","status":"completed","sub_run_id":"run-1"}}',
        '{"type":"delegation_completed","ts":"2026-03-10T10:00:30.100000000+00:00","session_id":"s-1","metadata":{"aggregated_output_preview":null,"aggregated_status":"failed","delegation_id":"d-1","failed":1,"pattern":"fan_out","succeeded":0,"total_sub_runs":1}}',
      ].join('\n'),
      reportLine: '- [warning] silent-failure: sub-run run-1 (agent coder) is completed but carries error "tool crashed: cargo test exited 101" (example.jsonl:3)',
      fix: 'Make the agent fail loudly: return an error status instead of an apology as output, and map errors and empty outputs to failed (agent_result_status_to_subrun_state in coordination.rs).',
    },
  },
  run({ delegation: d }) {
    const out: Report[] = [];
    for (const child of d.children) {
      const run = child.final; // retried originals were replaced; only the final attempt counts
      const c = finalCompletion(run);
      if (!c || c.status !== 'completed') continue;
      const finding = judge(c);
      if (finding) out.push({ ...finding, message: `sub-run ${run.runId} (agent ${run.agentId ?? '?'}) ${finding.message}`, evidence: [loc(c)], runs: [run.runId] });
    }
    return out;
  },
};

function judge(c: SubRunCompletedEvent): Pick<Report, 'message' | 'severity'> | null {
  if (c.error === '') return { message: 'is completed but carries an empty error string (the engine counts it as a failure: error is not absent)' };
  if (c.error !== null) return { message: `is completed but carries error ${JSON.stringify(clip(c.error, 120))}` };
  // undefined = the key is absent (Gen 0 never wrote it): nothing to judge.
  if (c.outputPreview === null) return { message: 'is completed but its output_preview is null' };
  if (c.outputPreview !== undefined && c.outputPreview.trim() === '') return { message: 'is completed but its output_preview is blank' };
  if (c.outputPreview && PUSHBACK_WORDING.test(c.outputPreview))
    return { severity: 'info', message: `is completed but its output reads as pushback passed on as text (${JSON.stringify(clip(c.outputPreview, 60))}): a rate limit or an unavailable service, so the work may not have been done; this is a wording heuristic` };
  if (c.outputPreview && readsAsFailure(c.outputPreview))
    return { severity: 'info', message: `is completed but its output reads as failure or partial work (${JSON.stringify(clip(c.outputPreview, 60))}); this is a wording heuristic` };
  return null;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
