import type { Severity } from '../checks/types.js';

// The seed's Delegate output contract (001_e1b5d6f6cd12c3be), as read after schema validation.

export type SubtaskStatus = 'pending' | 'running' | 'completed' | 'failed';
export type MergeStrategy = 'first_wins' | 'consensus' | 'aggregate' | 'custom';
export type FailurePolicy = 'abort' | 'continue' | 'retry';

export const MERGE_STRATEGIES: readonly MergeStrategy[] = ['first_wins', 'consensus', 'aggregate', 'custom'];
export const FAILURE_POLICIES: readonly FailurePolicy[] = ['abort', 'continue', 'retry'];
export const SUBTASK_STATUSES: readonly SubtaskStatus[] = ['pending', 'running', 'completed', 'failed'];

/** Interface endpoints that are not subtask ids: every subtask (as producer) and the merge step. */
export const ALL_SUBTASKS = 'all_subtasks';
export const MERGE_STEP = 'merge';

export interface SubtaskContract {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  constraints: Record<string, unknown>;
  verification: string;
}

export interface Subtask {
  id: string;
  agent: string;
  contract: SubtaskContract;
  dependencies: string[];
  status?: SubtaskStatus;
  result?: Record<string, unknown> | null;
  [extra: string]: unknown;
}

export interface PlanInterface {
  from: string;
  to: string;
  format?: Record<string, unknown>;
  required_fields?: string[];
}

export interface DelegationPlan {
  delegation: { task: string; delegated_to?: string[]; status?: SubtaskStatus };
  subtasks: Subtask[];
  interfaces?: PlanInterface[];
  merge_plan: { strategy: MergeStrategy; conflict_resolution?: string; final_output_format?: Record<string, unknown> };
  failure_handling: { policy: FailurePolicy; max_retries: number; fallback?: string | null };
  handoff_context?: { key: string; value: unknown }[];
  confidence?: number;
  evidence_anchors?: string[];
  assumptions?: unknown[];
}

/** Stable ids of plan (contract file) findings; `contract validate` reports these. */
export type PlanFindingId =
  | 'plan-schema'
  | 'plan-incomplete-contract'
  | 'plan-no-failure-handling'
  | 'plan-failure-handling'
  | 'plan-merge-strategy'
  | 'plan-duplicate-subtask'
  | 'plan-unknown-dependency'
  | 'plan-dependency-cycle'
  | 'plan-unknown-interface-endpoint'
  | 'plan-interface-field'
  | 'plan-interface-without-dependency'
  | 'plan-input-reference'
  | 'plan-bad-timeout'
  | 'plan-delegated-to-mismatch'
  | 'plan-abort-with-retries'
  | 'plan-retry-without-retries'
  | 'plan-mutation-without-safety';

/** One problem in a contract file: the id, the field path it concerns, and the words. */
export interface PlanFinding {
  id: PlanFindingId;
  severity: Severity;
  /** Field path such as `subtasks[1].contract.verification` (empty for the whole file). */
  path: string;
  message: string;
  /** 1-based line in the contract file, when known. */
  line?: number;
}

/** A path into the plan document: property names and array indexes. */
export type FieldPath = (string | number)[];

/** `['subtasks', 1, 'contract']` → `subtasks[1].contract`. */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
