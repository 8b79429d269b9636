import { Command } from 'commander';
import { SEVERITY_RANK, type Check, type Severity } from '../checks/types.js';
import type { DelegationPlan, PlanFinding } from '../contract/types.js';
import type { Delegation } from '../model/delegation.js';
import { safeTerminalText as safe } from '../format/terminal.js';
import { parseFailOn } from './config.js';
import { EXIT, UsageError, type CliIO } from './io.js';
import { ownOptionsWin } from './option-scope.js';

/**
 * The contract code (YAML parser, JSON-schema compiler) is loaded on first use: at start-up it
 * cost every command, `last` included, about 0.2 s.
 */
async function contractModules() {
  const [checks, limits, load, validate] = await Promise.all([import('../contract/checks/index.js'), import('../contract/limits.js'), import('../contract/load.js'), import('../contract/validate.js')]);
  return { contractChecks: checks.contractChecks, contractLimits: limits.contractLimits, loadContractFile: load.loadContractFile, validateContract: validate.validateContract };
}

/** Version of the `contract validate --format json` document. */
export const CONTRACT_REPORT_VERSION = 1;

interface ValidateFlags {
  format: string;
  failOn?: string;
}

/** `contract validate <plan>`: schema, Verification section and anti-patterns; exit 0/1/2. */
export async function runContractValidate(file: string, flags: ValidateFlags, io: CliIO): Promise<number> {
  if (flags.format !== 'text' && flags.format !== 'json') throw new UsageError(`unknown format ${flags.format} for contract validate (choose from text, json)`);
  const failOn = flags.failOn !== undefined ? parseFailOn(flags.failOn) : 'error';
  const { loadContractFile, validateContract } = await contractModules();
  const loaded = await loadContractFile(file, io.cwd);
  const { findings, plan } = validateContract(loaded.data, loaded.lineOf);
  const summary = { error: 0, warning: 0, info: 0 };
  for (const f of findings) summary[f.severity]++;
  if (flags.format === 'json') {
    const doc = { schemaVersion: CONTRACT_REPORT_VERSION, file, format: loaded.format, valid: summary.error === 0, subtasks: Array.isArray(loaded.data.subtasks) ? loaded.data.subtasks.length : 0, summary, findings };
    io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    io.stdout.write(textReport(file, findings, plan, summary));
  }
  if (failOn === 'none') return EXIT.ok;
  return findings.some((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn]) ? EXIT.findings : EXIT.ok;
}

function textReport(file: string, findings: PlanFinding[], plan: DelegationPlan | null, summary: Record<Severity, number>): string {
  const head = plan
    ? `Contract: ${safe(file)} (${plan.subtasks.length} ${plan.subtasks.length === 1 ? 'subtask' : 'subtasks'}, merge ${safe(plan.merge_plan.strategy)}, failure policy ${safe(plan.failure_handling.policy)}, max_retries ${plan.failure_handling.max_retries})`
    : `Contract: ${safe(file)}`;
  const lines = [head, '', 'Findings:'];
  if (!findings.length) lines.push('- none');
  for (const f of findings) lines.push(`- [${f.severity}] ${f.id}: ${safe(f.message)}${f.line ? ` (${safe(file)}:${f.line})` : ''}`);
  const counts = (['error', 'warning', 'info'] as const).filter((s) => summary[s]).map((s) => `${summary[s]} ${s}${summary[s] === 1 ? '' : 's'}`);
  lines.push('', `Result: ${summary.error ? 'invalid' : 'valid'}${counts.length ? ` (${counts.join(', ')})` : ''}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Loads a plan for `--contract`: unreadable files and plans with errors stop the run (exit 2)
 * with the first error, naming its field; warnings do not.
 */
export async function loadContractForTrace(file: string, io: CliIO): Promise<{ extraChecks: Check[]; extraLimits: (d: Delegation) => string[] }> {
  const { loadContractFile, validateContract, contractChecks, contractLimits } = await contractModules();
  const loaded = await loadContractFile(file, io.cwd);
  const { findings, plan } = validateContract(loaded.data, loaded.lineOf);
  const errors = findings.filter((f) => f.severity === 'error');
  if (errors.length || !plan) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more; run \`trace-delegation contract validate ${file}\`)` : '';
    throw new UsageError(`contract ${file} is not valid: ${first ? `${first.message}${first.line ? ` (line ${first.line})` : ''}` : 'it does not match the plan schema'}${more}`);
  }
  return { extraChecks: contractChecks(plan), extraLimits: (d) => contractLimits(plan, file, d) };
}

/** Registers `contract validate` on the program. */
export function addContractCommand(program: Command, io: CliIO, result: { code: number }): void {
  const contract = program.command('contract').description('delegation contracts (seed Delegate output): validate a plan; hold a trace to one with --contract');
  contract
    .command('validate')
    .description('check a plan (YAML or JSON) against the contract schema, its verification rules and anti-patterns')
    .argument('<plan>', 'plan file (.yaml, .yml or .json)')
    .option('-f, --format <name>', 'output format: text or json', 'text')
    .option('--fail-on <severity>', 'exit 1 when a finding is at or above: error|warning|info|none (default error)')
    .option('--no-color', 'accepted for scripts that pass it to every command: the output has no colour')
    .option('-q, --quiet', 'accepted for scripts that pass it to every command: validate has no progress output')
    .action(async (plan: string, _flags: ValidateFlags, cmd: Command) => {
      // -f and --fail-on given before `contract validate` count too; its own win.
      result.code = await runContractValidate(plan, ownOptionsWin<ValidateFlags>(cmd), io);
    });
}
