// The inputs of the tests that feed follow mode's groups in random orders: every fixture tree and
// folder of check cases, and a seeded shuffle so a failure can be replayed.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './cli.js';

/** Every fixture tree, and every folder of check cases. */
export function fixtureInputs(): string[] {
  const trees = ['sessions', 'formats', 'join', 'safe', 'hostile', 'contracts'].map((t) => path.join(FIXTURES, t));
  const checks = readdirSync(path.join(FIXTURES, 'checks')).map((d) => path.join(FIXTURES, 'checks', d)).filter((d) => statSync(d).isDirectory());
  return [...trees, ...checks];
}

/** A small deterministic generator in [0, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** A copy of `items` in an order drawn from `next` (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
