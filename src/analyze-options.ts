import { CHECK_META_BY_ID } from './checks/catalog.js';
import { SEVERITIES } from './checks/types.js';
import { InputError } from './journal/discover.js';
import type { AnalyzeOptions } from './analyze.js';

const RULE_LEVELS: readonly string[] = ['off', ...SEVERITIES];
const COUNT_OPTIONS = ['maxFanout', 'maxTree', 'maxAttempts'] as const;
const DURATION_OPTIONS = ['staleAfterMs', 'clockSkewMs'] as const;

/** A value as the caller wrote it: JSON.stringify shows Infinity and NaN as null. */
const shown = (v: unknown): string => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v));

/**
 * The library's callers get the refusals the CLI gives for the same settings: a misspelled
 * rule id or level, a count or duration that is not one, or an empty list of roots would
 * otherwise be ignored (or read the user's own journals) without a word.
 */
export function validateAnalyzeOptions(options: AnalyzeOptions): void {
  if (Array.isArray(options.sessions) && options.sessions.length === 0 && !options.stdin) {
    throw new InputError('sessions is an empty list: name at least one folder, file or glob (leave sessions out to read the default root)');
  }
  // A caller without types: these would fail deep inside with a TypeError naming no option, or (rules: 'x') name the wrong one.
  if (options.target !== undefined && typeof options.target !== 'string') throw new InputError(`target must be a string (a delegation id, prefix, parent run or session, or last), not ${shown(options.target)}`);
  if (options.rules != null && (typeof options.rules !== 'object' || Array.isArray(options.rules))) throw new InputError(`rules must be an object of check ids and levels, such as { 'late-result': 'off' }, not ${shown(options.rules)}`);
  if (options.stdin && typeof (options.stdin as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] !== 'function') throw new InputError('stdin must be a readable stream (process.stdin, fs.createReadStream(…))');
  // As the CLI refuses it: `analyze({ target: process.env.ID })` with ID set but blank must not report the newest delegation instead.
  if (typeof options.target === 'string' && options.target.trim() === '') throw new InputError('the target is empty (an unset variable?): name a delegation id, prefix, parent run or session, or last for the newest');
  const known = new Set([...CHECK_META_BY_ID.keys(), ...(options.extraChecks ?? []).map((c) => c.meta.id)]);
  for (const [id, level] of Object.entries(options.rules ?? {})) {
    if (!known.has(id)) throw new InputError(`rules: ${JSON.stringify(id)} is not a check id (see \`trace-delegation rules\`)`);
    if (!RULE_LEVELS.includes(level as string)) throw new InputError(`rules.${id} must be off, info, warning or error, not ${JSON.stringify(level)}`);
  }
  const co = options.checkOptions ?? {};
  for (const k of COUNT_OPTIONS) {
    const v = co[k];
    if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw new InputError(`checkOptions.${k} must be a positive integer, not ${shown(v)}`);
  }
  for (const k of DURATION_OPTIONS) {
    const v = co[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) throw new InputError(`checkOptions.${k} must be a duration in milliseconds (0 or more), not ${shown(v)}`);
  }
  if (co.nowMs !== undefined && !(typeof co.nowMs === 'number' && Number.isFinite(co.nowMs))) throw new InputError(`checkOptions.nowMs must be epoch milliseconds, not ${shown(co.nowMs)}`);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw new InputError(`signal must be an AbortSignal (new AbortController().signal), not ${shown(options.signal)}`);
  if (options.jobs !== undefined && !(Number.isInteger(options.jobs) && options.jobs >= 1 && options.jobs <= 64)) throw new InputError(`jobs must be an integer from 1 to 64, not ${shown(options.jobs)}`);
}
