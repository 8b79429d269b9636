import type { FileStats, Location } from '../journal/types.js';
import type { Delegation } from '../model/delegation.js';
import type { Expectation } from '../model/expected.js';

export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export type CheckCategory = 'trace' | 'join' | 'safe' | 'contract';

/** Rows of the seed skill's failure-classification table: where to look in the engine. */
export type Symptom =
  | 'Delegation never starts'
  | 'No child runs'
  | 'Child cannot message parent'
  | 'Retry loop'
  | 'Pause/resume stuck'
  | 'Cancellation leak'
  | 'Wrong aggregate'
  | 'Missing UI progress';

/** A finding is data: the id, the words and the journal lines it rests on. */
export interface Finding {
  id: string;
  severity: Severity;
  message: string;
  evidence: Location[];
  /** Key of the delegation it belongs to (the id, or `id#2` for a reused id). */
  delegation: string;
  /** Sub-run ids it concerns (the HTML timeline links findings to bars with these). */
  runs: string[];
  symptom: Symptom;
  /** What to inspect in the engine for this symptom. */
  check: string;
}

export interface CheckDocs {
  /** Why it matters, in a sentence or two. */
  why: string;
  /** A journal excerpt that triggers it (JSONL lines, metadata abbreviated). */
  example: string;
  /** The report line it produces for that example. */
  reportLine: string;
  /** CLI flags the example needs to produce that line (e.g. a lower threshold). */
  exampleFlags?: string[];
  /** How to fix the cause. */
  fix: string;
}

export interface CheckMeta {
  id: string;
  category: CheckCategory;
  defaultSeverity: Severity;
  /** One line for `trace-delegation rules`. */
  description: string;
  symptom: Symptom;
  /** The classification of a finding whose message names this cause, where it differs from `symptom`. */
  symptomByCause?: Readonly<Record<string, Symptom>>;
  /** An exception to symptomByCause the check makes from the delegation itself, for the docs. */
  symptomException?: string;
  docs: CheckDocs;
}

export interface CheckOptions {
  /** Milliseconds; an open delegation younger than this is "still running". */
  staleAfterMs: number;
  clockSkewMs: number;
  maxAttempts: number;
  maxFanout: number;
  maxTree: number;
  /** Epoch ms used as "now" (injectable so tests are deterministic). */
  nowMs: number;
}

export const DEFAULT_CHECK_OPTIONS: Omit<CheckOptions, 'nowMs'> = {
  staleAfterMs: 10 * 60_000,
  clockSkewMs: 1000,
  maxAttempts: 2,
  maxFanout: 8,
  maxTree: 32,
};

export interface CheckContext {
  delegation: Delegation;
  expectation: Expectation;
  /** Every delegation found (cross-delegation checks: foreign runs, reused previews). */
  all: Delegation[];
  files: Map<string, FileStats>;
  options: CheckOptions;
}

/** What a check reports; the runner fills in id, delegation and classification. */
export interface Report {
  message: string;
  evidence: Location[];
  severity?: Severity;
  runs?: string[];
  symptom?: Symptom;
}

export interface Check {
  meta: CheckMeta;
  run(ctx: CheckContext): Report[];
}
