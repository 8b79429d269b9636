import type { CheckContext, CheckMeta, Report } from '../../checks/types.js';
import type { ContractBinding } from '../binding.js';

/** A contract check: like a built-in Check, but it also receives the contract laid over the delegation. */
export interface ContractCheck {
  meta: CheckMeta;
  run(ctx: CheckContext, contract: ContractBinding): Report[];
}
