import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { FAILURE_POLICIES, formatPath, MERGE_STRATEGIES, SUBTASK_STATUSES, type FieldPath, type PlanFinding, type PlanFindingId } from './types.js';

const text = { type: 'string', pattern: '\\S' } as const;
const object = { type: 'object' } as const;

/** The seed's "Output Contract" of the Delegate skill as JSON Schema (extra keys are allowed). */
export const DELEGATION_PLAN_SCHEMA = {
  $id: 'https://trace-delegation/delegation-plan.json',
  type: 'object',
  required: ['delegation', 'subtasks', 'merge_plan', 'failure_handling'],
  properties: {
    delegation: {
      type: 'object',
      required: ['task'],
      properties: {
        task: text,
        delegated_to: { type: 'array', items: text },
        status: { type: 'string', enum: SUBTASK_STATUSES },
      },
    },
    subtasks: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['id', 'agent', 'contract'],
        properties: {
          id: text,
          agent: text,
          contract: {
            type: 'object',
            required: ['inputs', 'outputs', 'constraints', 'verification'],
            properties: {
              // Inputs and constraints may be {} ("none"), but must be stated.
              inputs: object,
              outputs: { type: 'object', minProperties: 1 },
              constraints: object,
              verification: text,
            },
          },
          dependencies: { type: 'array', items: text },
          status: { type: 'string', enum: SUBTASK_STATUSES },
          result: { type: ['object', 'null'] },
        },
      },
    },
    interfaces: {
      type: 'array',
      items: {
        type: 'object',
        required: ['from', 'to'],
        properties: {
          from: text,
          to: text,
          format: object,
          required_fields: { type: 'array', items: text },
        },
      },
    },
    merge_plan: {
      type: 'object',
      required: ['strategy'],
      properties: {
        strategy: { type: 'string', enum: MERGE_STRATEGIES },
        conflict_resolution: { type: 'string' },
        final_output_format: object,
      },
    },
    failure_handling: {
      type: 'object',
      required: ['policy', 'max_retries'],
      properties: {
        policy: { type: 'string', enum: FAILURE_POLICIES },
        max_retries: { type: 'integer', minimum: 0 },
        fallback: { type: ['string', 'null'] },
      },
    },
    handoff_context: {
      type: 'array',
      items: { type: 'object', required: ['key', 'value'], properties: { key: text, value: {} } },
    },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    evidence_anchors: { type: 'array', items: { type: 'string' } },
    assumptions: { type: 'array' },
  },
} as const;

let compiled: ValidateFunction | undefined;
/** Loaded and compiled on first use: at import time it cost every CLI start-up about 0.1 s. */
function planValidator(): ValidateFunction {
  if (!compiled) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    compiled = new Ajv({ allErrors: true, strict: true }).compile(DELEGATION_PLAN_SCHEMA);
  }
  return compiled;
}

/** Schema findings, one per problem, each naming the field path. */
export function schemaFindings(data: unknown, lineOf: (p: FieldPath) => number | undefined = () => undefined): PlanFinding[] {
  const validatePlan = planValidator();
  if (validatePlan(data)) return [];
  const out: (PlanFinding & { fieldPath: FieldPath })[] = [];
  const seen = new Set<string>();
  const errors = validatePlan.errors ?? [];
  // A value of the wrong type also fails its enum/pattern; the type error alone says it.
  const typed = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  for (const err of errors) {
    if (err.keyword !== 'type' && typed.has(err.instancePath)) continue;
    const f = toFinding(err, data);
    const key = `${f.path}\u0000${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...f, line: lineOf(f.fieldPath) });
  }
  return out.map(({ fieldPath: _, ...f }) => f);
}

function pointerToPath(pointer: string): FieldPath {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function valueAt(data: unknown, p: FieldPath): unknown {
  let cur = data;
  for (const seg of p) cur = (cur as Record<string | number, unknown> | null)?.[seg];
  return cur;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'object') return 'a mapping';
  return String(v);
}

const TYPE_WORDS: Record<string, string> = { object: 'a mapping', array: 'a list', string: 'a string', integer: 'an integer', number: 'a number', null: 'null' };

/** Names the subtask a path is inside, so `subtasks[1]` reads as `subtasks[1] (perf-review)`. */
function subtaskNote(p: FieldPath, data: unknown): string {
  if (p[0] !== 'subtasks' || typeof p[1] !== 'number') return '';
  const id = valueAt(data, ['subtasks', p[1], 'id']);
  return typeof id === 'string' && id.trim() ? ` (subtask ${JSON.stringify(id)})` : '';
}

function idFor(p: FieldPath): PlanFindingId {
  if (p[0] === 'failure_handling') return p.length === 1 ? 'plan-no-failure-handling' : 'plan-failure-handling';
  if (p[0] === 'merge_plan' && p[1] === 'strategy') return 'plan-merge-strategy';
  if (p[0] === 'subtasks' && typeof p[1] === 'number' && p[2] === 'contract') return 'plan-incomplete-contract';
  return 'plan-schema';
}

function toFinding(err: ErrorObject, data: unknown): Omit<PlanFinding, 'line'> & { fieldPath: FieldPath } {
  const base = pointerToPath(err.instancePath);
  const params = err.params as Record<string, unknown>;
  let fieldPath = base;
  let message: string;
  switch (err.keyword) {
    case 'required':
      fieldPath = [...base, String(params.missingProperty)];
      message = `${formatPath(fieldPath)} is required`;
      if (formatPath(fieldPath) === 'failure_handling') message += ': the plan delegates without failure handling (policy, max_retries)';
      break;
    case 'type': {
      const want = String(params.type).split(',').map((t) => TYPE_WORDS[t] ?? t).join(' or ');
      message = `${formatPath(base) || 'the plan'} must be ${want}, not ${describe(valueAt(data, base))}`;
      break;
    }
    case 'enum':
      message = `${formatPath(base)} must be one of ${(params.allowedValues as unknown[]).join(', ')}, not ${describe(valueAt(data, base))}`;
      break;
    case 'pattern':
      message = `${formatPath(base)} must not be blank`;
      break;
    case 'minProperties':
      message = `${formatPath(base)} must name at least one output`;
      break;
    case 'minItems':
      message = `${formatPath(base)} must list at least one subtask`;
      break;
    case 'minimum':
    case 'maximum':
      message = formatPath(base) === 'confidence' ? `confidence must be between 0 and 1, not ${describe(valueAt(data, base))}` : `${formatPath(base)} must be ${err.keyword === 'minimum' ? 'at least' : 'at most'} ${params.limit}, not ${describe(valueAt(data, base))}`;
      break;
    default:
      message = `${formatPath(base) || 'the plan'} ${err.message ?? 'is invalid'}`;
  }
  return { id: idFor(fieldPath), severity: 'error', path: formatPath(fieldPath), message: message + subtaskNote(fieldPath, data), fieldPath };
}
