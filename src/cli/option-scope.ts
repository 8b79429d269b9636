import type { Command } from 'commander';
import { UsageError } from './io.js';

// Harmless anywhere: scripts pass them to every command.
const ANYWHERE = new Set(['color', 'quiet']);

/**
 * An option given before a subcommand that the subcommand has no use for (`--contract … list`,
 * `-o json=x list`, `--fail-on none contract validate`) is an error, not silently dropped.
 */
export function rejectForeignOptions(cmd: Command): void {
  const own = new Set(cmd.options.map((o) => o.attributeName()));
  const path: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  for (let c = cmd.parent; c; c = c.parent) {
    for (const o of c.options) {
      const key = o.attributeName();
      if (own.has(key) || ANYWHERE.has(key)) continue;
      const source = c.getOptionValueSource(key);
      if (source === 'cli') throw new UsageError(doesNotApply(o.long ?? o.flags, path));
    }
  }
}

/** The sentence for a report option given to a subcommand (`path`: `list`, `contract validate`). */
export function doesNotApply(flag: string, path: readonly string[]): string {
  return `${flag} does not apply to ${path.join(' ')}: give it to the report (trace-delegation ${flag} … [target]), or see trace-delegation ${path.join(' ')} --help`;
}

/**
 * The options of a subcommand and of the commands before it, the subcommand's own winning over
 * the same option given before it (commander's optsWithGlobals lets the parent win). A default
 * never overrides a value given on the command line.
 */
export function ownOptionsWin<T>(cmd: Command): T {
  rejectForeignOptions(cmd);
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.unshift(c);
  const out: Record<string, unknown> = {};
  for (const c of chain)
    for (const [key, value] of Object.entries(c.opts())) {
      if (key in out && c.getOptionValueSource(key) === 'default') continue;
      // A repeatable option given on both sides (--rule, --sessions): all of them, the later after.
      out[key] = Array.isArray(out[key]) && Array.isArray(value) ? [...(out[key] as unknown[]), ...value] : value;
    }
  return out as T;
}
