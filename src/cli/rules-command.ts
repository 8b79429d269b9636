import { CHECKS } from '../checks/index.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';

/** `rules`: every check with its id, default severity and one-line description. */
export function runRules(io: CliIO, json: boolean): number {
  if (json) {
    io.stdout.write(`${JSON.stringify(CHECKS.map((c) => ({ id: c.meta.id, category: c.meta.category, severity: c.meta.defaultSeverity, description: c.meta.description })), null, 2)}\n`);
    return EXIT.ok;
  }
  const width = Math.max(...CHECKS.map((c) => c.meta.id.length));
  for (const c of CHECKS) io.stdout.write(`${c.meta.id.padEnd(width)}  ${c.meta.defaultSeverity.padEnd(7)}  ${c.meta.description}\n`);
  return EXIT.ok;
}
