import { durationValueMs } from '../journal/time.js';
import { schemaFindings } from './schema.js';
import { ALL_SUBTASKS, formatPath, MERGE_STEP, type DelegationPlan, type FieldPath, type PlanFinding, type PlanFindingId } from './types.js';
import type { Severity } from '../checks/types.js';

type Obj = Record<string, unknown>;
type LineOf = (p: FieldPath) => number | undefined;

export interface ContractValidation {
  findings: PlanFinding[];
  /** The typed plan when it matches the schema (semantic findings may remain), else null. */
  plan: DelegationPlan | null;
}

/** What the semantic checks need of a subtask, read leniently so a half-broken plan still gets checked. */
interface LooseSubtask {
  index: number;
  id: string | null;
  agent: string | null;
  dependencies: { id: string; index: number }[];
  contract: Obj | null;
  raw: Obj;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const q = (s: string) => JSON.stringify(s);

/** Validates a parsed plan: the seed's schema, then its Verification section and anti-patterns. */
export function validateContract(data: unknown, lineOf: LineOf = () => undefined): ContractValidation {
  // Every finding of every subtask is built before one is printed: 200,000 subtasks took 1 GB.
  if (isObj(data) && Array.isArray(data.subtasks) && data.subtasks.length > MAX_SUBTASKS) {
    const message = `subtasks lists ${data.subtasks.length} subtasks; a plan is checked up to ${MAX_SUBTASKS.toLocaleString('en-US')} (a delegation starts at most ${ENGINE_FANOUT_AGENTS} agents at once)`;
    return { findings: [{ id: 'plan-schema', severity: 'error', path: 'subtasks', message, line: lineOf(['subtasks']) }], plan: null };
  }
  const findings = schemaFindings(data, lineOf);
  const plan = findings.length === 0 ? (data as DelegationPlan) : null;
  if (!isObj(data)) return { findings, plan: null };
  const add = (id: PlanFindingId, severity: Severity, path: FieldPath, message: string) => findings.push({ id, severity, path: formatPath(path), message, line: lineOf(path) });
  const subtasks = looseSubtasks(data);
  const byId = new Map<string, LooseSubtask>();
  for (const s of subtasks) {
    if (!s.id) continue;
    const first = byId.get(s.id);
    if (first) add('plan-duplicate-subtask', 'error', ['subtasks', s.index, 'id'], `subtasks[${s.index}].id ${q(s.id)} is already the id of subtasks[${first.index}]; subtask ids must be unique`);
    else byId.set(s.id, s);
  }
  checkDependencies(subtasks, byId, add);
  const dependsOn = reachability(subtasks, byId);
  checkInterfaces(data, subtasks, byId, dependsOn, add);
  checkInputReferences(subtasks, byId, dependsOn, add);
  checkTimeouts(subtasks, add);
  checkDelegatedTo(data, subtasks, add);
  checkFailureHandling(data, add);
  checkMutatingSubtasks(subtasks, add);
  // File order reads best; the sort is stable, so findings on one line keep their check order.
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { findings, plan };
}

/** Plans larger than this are refused, not checked: no engine delegation comes near it. */
const MAX_SUBTASKS = 10_000;
const ENGINE_FANOUT_AGENTS = 32;

type Add = (id: PlanFindingId, severity: Severity, path: FieldPath, message: string) => void;

function looseSubtasks(data: Obj): LooseSubtask[] {
  if (!Array.isArray(data.subtasks)) return [];
  return data.subtasks.flatMap((raw, index) => {
    if (!isObj(raw)) return [];
    const deps = Array.isArray(raw.dependencies) ? raw.dependencies.flatMap((d, i) => (isText(d) ? [{ id: d, index: i }] : [])) : [];
    return [{ index, id: isText(raw.id) ? raw.id : null, agent: isText(raw.agent) ? raw.agent : null, dependencies: deps, contract: isObj(raw.contract) ? raw.contract : null, raw }];
  });
}

const label = (s: LooseSubtask) => (s.id ? `subtasks[${s.index}] (${q(s.id)})` : `subtasks[${s.index}]`);

/** Dependencies name existing subtasks and form a DAG; each cycle is reported once with its path. */
function checkDependencies(subtasks: LooseSubtask[], byId: Map<string, LooseSubtask>, add: Add): void {
  for (const s of subtasks)
    for (const d of s.dependencies)
      if (!byId.has(d.id)) add('plan-unknown-dependency', 'error', ['subtasks', s.index, 'dependencies', d.index], `subtasks[${s.index}].dependencies[${d.index}] names ${q(d.id)}, but no subtask has that id${s.id ? ` (in subtask ${q(s.id)})` : ''}`);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string) => {
    state.set(id, 'open');
    stack.push(id);
    for (const d of byId.get(id)!.dependencies) {
      if (!byId.has(d.id)) continue;
      if (state.get(d.id) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(d.id)), d.id];
        const key = [...new Set(cycle)].sort().join('\u0000');
        if (reported.has(key)) continue;
        reported.add(key);
        const owner = byId.get(id)!;
        add('plan-dependency-cycle', 'error', ['subtasks', owner.index, 'dependencies', d.index], `dependencies form a cycle: ${cycle.join(' → ')} (each depends on the next; subtasks[${owner.index}].dependencies[${d.index}] closes it), so none of them can start`);
      } else if (!state.has(d.id)) visit(d.id);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const s of subtasks) if (s.id && byId.get(s.id) === s && !state.has(s.id)) visit(s.id);
}

/** Whether subtask `to` depends on subtask `from`, directly or transitively. */
type DependsOn = (to: string, from: string) => boolean;

/**
 * Answers DependsOn from the subtasks that depend on `from`, found once per `from` (a direct
 * dependency answers at once). A set of every ancestor of every subtask grew with the square of
 * a long chain: 10,000 subtasks, each depending on the one before, took 1.6 GB.
 */
function reachability(subtasks: LooseSubtask[], byId: Map<string, LooseSubtask>): DependsOn {
  const dependents = new Map<string, string[]>();
  for (const s of subtasks) {
    if (!s.id || byId.get(s.id) !== s) continue; // a repeated id: its first subtask speaks for it
    for (const d of s.dependencies) {
      const list = dependents.get(d.id);
      if (list) list.push(s.id);
      else dependents.set(d.id, [s.id]);
    }
  }
  const below = new Map<string, Set<string>>();
  let remembered = 0;
  const descendants = (from: string): Set<string> => {
    const known = below.get(from);
    if (known) return known;
    const seen = new Set<string>();
    const todo = [...(dependents.get(from) ?? [])];
    while (todo.length) {
      const id = todo.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const d of dependents.get(id) ?? []) todo.push(d);
    }
    // Kept while they hold at most a million ids in all; past that, found again per question.
    if ((remembered += seen.size) <= 1_000_000) below.set(from, seen);
    return seen;
  };
  return (to, from) => byId.get(to)?.dependencies.some((d) => d.id === from) || descendants(from).has(to);
}

/** Every key at any depth of an outputs object, plus names listed as `{a, b}` in its descriptions. */
export function declaredFields(outputs: unknown): Set<string> {
  const out = new Set<string>();
  const todo: unknown[] = [outputs]; // a work list: outputs can nest thousands deep
  while (todo.length) {
    const v = todo.pop();
    if (typeof v === 'string') {
      for (const m of v.matchAll(/\{([^{}]*)\}/g)) for (const name of m[1].split(',')) if (name.trim()) out.add(name.trim());
    } else if (Array.isArray(v)) for (const x of v) todo.push(x); // not push(...v): an array can be too long to spread
    else if (isObj(v))
      for (const [k, x] of Object.entries(v)) {
        out.add(k);
        todo.push(x);
      }
  }
  return out;
}

function checkInterfaces(data: Obj, subtasks: LooseSubtask[], byId: Map<string, LooseSubtask>, dependsOn: DependsOn, add: Add): void {
  if (!Array.isArray(data.interfaces)) return;
  data.interfaces.forEach((raw, i) => {
    if (!isObj(raw)) return;
    const from = isText(raw.from) ? raw.from : null;
    const to = isText(raw.to) ? raw.to : null;
    let endpointsOk = true;
    if (from && from !== ALL_SUBTASKS && !byId.has(from)) {
      endpointsOk = false;
      add('plan-unknown-interface-endpoint', 'error', ['interfaces', i, 'from'], `interfaces[${i}].from names ${q(from)}, but no subtask has that id (use a subtask id or ${ALL_SUBTASKS})`);
    }
    if (to && to !== ALL_SUBTASKS && to !== MERGE_STEP && !byId.has(to)) {
      endpointsOk = false;
      add('plan-unknown-interface-endpoint', 'error', ['interfaces', i, 'to'], `interfaces[${i}].to names ${q(to)}, but no subtask has that id (use a subtask id, ${ALL_SUBTASKS} or ${MERGE_STEP})`);
    }
    if (!from || !endpointsOk) return;
    // Data from a subtask to itself is a cycle of one: it cannot read what it has not produced yet.
    if (from === to && from !== ALL_SUBTASKS) add('plan-dependency-cycle', 'error', ['interfaces', i], `interfaces[${i}] passes data from ${q(from)} to itself: a cycle (${from} → ${from})`);
    const producers = from === ALL_SUBTASKS ? subtasks.filter((s) => s.id && byId.get(s.id) === s) : [byId.get(from)!];
    const required = Array.isArray(raw.required_fields) ? raw.required_fields.filter(isText) : [];
    const formatKeys = new Set(isObj(raw.format) ? Object.keys(raw.format) : []);
    const edge = `interfaces[${i}] (${from} → ${to ?? '?'})`;
    // Producers missing the same fields share one finding (all_subtasks would repeat it per subtask).
    const carriedBy = new Map<string, string[]>();
    const nestedBy = new Map<string, string[]>();
    for (const p of producers) {
      const outputs = p.contract?.outputs;
      if (!isObj(outputs)) continue; // the schema already reports missing outputs
      const declared = declaredFields(outputs);
      const missing = required.filter((f) => !declared.has(f));
      // A field the interface's format carries at the top level must be an output; item fields can only be looked up.
      const carried = missing.filter((f) => formatKeys.has(f));
      const nested = missing.filter((f) => !formatKeys.has(f));
      const who = `${q(p.id!)} (outputs: ${Object.keys(outputs).join(', ') || 'none'})`;
      if (carried.length) carriedBy.set(carried.join('\u0000'), [...(carriedBy.get(carried.join('\u0000')) ?? []), who]);
      if (nested.length) nestedBy.set(nested.join('\u0000'), [...(nestedBy.get(nested.join('\u0000')) ?? []), who]);
    }
    for (const [fields, who] of carriedBy)
      add('plan-interface-field', 'error', ['interfaces', i, 'required_fields'], `${edge} requires ${fields.split('\u0000').map(q).join(', ')}, which ${who.join(', ')} ${who.length === 1 ? 'does' : 'do'} not produce`);
    for (const [fields, who] of nestedBy) {
      const names = fields.split('\u0000');
      add('plan-interface-field', 'warning', ['interfaces', i, 'required_fields'], `${edge} requires ${names.map(q).join(', ')}, which ${who.join(', ')} ${who.length === 1 ? 'does' : 'do'} not declare; if they are fields of an output's items, list them there, e.g. "array of {${names.join(', ')}}"`);
    }
    if (from !== ALL_SUBTASKS && to && byId.has(to) && from !== to && !dependsOn(to, from))
      add('plan-interface-without-dependency', 'warning', ['interfaces', i], `interfaces[${i}] passes data from ${q(from)} to ${q(to)}, but ${q(to)} does not depend on ${q(from)}, so it may start before that data exists`);
  });
}

/**
 * `${subtask.output}` in an input. Neither part holds `$`, `{` or `}`: with them, a run of
 * `${${${…` was tried from each of its starts (a 300 KB input took 31 s).
 */
const INPUT_REFERENCE = /\$\{([^${}.\s]+)\.([^${}\s]+)\}/g;

/** `${subtask.output}` references in inputs name an existing subtask, one of its outputs, and a dependency. */
function checkInputReferences(subtasks: LooseSubtask[], byId: Map<string, LooseSubtask>, dependsOn: DependsOn, add: Add): void {
  for (const s of subtasks) {
    if (!isObj(s.contract?.inputs)) continue;
    const refs: { path: FieldPath; ref: string; source: string; field: string }[] = [];
    // A work list, not recursion, and each path spelled out only where a reference is: inputs
    // can nest thousands deep.
    type Step = { key: string | number; up: Step | null };
    const pathOf = (step: Step | null): FieldPath => {
      const keys: (string | number)[] = [];
      for (let x = step; x; x = x.up) keys.push(x.key);
      return ['subtasks', s.index, 'contract', 'inputs', ...keys.reverse()];
    };
    const todo: [unknown, Step | null][] = [[s.contract!.inputs, null]];
    while (todo.length) {
      const [v, at] = todo.pop()!;
      if (typeof v === 'string') for (const m of v.matchAll(INPUT_REFERENCE)) refs.push({ path: pathOf(at), ref: m[0], source: m[1], field: m[2] });
      else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) todo.push([v[i], { key: i, up: at }]);
      else if (isObj(v)) for (const [k, x] of Object.entries(v).reverse()) todo.push([x, { key: k, up: at }]);
    }
    for (const r of refs) {
      const source = byId.get(r.source);
      const where = formatPath(r.path);
      if (!source) {
        add('plan-input-reference', 'error', r.path, `${where} refers to ${r.ref}, but no subtask has the id ${q(r.source)}`);
        continue;
      }
      const outputs = source.contract?.outputs;
      const top = r.field.split('.')[0];
      if (isObj(outputs) && !Object.hasOwn(outputs, top)) // not `in`: every object "has" toString
        add('plan-input-reference', 'error', r.path, `${where} refers to ${r.ref}, but ${q(r.source)} has no output ${q(top)} (its outputs: ${Object.keys(outputs).join(', ') || 'none'})`);
      if (s.id && r.source === s.id) add('plan-dependency-cycle', 'error', r.path, `${where} refers to ${r.ref}, an output of ${q(s.id)} itself: a cycle (${s.id} → ${s.id})`);
      else if (s.id && !dependsOn(s.id, r.source))
        add('plan-input-reference', 'warning', r.path, `${where} refers to ${r.ref}, but ${q(s.id)} does not depend on ${q(r.source)}, so it may start before that output exists`);
    }
  }
}

/** A subtask's time limit: `constraints.timeout` as `30s`, `5m`, `10m` (or seconds); 0 means none. */
export function subtaskTimeoutMs(constraints: unknown): number | null | 'invalid' {
  if (!isObj(constraints) || constraints.timeout === undefined || constraints.timeout === null) return null;
  const ms = durationValueMs(constraints.timeout);
  // 1e306 seconds is finite, its milliseconds are not: no limit anyone meant.
  if (ms === null || !Number.isFinite(ms)) return 'invalid';
  return ms === 0 ? null : ms;
}

function checkTimeouts(subtasks: LooseSubtask[], add: Add): void {
  for (const s of subtasks) {
    if (subtaskTimeoutMs(s.contract?.constraints) !== 'invalid') continue;
    const raw = (s.contract!.constraints as Obj).timeout;
    // String(): JSON.stringify shows 1e400 (Infinity) as null; a number 0 or more is refused only when its ms overflow.
    add('plan-bad-timeout', 'error', ['subtasks', s.index, 'contract', 'constraints', 'timeout'], `subtasks[${s.index}].contract.constraints.timeout must be a duration such as 30s, 5m or 1m30s, not ${typeof raw === 'string' ? q(raw) : typeof raw === 'number' ? `${String(raw)}${raw >= 0 ? ' (too large)' : ''}` : JSON.stringify(raw)}${s.id ? ` (subtask ${q(s.id)})` : ''}`);
  }
}

function checkDelegatedTo(data: Obj, subtasks: LooseSubtask[], add: Add): void {
  const delegation = isObj(data.delegation) ? data.delegation : null;
  if (!delegation || !Array.isArray(delegation.delegated_to)) return;
  const listed = new Set(delegation.delegated_to.filter(isText));
  const used = new Set(subtasks.flatMap((s) => (s.agent ? [s.agent] : [])));
  for (const s of subtasks)
    if (s.agent && !listed.has(s.agent)) add('plan-delegated-to-mismatch', 'warning', ['subtasks', s.index, 'agent'], `${label(s)} is assigned to agent ${q(s.agent)}, which delegation.delegated_to does not list`);
  delegation.delegated_to.forEach((a, i) => {
    if (isText(a) && !used.has(a)) add('plan-delegated-to-mismatch', 'warning', ['delegation', 'delegated_to', i], `delegation.delegated_to lists agent ${q(a)}, but no subtask is assigned to it`);
  });
}

function checkFailureHandling(data: Obj, add: Add): void {
  const fh = isObj(data.failure_handling) ? data.failure_handling : null;
  if (fh?.policy === 'abort' && typeof fh.max_retries === 'number' && fh.max_retries > 0)
    add('plan-abort-with-retries', 'warning', ['failure_handling', 'max_retries'], `failure_handling.max_retries is ${fh.max_retries} but the policy is abort, which stops at the first failure; trace checks treat any retry under abort as a violation (use policy retry to allow retries)`);
  if (fh?.policy === 'retry' && fh.max_retries === 0)
    add('plan-retry-without-retries', 'warning', ['failure_handling', 'max_retries'], 'failure_handling.policy is retry but max_retries is 0, so no retry is allowed; trace checks treat any retry as a violation (raise max_retries, or use policy abort or continue)');
}

// Words that say a subtask changes state outside itself (seed anti-pattern: mutating tasks without safety notes).
const MUTATING = /\b(writ(?:e|es|ing|ten)|wrote|stor(?:e|es|ed|ing)|persist\w*|delet\w*|remov\w*|insert\w*|updat\w*|upsert\w*|drop(?:s|ped|ping)?|deploy\w*|migrat\w*|commit\w*|push(?:es|ed|ing)?|publish\w*|sen(?:d|ds|ding|t)|creat(?:e|es|ed|ing)|modif\w*|mutat\w*|overwrit\w*)\b/gi;
// "store" after these is a noun (an artifact store is read from as well as written to).
const STORE_NOUN_AFTER = /\b(artifact|data|object|blob|vector|document|feature|key|value|kv|session|state|config|secret|file|event|app|the|a|an)\s+$/i;
// Output names that are timestamps (last_updated, created_at), not acts of writing.
const TIMESTAMP_NAME = /^(last|first)[_ -]|[_ -](at|on|time|date|timestamp)$/i;
/** Keys that count as noting safety requirements, in constraints or on the subtask. */
const SAFETY_KEYS = ['safety', 'requires_approval', 'requires_checkpoint', 'approval', 'checkpoint', 'rollback', 'backup', 'dry_run', 'idempotent', 'idempotency_key', 'risk'];

function checkMutatingSubtasks(subtasks: LooseSubtask[], add: Add): void {
  for (const s of subtasks) {
    const constraints = isObj(s.contract?.constraints) ? (s.contract!.constraints as Obj) : {};
    const flag = constraints.mutation ?? s.raw.mutation ?? (isObj(s.raw.safety) ? s.raw.safety.mutation : undefined);
    if (flag === false) continue;
    if (SAFETY_KEYS.some((k) => k in constraints || k in s.raw)) continue;
    const words = flag === true ? ['mutation: true'] : mutatingWords(s, constraints);
    if (!words.length) continue;
    add('plan-mutation-without-safety', 'warning', ['subtasks', s.index, 'contract', 'constraints'], `${label(s)} looks like it changes state (${words.map(q).join(', ')}) but notes no safety requirements; add constraints such as requires_approval, requires_checkpoint or rollback (or mutation: false if it does not)`);
  }
}

function mutatingWords(s: LooseSubtask, constraints: Obj): string[] {
  const outputs = Object.keys(isObj(s.contract?.outputs) ? s.contract!.outputs : {}).filter((k) => !TIMESTAMP_NAME.test(k));
  const texts = [s.id, s.agent, s.contract?.verification, ...outputs, ...Object.entries(constraints).flatMap(([k, v]) => [k, typeof v === 'string' ? v : ''])];
  const words = new Set<string>();
  for (const t of texts) {
    if (typeof t !== 'string') continue;
    const text = t.replace(/[_-]/g, ' ');
    for (const m of text.matchAll(MUTATING)) {
      const word = m[1].toLowerCase();
      if (word === 'store' && STORE_NOUN_AFTER.test(text.slice(0, m.index))) continue;
      words.add(word);
    }
  }
  return [...words];
}
