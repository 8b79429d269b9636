import path from 'node:path';
import { CHECK_META_BY_ID } from '../checks/catalog.js';
import { parseJsonText } from '../json-error.js';
import type { RuleSettings } from '../checks/run.js';
import { SEVERITIES, type CheckOptions, type Severity } from '../checks/types.js';
import { durationValueMs } from '../journal/time.js';
import { UsageError } from './io.js';
import { readSmallText, TooLargeError } from '../small-file.js';

export const CONFIG_FILE = 'trace-delegation.config.json';

/** The config file's shape; every key is optional and flags win over it. */
export interface ConfigFile {
  rules?: Record<string, string>;
  maxFanout?: number;
  maxTree?: number;
  maxAttempts?: number;
  staleAfter?: string | number;
  clockSkew?: string | number;
  failOn?: string;
}

const KEYS = new Set(['$schema', 'rules', 'maxFanout', 'maxTree', 'maxAttempts', 'staleAfter', 'clockSkew', 'failOn']);

export interface Settings {
  rules: RuleSettings;
  checkOptions: Partial<CheckOptions>;
  failOn?: Severity | 'none';
}

/** A config is a few lines; more than this is the wrong file. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Loads `--config <path>` or ./trace-delegation.config.json (absent is fine, invalid is exit 2). */
export function loadConfig(explicit: string | undefined, cwd: string): Settings {
  // `--config "$FILE"` with FILE unset: an error, not the default file in its place.
  if (explicit === '') throw new UsageError('--config was given an empty file name (an unset variable?)');
  const file = explicit ? path.resolve(cwd, explicit) : path.join(cwd, CONFIG_FILE);
  let text: string;
  try {
    text = readSmallText(file, MAX_CONFIG_BYTES);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!explicit && code === 'ENOENT') return { rules: {}, checkOptions: {} };
    const why = err instanceof TooLargeError ? err.message : code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new UsageError(`cannot read config file ${explicit ?? CONFIG_FILE}: ${why}`);
  }
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (err) {
    throw new UsageError(`config file ${explicit ?? CONFIG_FILE} is not valid JSON: ${(err as Error).message}`);
  }
  return validateConfig(raw, explicit ?? CONFIG_FILE);
}

export function validateConfig(raw: unknown, name: string): Settings {
  const fail = (msg: string) => new UsageError(`config file ${name}: ${msg}`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail('must be a JSON object');
  const c = raw as Record<string, unknown>;
  for (const k of Object.keys(c)) if (!KEYS.has(k)) throw fail(`unknown key "${k}"${suggestKey(k)} (allowed: ${[...KEYS].filter((x) => x !== '$schema').join(', ')})`);
  const settings: Settings = { rules: {}, checkOptions: {} };
  if (c.rules !== undefined) {
    if (typeof c.rules !== 'object' || c.rules === null || Array.isArray(c.rules)) throw fail('"rules" must be an object of check id → off|info|warning|error');
    for (const [id, v] of Object.entries(c.rules)) settings.rules[id] = parseRuleValue(id, v, (m) => fail(`rules.${id}: ${m}`));
  }
  for (const key of ['maxFanout', 'maxTree', 'maxAttempts'] as const) {
    if (c[key] === undefined) continue;
    if (typeof c[key] !== 'number' || !Number.isInteger(c[key]) || (c[key] as number) < 1) throw fail(`"${key}" must be a positive integer`);
    settings.checkOptions[key] = c[key] as number;
  }
  for (const [key, opt] of [['staleAfter', 'staleAfterMs'], ['clockSkew', 'clockSkewMs']] as const) {
    if (c[key] === undefined) continue;
    const ms = durationValueMs(c[key]);
    if (ms === null) throw fail(`"${key}" must be a duration such as 500ms, 30s, 10m, 2h, 1m30s or plain seconds`);
    // 1e306 seconds is a finite number but no finite number of milliseconds.
    if (!Number.isFinite(ms)) throw fail(`"${key}" must be a duration such as 500ms, 30s, 10m, 2h, 1m30s or plain seconds, not ${String(c[key])} (too large)`);
    settings.checkOptions[opt] = ms;
  }
  if (c.failOn !== undefined) {
    if (typeof c.failOn !== 'string') throw fail(`"failOn" must be one of error, warning, info, none (a string), not ${JSON.stringify(c.failOn)}`);
    settings.failOn = parseFailOn(c.failOn, (m) => fail(`"failOn": ${m}`));
  }
  return settings;
}

/** The flag spelling of a key (`max-fanout`, `max_fanout`) points to its config spelling (`maxFanout`). */
function suggestKey(k: string): string {
  const camel = k.replace(/^-+/, '').replace(/[-_]([a-z])/g, (_, ch: string) => ch.toUpperCase());
  return camel !== k && KEYS.has(camel) ? `; did you mean "${camel}"?` : '';
}

export function parseRuleValue(id: string, v: unknown, fail: (m: string) => Error): Severity | 'off' {
  if (!CHECK_META_BY_ID.has(id)) throw fail(`unknown check id (see \`trace-delegation rules\`)`);
  if (v === 'off' || (typeof v === 'string' && (SEVERITIES as readonly string[]).includes(v))) return v as Severity | 'off';
  throw fail(`must be off, info, warning or error, not ${JSON.stringify(v)}`);
}

/** `--rule id=severity` */
export function parseRuleFlag(flag: string): [string, Severity | 'off'] {
  const m = /^([a-z0-9-]+)=(.*)$/.exec(flag);
  if (!m) throw new UsageError(`--rule expects <id>=<off|info|warning|error>, got ${JSON.stringify(flag)}`);
  return [m[1], parseRuleValue(m[1], m[2], (msg) => new UsageError(`--rule ${m[1]}: ${msg}`))];
}

export function parseFailOn(v: string, fail: (m: string) => Error = (m) => new UsageError(`--fail-on: ${m}`)): Severity | 'none' {
  if (v === 'none' || (SEVERITIES as readonly string[]).includes(v)) return v as Severity | 'none';
  throw fail(`must be error, warning, info or none, not ${JSON.stringify(v)}`);
}
