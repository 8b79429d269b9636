import type { Check } from '../../checks/types.js';
import { bindContract, contractGoverns, type ContractBinding } from '../binding.js';
import type { DelegationPlan } from '../types.js';
import { contractAbortIgnored } from './contract-abort-ignored.js';
import { contractDependencyOrder } from './contract-dependency-order.js';
import { contractMergeMismatch } from './contract-merge-mismatch.js';
import { contractMissingSubtask } from './contract-missing-subtask.js';
import { contractRetryPolicy } from './contract-retry-policy.js';
import { contractTimeout } from './contract-timeout.js';
import { contractUnexpectedAgent } from './contract-unexpected-agent.js';
import type { ContractCheck } from './types.js';

/** Every contract check, in report order (ids, severities and docs for `rules` and docs/checks.md). */
export const CONTRACT_CHECKS: readonly ContractCheck[] = [
  contractMissingSubtask,
  contractUnexpectedAgent,
  contractDependencyOrder,
  contractRetryPolicy,
  contractAbortIgnored,
  contractTimeout,
  contractMergeMismatch,
];

export const CONTRACT_CHECKS_BY_ID: ReadonlyMap<string, ContractCheck> = new Map(CONTRACT_CHECKS.map((c) => [c.meta.id, c]));

/**
 * The contract checks bound to one plan, as ordinary Checks for analyze({ extraChecks }).
 * Each runs only on the delegation of a tree that the contract describes (see contractGoverns).
 */
export function contractChecks(plan: DelegationPlan): Check[] {
  const bindings = new WeakMap<object, ContractBinding | null>();
  const bindingFor = (d: Parameters<Check['run']>[0]['delegation']) => {
    if (!bindings.has(d)) bindings.set(d, contractGoverns(plan, d) ? bindContract(plan, d) : null);
    return bindings.get(d)!;
  };
  return CONTRACT_CHECKS.map((check) => ({
    meta: check.meta,
    run(ctx) {
      const binding = bindingFor(ctx.delegation);
      return binding ? check.run(ctx, binding) : [];
    },
  }));
}
