import { CONTRACT_CHECKS } from '../contract/checks/index.js';
import { CHECKS } from './index.js';
import type { CheckCategory, CheckMeta } from './types.js';

/** A titled list of checks, as `trace-delegation rules` and docs/checks.md present them. */
export interface CheckGroup {
  title: string;
  /** Where the checks come from (the seed or spec they implement). */
  source: string;
  checks: readonly CheckMeta[];
}

const builtIn = (category: CheckCategory) => CHECKS.filter((c) => c.meta.category === category).map((c) => c.meta);

/**
 * Every check the tool knows, grouped. Another registry documents its checks by appending a
 * group here: `rules`, `--rule`/config validation and docs/checks.md all read this list.
 */
export const CHECK_GROUPS: readonly CheckGroup[] = [
  { title: 'Trace workflow', source: 'seed skill `003_ffd359b3c0b919fc.txt`, steps 2–7', checks: builtIn('trace') },
  { title: 'Join contract', source: 'seed `000_676515c7973fab88.txt`', checks: builtIn('join') },
  { title: 'SAFE consistency model', source: 'seed `002_816f7269d01257db.txt`', checks: builtIn('safe') },
  { title: 'Delegation contracts', source: 'seed `001_e1b5d6f6cd12c3be.txt`; only with `--contract <plan>`', checks: CONTRACT_CHECKS.map((c) => c.meta) },
];

/** Every check's metadata, in catalog order. */
export const ALL_CHECK_METAS: readonly CheckMeta[] = CHECK_GROUPS.flatMap((g) => g.checks);

export const CHECK_META_BY_ID: ReadonlyMap<string, CheckMeta> = new Map(ALL_CHECK_METAS.map((m) => [m.id, m]));
