// Public API: analyze journals programmatically, plus the building blocks the CLI uses.
export { analyze, loadJournals, TargetError, type Analysis, type AnalyzeOptions } from './analyze.js';
export { CHECKS, CHECKS_BY_ID } from './checks/index.js';
export type { Check, CheckMeta, CheckOptions, Finding, Severity } from './checks/types.js';
export { FORMATTERS } from './format/index.js';
export type { DelegationReport, TraceReport } from './report/types.js';
export { main } from './cli/main.js';
