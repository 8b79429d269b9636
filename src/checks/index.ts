import { agentSetMismatch } from './rules/agent-set-mismatch.js';
import { delegationIncomplete } from './rules/delegation-incomplete.js';
import { duplicateCompletion } from './rules/duplicate-completion.js';
import { failedInAggregate } from './rules/failed-in-aggregate.js';
import { fanoutBudget } from './rules/fanout-budget.js';
import { foreignParent } from './rules/foreign-parent.js';
import { lateResult } from './rules/late-result.js';
import { missingCompletion } from './rules/missing-completion.js';
import { missingStart } from './rules/missing-start.js';
import { orphanEvent } from './rules/orphan-event.js';
import { retryAfterUnknown } from './rules/retry-after-unknown.js';
import { retryAttemptGap } from './rules/retry-attempt-gap.js';
import { retryUnlinked } from './rules/retry-unlinked.js';
import { sequentialStoppedEarly } from './rules/sequential-stopped-early.js';
import { silentFailure } from './rules/silent-failure.js';
import { statusMismatch } from './rules/status-mismatch.js';
import { timeOrder } from './rules/time-order.js';
import { timeoutAsFailure } from './rules/timeout-as-failure.js';
import { totalsMismatch } from './rules/totals-mismatch.js';
import type { Check } from './types.js';

/** Every check, in report order: the trace workflow, then the join contract, then SAFE. */
export const CHECKS: readonly Check[] = [
  agentSetMismatch,
  missingStart,
  sequentialStoppedEarly,
  missingCompletion,
  retryUnlinked,
  retryAttemptGap,
  totalsMismatch,
  statusMismatch,
  delegationIncomplete,
  orphanEvent,
  duplicateCompletion,
  timeOrder,
  lateResult,
  failedInAggregate,
  foreignParent,
  silentFailure,
  timeoutAsFailure,
  retryAfterUnknown,
  fanoutBudget,
];

export const CHECKS_BY_ID: ReadonlyMap<string, Check> = new Map(CHECKS.map((c) => [c.meta.id, c]));
