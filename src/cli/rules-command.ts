import { CHECK_GROUPS } from '../checks/catalog.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';

/** `rules`: every check (built-in and contract) with its id, default severity and one-line description. */
export function runRules(io: CliIO, json: boolean): number {
  const all = CHECK_GROUPS.flatMap((g) => g.checks);
  if (json) {
    const rows = all.map((m) => ({ id: m.id, category: m.category, severity: m.defaultSeverity, description: m.description }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  const width = Math.max(...all.map((m) => m.id.length));
  const blocks = CHECK_GROUPS.filter((g) => g.checks.length > 0).map((g) =>
    [`${g.title}:`, ...g.checks.map((m) => `  ${m.id.padEnd(width)}  ${m.defaultSeverity.padEnd(7)}  ${m.description}`)].join('\n'),
  );
  io.stdout.write(`${blocks.join('\n\n')}\n\nChange a severity with --rule <id>=<off|info|warning|error> or "rules" in trace-delegation.config.json; see docs/checks.md.\n`);
  return EXIT.ok;
}
