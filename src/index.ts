// Public API: analyze journals programmatically, plus the building blocks the CLI uses.
export { analyze, loadJournals, streamAll, TargetError, type Analysis, type AnalyzeOptions, type StreamedReport } from './analyze.js';
export { CHECKS, CHECKS_BY_ID } from './checks/index.js';
export type { Check, CheckMeta, CheckOptions, Finding, Severity, Symptom } from './checks/types.js';
export type { RuleSettings } from './checks/run.js';
export { FORMATTERS, formatterFor, piecesFor, type FormatName } from './format/index.js';
export type { Formatter, FormatContext, PieceFormatter } from './format/types.js';
export { exitCodeForFindings } from './cli/io.js';
// Every type docs/json.md names: the JSON document is a TraceReport, an NDJSON line a DelegationReport.
export type { AttemptReport, ChildReport, DelegationReport, Marker, ReportTargetKind, ScanStats, TimelineEntry, TimelineKind, TraceReport } from './report/types.js';
export type { Location } from './journal/types.js';
export { main } from './cli/main.js';
// Errors the run stops with (a missing root, an unknown or ambiguous target, …): the CLI's exit 2.
export { InputError } from './journal/discover.js';
// Delegation contracts: validate a plan, then pass contractChecks(plan) as analyze({ extraChecks }).
export { loadContractFile, parseContractText, ContractFileError, type LoadedContract } from './contract/load.js';
export { validateContract, type ContractValidation } from './contract/validate.js';
export type { DelegationPlan, PlanFinding, PlanFindingId } from './contract/types.js';
export { CONTRACT_CHECKS, contractChecks } from './contract/checks/index.js';
