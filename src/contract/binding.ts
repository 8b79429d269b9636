import type { Child, Delegation } from '../model/delegation.js';
import { delegationTree } from '../model/group.js';
import type { DelegationPlan, Subtask } from './types.js';

/** A subtask and the child (retry chain) that ran it, if any. */
export interface Assignment {
  subtask: Subtask;
  /** Index in `plan.subtasks`, for field paths such as `subtasks[1].dependencies`. */
  index: number;
  child: Child | null;
}

/** A contract laid over one delegation: which child ran which subtask. */
export interface ContractBinding {
  plan: DelegationPlan;
  assignments: Assignment[];
  byId: Map<string, Assignment>;
  /** Children no subtask claims: an agent the contract does not name, or more runs than it has subtasks. */
  unassigned: Child[];
  /** Agents named by subtasks or `delegation.delegated_to`. */
  agents: Set<string>;
}

/** Fork writes `agent×N` in agent_ids; the runs carry the bare agent id. */
const bareAgent = (id: string) => id.replace(/×\d+$/, '');

/** Subtasks in plan order, except that a subtask comes after the ones it depends on (stable topological order). */
export function executionOrder(plan: DelegationPlan): number[] {
  const ids = new Map(plan.subtasks.map((s, i) => [s.id, i] as const));
  const placed = new Set<number>();
  const out: number[] = [];
  while (out.length < plan.subtasks.length) {
    const next = plan.subtasks.findIndex((s, i) => !placed.has(i) && (s.dependencies ?? []).every((d) => !ids.has(d) || placed.has(ids.get(d)!)));
    // A cycle (the validator reports it) would stall: take the rest in plan order.
    const i = next !== -1 ? next : plan.subtasks.findIndex((_, k) => !placed.has(k));
    placed.add(i);
    out.push(i);
  }
  return out;
}

/**
 * Maps subtasks to children by agent ↔ agent_id. The journal has no subtask ids, so when one
 * agent has several subtasks they take its children in order of first start.
 */
export function bindContract(plan: DelegationPlan, d: Delegation): ContractBinding {
  const position = new Map(d.events.map((e, i) => [e, i] as const));
  const firstEvent = (c: Child) => {
    const r = c.attempts[0];
    const e = r.starts[0] ?? r.completions[0] ?? r.retryEvent;
    return e ? position.get(e) ?? Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  };
  const queues = new Map<string, Child[]>();
  for (const c of [...d.children].sort((a, b) => firstEvent(a) - firstEvent(b))) {
    if (!c.agentId) continue;
    queues.set(c.agentId, [...(queues.get(c.agentId) ?? []), c]);
  }
  const assignments: Assignment[] = plan.subtasks.map((subtask, index) => ({ subtask, index, child: null }));
  for (const i of executionOrder(plan)) assignments[i].child = queues.get(assignments[i].subtask.agent)?.shift() ?? null;
  const claimed = new Set(assignments.flatMap((a) => (a.child ? [a.child] : [])));
  const agents = new Set([...plan.subtasks.map((s) => s.agent), ...(plan.delegation.delegated_to ?? [])]);
  return {
    plan,
    assignments,
    byId: new Map(assignments.map((a) => [a.subtask.id, a] as const)),
    unassigned: d.children.filter((c) => !claimed.has(c)),
    agents,
  };
}

function runsContractAgent(plan: DelegationPlan, d: Delegation): boolean {
  const agents = new Set(plan.subtasks.map((s) => s.agent));
  return (d.started?.agentIds ?? []).some((a) => agents.has(bareAgent(a))) || d.children.some((c) => c.agentId !== null && agents.has(c.agentId));
}

/**
 * Which delegation of a tree the contract describes: the first (outermost, then earliest) one
 * that runs one of its agents, or the tree's root when none does. Nested delegations that a
 * sub-agent starts for itself are not held to the outer plan.
 */
export function contractGoverns(plan: DelegationPlan, d: Delegation): boolean {
  let root = d;
  while (root.parent) root = root.parent.delegation;
  const depth = (x: Delegation): number => (x.parent ? 1 + depth(x.parent.delegation) : 0);
  const tree = delegationTree(root).map((x) => ({ x, depth: depth(x) })).sort((a, b) => a.depth - b.depth);
  return (tree.find(({ x }) => runsContractAgent(plan, x))?.x ?? root) === d;
}
